"""Running a comparison: the paired schedule played by the tournament's workers, stopped by the SPRT.

Games are played through the runs core (:func:`arena.runs.loop.run_schedule`,
the same pools as ``arena run``: ``-j``, ``--scheduler``) and stored as each
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
from typing import Any, Callable, TextIO

from arena.compare.design import Design
from arena.compare.report import render_json, render_markdown
from arena.compare.stats import REGRESSION_TEST, PairedStats, Sprt
from arena.errors import CompareError
from arena.plugins import Plugins
from arena.preflight import check_entrants
from arena.runs.loop import LOG_FILE, private_files, results_folder, run_schedule
from arena.runs.pools import Pool, open_pool
from arena.runs.reuse import ReusePlan, plan_reuse
from arena.runs.spec import FinishedGame, GameSpec
from arena.runs.store import Store, create_or_open
from arena.runs.folders import check_results_folder
from arena.runs.progress import Tally, make_progress
from arena.versions import entrant_versions, game_key, game_versions

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
    check_results_folder(root, design.name, "compare", fresh)
    with open_pool(jobs, scheduler, plugins) as pool:
        # every bot started once before the folder is made: a broken one leaves nothing behind
        check_entrants(design.entrants, [design.game_entry], plugins, sandbox, design.limits)
        return _compare_in(design, plugins, pool, sprt=sprt, max_blocks=max_blocks, root=root, sandbox=sandbox,
                           fresh=fresh, progress_stream=progress_stream, progress_every=progress_every,
                           question=question, announce=announce)


def _compare_in(design: Design, plugins: Plugins, pool: Pool, *, sprt: Sprt | None, max_blocks: int, root: str,
                sandbox: str, fresh: bool, progress_stream: TextIO | None, progress_every: float,
                question: str = REGRESSION_TEST, announce: Callable[[str], None] = log.info) -> dict[str, Any]:
    """The comparison inside its results folder: stored games counted first, then the blocks still needed.

    Afterwards the games the verdict counted are the folder's current games, every other one history, so
    that `arena leaderboard`, `arena report` and compare.json describe the same games, of these versions.
    """
    with results_folder(root, design.name, fresh) as folder:
        store = create_or_open(folder, {"name": design.name, "kind": "compare", "definition": design.definition(),
                                        "plan": design.plan(max_blocks)})
        try:
            versions = dict(zip([e.name for e in design.entrants], entrant_versions(design.entrants, plugins)))
            versions.update(game_versions([design.game], plugins))  # the game's engine too
            specs = design.specs(max_blocks, sandbox, plugins, store.run_secret(design.seed), versions)
            # the SPRT's settings kept beside the games: a live site (arena serve) draws the trace as it grows
            store.set_meta({"total": len(specs), "versions": versions,
                            "sprt": None if sprt is None else {"elo0": sprt.elo0, "elo1": sprt.elo1,
                                                               "alpha": sprt.alpha, "beta": sprt.beta,
                                                               "lower": sprt.lower, "upper": sprt.upper}})
            stats = PairedStats(sprt, fixed_question=question)
            feed = BlockFeed(design, stats, max_blocks)
            stored = store.stored_games()
            _announce_changes(plan_reuse(specs, stored), announce)
            for spec in specs:  # the stored games of the current bots count first, in schedule order
                if spec.key in stored and not feed.done:
                    record = store.record_by_key(spec.key)
                    feed.add(spec.order, record["result"])
            first = sum(spec.key in stored for spec in specs[:feed.blocks * design.games_per_block])
            announce(f"results in {folder}: {first} stored games of these versions reused"
                     + ("" if feed.done else ", the rest played until the test decides"))
            played = 0
            if not feed.done:
                played = _play(store, folder, design, specs, pool, feed, progress_stream, progress_every)
            counted = specs[:feed.blocks * design.games_per_block]
            store.mark_current({spec.key: spec.order for spec in counted})
            reused = sum(spec.key in stored for spec in counted)
        finally:
            store.close()
    outcome = _outcome(design, stats, feed, folder, max_blocks, played)
    outcome["versions"] = {"candidate": versions[design.candidate.name], "baseline": versions[design.baseline.name],
                           "game": versions[game_key(design.game)]}
    outcome["reused"] = reused
    with private_files():
        _write_outcome(folder, outcome)
    return outcome


def _announce_changes(plan: ReusePlan, announce: Callable[[str], None]) -> None:
    """Which bots (or the game, or the settings) changed since the stored games, as ``arena run`` says it."""
    for bot, (why, count) in sorted(plan.changed.items()):
        announce(f"bot {bot} changed ({why}): its {count} stored games are not reused")
    for game, count in sorted(plan.games_changed.items()):
        announce(f"game {game} changed (its rules or arena's game loop): {count} stored games are not reused")
    if plan.settings_changed:
        announce(f"{plan.settings_changed} stored games of other settings (seed, options, limits) are not reused")


def _play(store: Store, folder: str, design: Design, specs: list[GameSpec], pool: Pool, feed: BlockFeed,
          progress_stream: TextIO | None, progress_every: float) -> int:
    """Play the blocks still needed through ``pool``, storing every game; the number of games played."""
    stored = store.stored_games()
    pending = sum(spec.key not in stored for spec in specs)
    totals = store.bot_totals()
    tally = Tally(len(specs), 0, {row.bot: row.firsts for row in totals}, {row.bot: row.seats for row in totals},
                  reused=len(specs) - pending)
    progress = make_progress(design.name, tally, progress_stream, progress_every)

    def counted(finished: FinishedGame) -> None:
        feed.add(finished.spec.order, finished.record["result"])

    outcome = run_schedule(specs, pool, store, progress, folder=folder, on_game=counted,
                           keep_going=lambda: not feed.done, stop_on_failure=True)
    failures = outcome.failed
    log.info("comparison %s: %d games played now, %d blocks counted, verdict %s", design.name, outcome.played,
             feed.blocks, feed.stats.decided or "-")
    if failures:
        raise CompareError(f"game {failures[0]} (see {os.path.join(folder, LOG_FILE)}); "
                           f"the games finished so far are stored")
    if outcome.interrupted and not feed.done:
        raise Interrupted(f"stopped after {feed.blocks} deals; the games finished so far are stored, "
                          "run the same command again to go on", outcome.signal)
    return outcome.played


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
    for form, render in (("json", render_json), ("markdown", render_markdown)):
        with open(os.path.join(folder, OUTCOME_FILES[form]), "w", encoding="utf-8") as handle:
            handle.write(render(outcome) + "\n")
