"""Running a comparison: the paired schedule played by the tournament's workers, stopped by the SPRT.

Games are played through the runs core (:func:`arena.runs.run.open_run` and
:meth:`~arena.runs.run.Run.play`, the same steps and pools as ``arena run``:
``-j``, ``--scheduler``) and stored as each
finishes in a results store (``ROOT/NAME/results.sqlite``), so a comparison
resumes, exports and replays like a tournament. The statistics, though, take blocks
strictly in schedule order: a block counts once all its games are in and
every block before it has counted, and the test is checked after each. So
the verdict, and the number of games it needed, are the same for any ``-j``
and after a resume. Once the test decides, no new game starts; the few still
being played (at most two per worker) finish and are stored, but not counted.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Callable, Sequence, TextIO

from arena.compare.design import Design
from arena.compare.stats import REGRESSION_TEST, PairedStats, Sprt
from arena.errors import CompareError
from arena.plugins import Plugins
from arena.preflight import check_entrants
from arena.runs.loop import LOG_FILE, private_files
from arena.runs.reuse import ReusePlan, plan_reuse
from arena.runs.run import Entries, Run, open_run
from arena.runs.spec import FinishedGame, GameSpec
from arena.runs.store import StoredGame
from arena.versions import game_key

log = logging.getLogger("arena.compare")
OUTCOME_FILES = {"json": "compare.json", "markdown": "compare.md"}


class Interrupted(Exception):
    """The run was stopped (Ctrl-C or SIGTERM) before a verdict; the games finished so far are stored."""

    def __init__(self, message: str, signum: int | None = None) -> None:
        super().__init__(message)
        self.signum = signum


class BlockFeed:
    """Feeds game results to the statistics block by block, in schedule order, until a verdict."""

    def __init__(self, design: Design, stats: PairedStats, max_blocks: int) -> None:
        self.design = design
        self.stats = stats
        self.max_blocks = max_blocks
        self.results: dict[int, dict[str, Any]] = {}
        self.blocks = 0  # blocks counted so far

    def add(self, order: int, result: dict[str, Any]) -> None:
        self.results[order] = result
        size = self.design.games_per_block
        while not self.done:
            orders = range(self.blocks * size, (self.blocks + 1) * size)
            if any(order not in self.results for order in orders):
                return
            self.stats.add_block(self.design.block_pairs([self.results.pop(order) for order in orders]))
            self.blocks += 1

    @property
    def done(self) -> bool:
        return self.stats.decided is not None or self.blocks >= self.max_blocks

    def game_done(self, finished: FinishedGame) -> None:
        """An observer of the run: one game played now."""
        self.add(finished.spec.order, finished.record["result"])

    def finish(self) -> None:
        """Nothing to finish: a block counts as soon as its games are in."""


def run_comparison(design: Design, plugins: Plugins, *, sprt: Sprt | None, max_games: int, root: str = "results",
                   jobs: int | None = None, scheduler: str | None = None, sandbox: str = "process",
                   fresh: bool = False, progress_stream: TextIO | None = None, progress_every: float = 30.0,
                   question: str = REGRESSION_TEST, announce: Callable[[str], None] = log.info) -> dict[str, Any]:
    """Play ``design`` until the SPRT decides or ``max_games`` are counted (all of them without an SPRT).

    ``announce`` hears, before play, which bots (or the game) changed since the stored games and how many
    stored games count; the outcome's ``reused`` and ``played_now`` say what was reused and played.

    Games go through the same pools as ``arena run`` (``jobs``, ``scheduler``). ``question`` is what a
    fixed-size comparison (no ``sprt``) asks; an SPRT's bounds ask their own.
    Returns the outcome (what ``--json`` prints) and writes it to ``compare.json``
    and ``compare.md`` in the comparison's folder. Raises :class:`Interrupted` on Ctrl-C or SIGTERM.
    """
    max_blocks = max_games // design.games_per_block
    if max_blocks < 1:
        raise CompareError(f"--max-games {max_games} is less than one deal of {design.game} with "
                           f"{design.players} players ({design.games_per_block} games: every seat at both tables)")

    def check() -> Entries:
        """Every bot started once before the folder is made: a broken one leaves nothing behind."""
        check_entrants(design.entrants, [design.game_entry], plugins, sandbox, design.limits)
        return Entries(design.entrants, [design.game])

    stats = PairedStats(sprt, fixed_question=question)
    feed = BlockFeed(design, stats, max_blocks)
    with open_run("compare", design.name, plugins, check, seed=design.seed,
                  meta={"definition": design.definition(), "plan": design.plan(max_blocks)}, root=root,
                  fresh=fresh, jobs=jobs, scheduler=scheduler, progress_stream=progress_stream,
                  progress_every=progress_every) as run:
        played, reused = _compare_in(design, run, feed, sprt, max_blocks, sandbox, plugins, announce)
        versions = run.versions
    outcome = _outcome(design, stats, feed, run.folder, max_blocks, played)
    outcome["versions"] = {"candidate": versions[design.candidate.name], "baseline": versions[design.baseline.name],
                           "game": versions[game_key(design.game)]}
    outcome["reused"] = reused
    with private_files():
        _write_outcome(run.folder, outcome)
    return outcome


def _compare_in(design: Design, run: Run, feed: BlockFeed, sprt: Sprt | None, max_blocks: int, sandbox: str,
                plugins: Plugins, announce: Callable[[str], None]) -> tuple[int, int]:
    """The comparison inside its results folder: stored games counted first, then the blocks still needed;
    the games played now and the counted games reused.

    Afterwards the games the verdict counted are the folder's current games, every other one history, so
    that `arena leaderboard`, `arena report` and compare.json describe the same games, of these versions.
    """
    specs = design.specs(max_blocks, sandbox, plugins, run.secret, run.versions)
    stored: dict[str, StoredGame] = {}
    decided_before = False  # the stored games alone decided it: nothing is played

    def reuse(specs: Sequence[GameSpec], in_store: dict[str, StoredGame]) -> Sequence[GameSpec]:
        """Say what changed; count the stored games of the current bots first, in schedule order."""
        nonlocal decided_before
        stored.update(in_store)
        _announce_changes(plan_reuse(specs, stored), announce)
        for spec in specs:
            if spec.key in stored and not feed.done:
                feed.add(spec.order, run.store.record_by_key(spec.key)["result"])
        first = sum(spec.key in stored for spec in specs[:feed.blocks * design.games_per_block])
        announce(f"results in {run.folder}: {first} stored games of these versions reused"
                 + ("" if feed.done else ", the rest played until the test decides"))
        decided_before = feed.done
        return specs

    # the SPRT's settings kept beside the games: a live site (arena serve) draws the trace as it grows
    outcome = run.play(specs, meta={"sprt": None if sprt is None else {
        "elo0": sprt.elo0, "elo1": sprt.elo1, "alpha": sprt.alpha, "beta": sprt.beta, "lower": sprt.lower,
        "upper": sprt.upper}}, reuse=reuse, observe=lambda specs, stored: feed,
        keep_going=lambda: not feed.done, stop_on_failure=True)
    if not decided_before:
        log.info("comparison %s: %d games played now, %d blocks counted, verdict %s", design.name,
                 outcome.played, feed.blocks, feed.stats.decided or "-")
    if outcome.failed:
        raise CompareError(f"game {outcome.failed[0]} (see {os.path.join(run.folder, LOG_FILE)}); "
                           f"the games finished so far are stored")
    if outcome.interrupted and not feed.done:
        raise Interrupted(f"stopped after {feed.blocks} deals; the games finished so far are stored, "
                          "run the same command again to go on", outcome.signal)
    counted = specs[:feed.blocks * design.games_per_block]
    run.store.mark_current({spec.key: spec.order for spec in counted})
    return outcome.played, sum(spec.key in stored for spec in counted)


def _announce_changes(plan: ReusePlan, announce: Callable[[str], None]) -> None:
    """Which bots (or the game, or the settings) changed since the stored games, as ``arena run`` says it."""
    for bot, (why, count) in sorted(plan.changed.items()):
        announce(f"bot {bot} changed ({why}): its {count} stored games are not reused")
    for game, count in sorted(plan.games_changed.items()):
        announce(f"game {game} changed (its rules or arena's game loop): {count} stored games are not reused")
    if plan.settings_changed:
        announce(f"{plan.settings_changed} stored games of other settings (seed, options, limits) are not reused")


def _outcome(design: Design, stats: PairedStats, feed: BlockFeed, folder: str, max_blocks: int,
             played: int) -> dict[str, Any]:
    return {
        "comparison": design.name,
        "results": folder,
        "game": design.game,
        "players": design.players,
        "options": design.options,
        "candidate": design.candidate.name,
        "baseline": design.baseline.name,
        "field": [entrant.name for entrant in design.field],
        "seed": design.seed,
        "mode": "fixed" if stats.sprt is None else "sprt",
        "games": feed.blocks * design.games_per_block,
        "max_games": max_blocks * design.games_per_block,
        "played_now": played,
        **stats.summary(),
    }


def _write_outcome(folder: str, outcome: dict[str, Any]) -> None:
    from arena.compare.report import render_json, render_markdown  # tabulate: imported while the games play

    for form, render in (("json", render_json), ("markdown", render_markdown)):
        with open(os.path.join(folder, OUTCOME_FILES[form]), "w", encoding="utf-8") as handle:
            handle.write(render(outcome) + "\n")
