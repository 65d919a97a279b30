"""Running a comparison: the paired schedule played by the tournament's workers, stopped by the SPRT.

Games are played in parallel (``-j`` worker processes, the tournament's
:class:`~arena.tournament.workers.WorkerPool`) and stored as each finishes in
a tournament store (``ROOT/NAME/results.sqlite``), so a comparison resumes,
exports and replays like a tournament. The statistics, though, take blocks
strictly in schedule order: a block counts once all its games are in and
every block before it has counted, and the test is checked after each. So
the verdict, and the number of games it needed, are the same for any ``-j``
and after a resume. Once the test decides, no new game starts; the few still
being played (at most two per worker) finish and are stored, but not counted.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Iterator, TextIO

from arena.compare.design import Design
from arena.compare.report import render_json, render_markdown
from arena.compare.stats import PairedStats, Sprt
from arena.errors import CompareError
from arena.tournament.logs import TournamentLog
from arena.tournament.progress import Tally, make_progress
from arena.tournament.runner import LOG_FILE, results_folder
from arena.tournament.store import Store, create_or_resume
from arena.tournament.tasks import GameTask
from arena.tournament.workers import WorkerPool

log = logging.getLogger("arena.compare")
OUTCOME_FILES = {"json": "compare.json", "markdown": "compare.md"}


class Interrupted(Exception):
    """The run was stopped (Ctrl-C) before a verdict; the games finished so far are stored."""


class BlockFeed:
    """Feeds game results to the statistics block by block, in schedule order, until a verdict."""

    def __init__(self, design: Design, stats: PairedStats, max_blocks: int) -> None:
        self.design = design
        self.stats = stats
        self.max_blocks = max_blocks
        self.results: dict[int, dict] = {}
        self.blocks = 0  # blocks counted so far

    def add(self, order: int, result: dict) -> None:
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


def run_comparison(design: Design, plugins: Any, *, sprt: Sprt | None, max_games: int, root: str = "results",
                   jobs: int | None = None, sandbox: str = "process", fresh: bool = False,
                   progress_stream: TextIO | None = None, progress_every: float = 10.0) -> dict:
    """Play ``design`` until the SPRT decides or ``max_games`` are counted (all of them without an SPRT).

    Returns the outcome (what ``--json`` prints) and writes it to ``compare.json``
    and ``compare.md`` in the comparison's folder. Raises :class:`Interrupted` on Ctrl-C.
    """
    max_blocks = max_games // design.games_per_block
    if max_blocks < 1:
        raise CompareError(f"--max-games {max_games} is less than one deal of {design.game} with "
                           f"{design.players} players ({design.games_per_block} games: every seat at both tables)")
    with results_folder(root, design.name, fresh) as folder:
        store = create_or_resume(folder, design.definition(), design.digest(), design.plan(max_blocks),
                                 max_blocks * design.games_per_block, f"comparison {design.name}")
        try:
            stats = PairedStats(sprt)
            feed = BlockFeed(design, stats, max_blocks)
            stored = _feed_stored(store, design, feed)
            played = 0 if feed.done else _play(store, folder, design, plugins, feed, stored, jobs, sandbox,
                                               progress_stream, progress_every)
        finally:
            store.close()
    outcome = _outcome(design, stats, feed, folder, max_blocks, played)
    _write_outcome(folder, outcome)
    return outcome


def _feed_stored(store: Store, design: Design, feed: BlockFeed) -> set[int]:
    """Count the games a previous run stored; their orders."""
    stored = set()
    for text in store.records():
        record = json.loads(text)
        order = design.order_of(record["id"])
        stored.add(order)
        feed.add(order, record["result"])
    return stored


def _play(store: Store, folder: str, design: Design, plugins: Any, feed: BlockFeed, stored: set[int],
          jobs: int | None, sandbox: str, progress_stream: TextIO | None, progress_every: float) -> int:
    """Play the blocks still needed, storing every game; the number of games played."""
    total = feed.max_blocks * design.games_per_block
    remaining = feed.max_blocks - feed.blocks
    workers = max(1, min(jobs or os.cpu_count() or 1, remaining * design.games_per_block))
    totals = store.bot_totals()
    tally = Tally(total, len(stored), {row[0]: row[2] for row in totals}, {row[0]: row[1] for row in totals})
    failures: list[str] = []
    played = 0
    run_log = TournamentLog(os.path.join(folder, LOG_FILE))
    try:
        log.info("comparison %s: blocks %d to %d of %s, %s workers, sandbox %s", design.name, feed.blocks + 1,
                 feed.max_blocks, design.game, workers, sandbox)
        progress = make_progress(design.name, tally, progress_stream, progress_every)

        def done(task: Any, finished: tuple) -> None:
            nonlocal played
            store.add(finished)
            played += 1
            seats = finished[1]
            progress.game_done([row[3] for row in seats], [row[5] for row in seats])
            feed.add(task.order, {"money": [row[4] for row in seats], "ranks": [row[5] for row in seats]})

        def failed(task: Any, reason: str) -> None:
            failures.append(f"{task.game_id}: {reason}")

        def needed() -> Iterator[GameTask]:
            """The schedule's tasks until a verdict or a failure: games in flight then finish normally."""
            for task in design.tasks(feed.blocks, remaining, sandbox, plugins, skip=stored):
                if feed.done or failures:
                    return
                yield task

        pool = WorkerPool(workers, done, failed, on_idle=progress.tick)
        try:
            stopped = pool.run(needed())
        finally:
            progress.finish()
        log.info("comparison %s: %d games played now, %d blocks counted, verdict %s", design.name, played,
                 feed.blocks, feed.stats.decided or "-")
    finally:
        run_log.close()
    if failures:
        raise CompareError(f"game {failures[0]} (see {os.path.join(folder, LOG_FILE)}); "
                           f"the games finished so far are stored")
    if stopped and not feed.done:
        raise Interrupted(f"stopped after {feed.blocks} deals; the games finished so far are stored, "
                          "run the same command again to go on")
    return played


def _outcome(design: Design, stats: PairedStats, feed: BlockFeed, folder: str, max_blocks: int,
             played: int) -> dict:
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


def _write_outcome(folder: str, outcome: dict) -> None:
    for form, render in (("json", render_json), ("markdown", render_markdown)):
        with open(os.path.join(folder, OUTCOME_FILES[form]), "w", encoding="utf-8") as handle:
            handle.write(render(outcome) + "\n")
