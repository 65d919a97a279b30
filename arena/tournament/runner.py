"""Running a tournament: schedule, store, workers, log and progress put together (``arena run``).

The main process builds the schedule, skips the games already stored (resume),
hands the rest to ``-j`` worker processes, and stores each game in the
results store as soon as its record comes back, so a crash loses at most the
games in flight. Only the main process writes the store; one run at a time
may use a results folder (a lock file says so).
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Iterator, TextIO

from arena.errors import StoreError
from arena.tournament.config import Tournament
from arena.tournament.logs import TournamentLog
from arena.tournament.progress import Tally, make_progress
from arena.tournament.schedule import build_schedule
from arena.tournament.store import Store, create_or_resume, remove_store
from arena.tournament.workers import WorkerPool

log = logging.getLogger("arena.tournament")
LOG_FILE = "arena.log"
LOCK_FILE = ".run.lock"


@dataclass
class RunOutcome:
    """What a run did: games played now, games that failed (not stored), whether it was stopped."""

    folder: str
    total: int
    stored_before: int
    played: int = 0
    failed: list[str] = field(default_factory=list)
    interrupted: bool = False

    @property
    def stored(self) -> int:
        return self.stored_before + self.played


@contextlib.contextmanager
def results_folder(root: str, name: str, fresh: bool) -> Iterator[str]:
    """Create and hold ``ROOT/NAME`` for this run (a second run on it is refused); yield its path.

    With ``fresh``, the folder's store and log are discarded first. The lock is a
    POSIX record lock (``lockf``), not ``flock``: forked workers do not inherit
    it, so a run killed with SIGKILL frees its folder at once, even while its
    orphaned workers wind down.
    """
    folder = os.path.join(root, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, LOCK_FILE), "w") as handle:
        try:
            fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise StoreError(f"{folder} is being written by another arena run; wait for it to finish") from None
        if fresh:
            remove_store(folder)
            with contextlib.suppress(FileNotFoundError):
                os.remove(os.path.join(folder, LOG_FILE))
        yield folder


def run_tournament(tournament: Tournament, plugins: Any, *, root: str = "results", jobs: int | None = None,
                   sandbox: str = "process", fresh: bool = False, progress_stream: TextIO | None = None,
                   progress_every: float = 10.0, executor: Executor | None = None) -> RunOutcome:
    """Play every game of ``tournament`` not yet stored in ``ROOT/NAME`` and store it.

    :param fresh: discard the folder's stored results first.
    :param executor: play the games through this executor (a Dask cluster's, :mod:`arena.cluster`), ``jobs``
        blocks of games at a time, instead of in ``jobs`` local worker processes.
    :param progress_stream: where progress goes (default stderr; a bar if it is a terminal).
    """
    with results_folder(root, tournament.name, fresh) as folder:
        schedule = build_schedule(tournament, plugins)
        store = create_or_resume(folder, tournament.definition(), tournament.digest(), schedule.summary(),
                                 schedule.total, tournament.path)
        try:
            return _play_pending(store, schedule, tournament, plugins, folder, jobs or os.cpu_count() or 1,
                                 sandbox, progress_stream, progress_every, executor)
        finally:
            store.close()


def _play_pending(store: Store, schedule: Any, tournament: Tournament, plugins: Any, folder: str, jobs: int,
                  sandbox: str, progress_stream: TextIO | None, progress_every: float,
                  executor: Executor | None) -> RunOutcome:
    stored = store.stored_orders()
    outcome = RunOutcome(folder, schedule.total, len(stored))
    if len(stored) == schedule.total:
        return outcome
    totals = store.bot_totals()
    tally = Tally(schedule.total, len(stored), {row[0]: row[2] for row in totals}, {row[0]: row[1] for row in totals})
    tournament_log = TournamentLog(os.path.join(folder, LOG_FILE))
    try:
        log.info("tournament %s: %d games to play of %d, %d workers, sandbox %s", tournament.name,
                 schedule.total - len(stored), schedule.total, jobs, sandbox)
        progress = make_progress(tournament.name, tally, progress_stream, progress_every)

        def done(task: Any, finished: tuple) -> None:
            store.add(finished)
            outcome.played += 1
            seats = finished[1]
            progress.game_done([row[3] for row in seats], [row[5] for row in seats])

        def failed(task: Any, reason: str) -> None:
            outcome.failed.append(f"{task.game_id}: {reason}")

        if executor is None:
            pool = WorkerPool(min(jobs, schedule.total - len(stored)), done, failed, on_idle=progress.tick)
        else:
            from arena.cluster.pool import ExecutorPool

            pool = ExecutorPool(executor, jobs, done, failed, on_idle=progress.tick)
        try:
            outcome.interrupted = pool.run(schedule.tasks(sandbox, plugins, skip=stored))
        finally:
            progress.finish()
        log.info("tournament %s: %d games played now, %d failed, %d of %d stored%s", tournament.name,
                 outcome.played, len(outcome.failed), outcome.stored, outcome.total,
                 " (stopped)" if outcome.interrupted else "")
    finally:
        tournament_log.close()
    return outcome
