"""The one loop every command that plays many games goes through: :func:`run_schedule`.

It marks which stored games the schedule still holds (the rest become
history, kept but out of the standings), skips them, plays the others through
a pool, stores each game as it ends, and stops cleanly on Ctrl-C or SIGTERM:
games in flight are abandoned, everything finished is stored, no worker or bot
process is left behind. :func:`results_folder` holds a run's folder for it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import logging
import os
import pickle
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence, TextIO, cast

from arena.errors import StoreError
from arena.runs.checkpoint import Checkpointer
from arena.runs.logs import RunLog
from arena.runs.pools import Pool
from arena.runs.spec import FinishedGame, GameSpec
from arena.runs.deals import LazySpecs
from arena.runs.pools.inline import InlinePool
from arena.runs.pools.local import LocalPool
from arena.runs.store import Store, StoredGame, game_rows, remove_store, store_path
from arena.runs.writer import RATE_ASIDE_FROM_JOBS, StoreWriter, WriterTask

log = logging.getLogger("arena.runs")
LOG_FILE = "arena.log"
LOCK_FILE = ".run.lock"
#: finished games are written together when they arrive within this many seconds, this many at most
BATCH_SECONDS, BATCH_GAMES = 0.1, 256
#: what a run's folder and files allow: the runner's user only (bots run as others, or cannot see it at all)
FOLDER_MODE, FILE_UMASK = 0o700, 0o077


@dataclass
class RunOutcome:
    """What a run did: games reused, played now, failed (not stored); whether and by which signal it stopped."""

    folder: str
    total: int
    reused: int = 0
    played: int = 0
    failed: list[str] = field(default_factory=list)
    interrupted: bool = False
    signal: int | None = None
    #: per game, its seats as the run's observer kept them when they are exactly its schedule's (a tournament's
    #: live ratings: :attr:`arena.standings.live_ratings.LiveRatings.seats`): its leaderboard reads no seat back
    seats: dict[str, Any] = field(default_factory=dict)

    @property
    def stored(self) -> int:
        return self.reused + self.played


@contextlib.contextmanager
def private_files() -> Iterator[None]:
    """Within the block, files this process creates are readable by its user only (0600)."""
    previous = os.umask(FILE_UMASK)
    try:
        yield
    finally:
        os.umask(previous)


@contextlib.contextmanager
def results_folder(root: str, name: str, fresh: bool) -> Iterator[str]:
    """Create and hold ``ROOT/NAME`` for this run (a second run on it is refused); yield its path.

    The folder is made 0700 and everything written in it 0600 (a umask held
    for the run). With ``fresh``, the folder's store and log are discarded
    first. The lock is a POSIX record lock (``lockf``), not ``flock``: forked
    workers do not inherit it, so a run killed with SIGKILL frees its folder at once.
    The lock file is removed when the run ends (normally, stopped or failing);
    only a killed run leaves it, and the next run takes it over.
    """
    folder = os.path.join(root, name)
    with private_files():
        os.makedirs(folder, mode=FOLDER_MODE, exist_ok=True)
        with contextlib.suppress(PermissionError):
            os.chmod(folder, FOLDER_MODE)
        path = os.path.join(folder, LOCK_FILE)
        handle = _hold_lock(path, folder)
        try:
            if fresh:
                remove_store(folder)
                with contextlib.suppress(OSError):  # an old log that cannot go is appended to instead
                    os.remove(os.path.join(folder, LOG_FILE))
            yield folder
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)  # while still held: a run waiting on it then finds no file, or a new one
            handle.close()


def _hold_lock(path: str, folder: str) -> TextIO:
    """The open lock file at ``path``, locked by this process; a run holding it already is refused.

    A run that ends removes the file while it holds the lock; one that opened
    the old file just before may then lock a file no longer there, so the lock
    counts only when ``path`` is still the file locked (else it is tried again).
    """
    while True:
        try:
            handle = open(path, "w")
        except OSError as error:
            if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS) and os.path.isfile(store_path(folder)):
                raise StoreError(f"{store_path(folder)} is read-only; make it and its folder writable and "
                                 "run again") from None  # as SQLite's own refusal says it
            raise StoreError(f"cannot write in {folder} ({error.strerror}); choose another --results folder") \
                from None
        try:
            fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.close()
            raise StoreError(f"{folder} is being written by another arena run; wait for it to finish") from None
        try:
            same = os.stat(path).st_ino == os.fstat(handle.fileno()).st_ino
        except OSError:
            same = False
        if same:
            return handle
        handle.close()


class Progress(Protocol):
    """The display of a run (:mod:`arena.runs.progress`)."""

    def game_done(self, bots: list[str], ranks: list[int]) -> None: ...

    def games_done(self, games: list[tuple[list[str], list[int]]]) -> None: ...

    def games_tallied(self, games: int, tally: dict[str, tuple[int, int]]) -> None: ...

    def tick(self) -> None: ...

    def finish(self) -> None: ...


class _Sink:
    """Receives the pool's games in the main process: stores them, tells the progress and the observers.

    Games are written in batches, one transaction for whatever arrived within
    :data:`BATCH_SECONDS` (at most :data:`BATCH_GAMES`), by the run's store
    writer (:mod:`arena.runs.writer`) when it has one, else here: a commit costs about
    half a millisecond, as much as a fast game takes to play. A crash loses the
    games in flight and at most that moment's worth of finished ones. The
    main process reads no result while it writes, but games come packed
    (about 1.5 KB each, rows made): 256 of them take 5-10 ms to write, which
    the workers' send buffers cover. Larger batches write each page of the
    games' key index once for more games (the keys are hashes, so every batch
    touches pages all over it). Before games came packed, 250 games of 11 KB
    records took 40-50 ms and the workers waited. A local worker's chunk comes
    with its rows pickled in one piece (:meth:`done_packed`), which go to the writer as they are.
    """

    def __init__(self, store: Store, outcome: RunOutcome, progress: Progress,
                 on_game: Callable[[FinishedGame], None] | None, run_log: RunLog | None = None,
                 writer: StoreWriter | None = None) -> None:
        self.store = store
        self.writer = writer
        self.outcome = outcome
        self.progress = progress
        self.on_game = on_game
        self.run_log = run_log if log.isEnabledFor(logging.INFO) else None
        self.waiting: list[FinishedGame] = []
        self.pickled: list[bytes] = []  # rows of packed chunks (done_packed), pickled where they were played
        self.count = 0  # games waiting, in both
        self.lines: list[str] = []
        self.since = 0.0
        #: no observer sees each game: a local worker's chunk comes brief (:meth:`done_brief`)
        self.brief = on_game is None
        #: copies the writer's log into the store while the games are played (started with the first batch, once
        #: the workers are forked: no worker is forked with the thread under way)
        self.checkpointer: Checkpointer | None = None

    def done(self, finished: FinishedGame) -> None:
        if not self.count:
            self.since = time.monotonic()
        self.waiting.append(finished)
        self.count += 1
        if self.count >= BATCH_GAMES or time.monotonic() - self.since >= BATCH_SECONDS:
            self.flush()
        self.outcome.played += 1
        if finished.packed is None or self.run_log is None:
            log_finished(finished)
        else:
            self.lines.append(finished.packed.line)
        record = finished.record
        self.progress.game_done(record["players"], record["result"]["ranks"])
        if self.on_game is not None:
            self.on_game(finished)

    def done_packed(self, finished: list[FinishedGame], rows: bytes, lines: str) -> None:
        """A local worker's chunk: its games, their store rows pickled in one piece, their log lines.

        The rows go to the writer as they came (the writer unpickles them):
        the main process only counts, shows progress and tells the observers.
        """
        if not self.count:
            self.since = time.monotonic()
        self.pickled.append(rows)
        self.count += len(finished)
        if self.run_log is None:
            for game in finished:
                log_finished(game)
        else:
            self.lines.append(lines)
        self.outcome.played += len(finished)
        self.progress.games_done([(game.record["players"], game.record["result"]["ranks"]) for game in finished])
        on_game = self.on_game
        if on_game is not None:
            for game in finished:
                on_game(game)
        if self.count >= BATCH_GAMES or time.monotonic() - self.since >= BATCH_SECONDS:
            self.flush()

    def done_brief(self, games: int, tally: dict[str, tuple[int, int]], rows: bytes, lines: str) -> None:
        """A local worker's chunk when no observer sees each game: how many it played, a tally per bot (seats,
        first places), their store rows pickled in one piece and their log lines. No game's record comes."""
        if not self.count:
            self.since = time.monotonic()
        self.pickled.append(rows)
        self.count += games
        if self.run_log is not None:
            self.lines.append(lines)
        self.outcome.played += games
        self.progress.games_tallied(games, tally)
        if self.count >= BATCH_GAMES or time.monotonic() - self.since >= BATCH_SECONDS:
            self.flush()

    def flush(self) -> None:
        """Store the games waiting, in one transaction; then write their log lines, made where they were played."""
        if self.count:
            rows = game_rows(self.waiting)
            if self.writer is not None:
                self.writer.add(rows, self.pickled)
                if self.checkpointer is None:
                    self.checkpointer = Checkpointer(self.store.path)
            else:
                self.store.add_rows(rows + [row for piece in self.pickled for row in pickle.loads(piece)])
            self.waiting, self.pickled, self.count = [], [], 0
        if self.lines and self.run_log is not None:
            self.run_log.write("".join(self.lines))
            self.lines = []

    def stop_checkpoints(self) -> None:
        """Stop copying the writer's log into the store (the store's close copies what is left)."""
        if self.checkpointer is not None:
            self.checkpointer.close()

    def failed(self, spec: GameSpec, reason: str) -> None:
        self.outcome.failed.append(f"{spec.id}: {reason}")

    def idle(self) -> None:
        self.flush()
        self.progress.tick()


def log_finished(finished: FinishedGame) -> None:
    """Log one line for a game that ended, as if the process that played it had (its name, its game).

    A game packed where it was played brings its line with it (the sink
    writes those lines in batches, straight to the run's log file); this is
    for one that does not.
    Sending a log record from a worker to the log's owner cost a millisecond
    game about 5% of its time.
    """
    if not log.isEnabledFor(logging.INFO):
        return
    record = finished.record
    line = log.makeRecord(log.name, logging.INFO, __file__, 0, "finished in %.3f s: %s", (
        finished.seconds, ", ".join(f"{name} {money}" for name, money in zip(record["players"],
                                                                              record["result"]["money"]))), None)
    line.processName = finished.worker or line.processName
    line.game = finished.spec.id
    log.handle(line)


@contextlib.contextmanager
def _stop_on_signals(pool: Pool, outcome: RunOutcome) -> Iterator[None]:
    """Ctrl-C (SIGINT) and SIGTERM ask the pool to stop; the previous handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: object) -> None:
        outcome.signal = signum
        pool.stop()

    previous = {signum: signal.signal(signum, stop) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def run_schedule(specs: Sequence[GameSpec], pool: Pool, store: Store, progress: Progress, *, folder: str,
                 on_game: Callable[[FinishedGame], None] | None = None,
                 keep_going: Callable[[], bool] = lambda: True, stop_on_failure: bool = False,
                 stored: dict[str, StoredGame] | None = None, writer_task: WriterTask | None = None) -> RunOutcome:
    """Play every spec of ``specs`` not stored yet through ``pool``, storing each game as it ends.

    The stored games whose keys are in ``specs`` become the current ones (in
    schedule order); every other stored game becomes history. ``on_game`` sees
    each game played now as it arrives (it is stored within :data:`BATCH_SECONDS`); ``keep_going`` is asked before each
    new game is handed out (a comparison stops once its test decides); with
    ``stop_on_failure``, no new game is handed out after one failed.
    ``progress`` is the display (``game_done``, ``tick``, ``finish``). ``stored`` is the store's
    :meth:`~Store.stored_games` when the caller has just read it (a large store's read is not repeated).
    ``writer_task`` is done by the run's store writer with each batch it stores (the live ratings); a run
    that stores in this process (``-j 0``), or has nothing to play, does not do it (its result is never received).
    """
    stored = store.stored_games() if stored is None else stored
    pending: Sequence[GameSpec]
    if stored:
        store.mark_current({spec.key: spec.order for spec in specs})
        pending = [spec for spec in specs if spec.key not in stored]
    elif isinstance(specs, LazySpecs) and isinstance(pool, LocalPool):
        pending = specs  # the workers make the specs they play (keys included); this process makes none
    else:  # nothing to reuse or set aside: the keys are left to the workers, which store them with the games
        pending = list(specs)
    outcome = RunOutcome(folder, len(specs), reused=len(specs) - len(pending))
    if not pending:
        return outcome

    def handed_out() -> Iterator[GameSpec | int]:
        """The specs to play, or their places in ``pending`` when it makes them only when asked for."""
        tasks: Iterable[GameSpec | int] = range(len(pending)) if isinstance(pending, LazySpecs) else pending
        for task in tasks:
            if not keep_going() or (stop_on_failure and outcome.failed):
                return
            yield task

    run_log = RunLog(os.path.join(folder, LOG_FILE))
    writer: StoreWriter | None = None
    sink: _Sink | None = None
    try:
        log.info("%s: %d games to play of %d, %d reused, %s", store.meta("name"), len(pending), len(specs),
                 outcome.reused, type(pool).__name__)
        # games played elsewhere are stored by a process of its own (arena.runs.writer); in-process, here
        if not isinstance(pool, InlinePool):
            writer = StoreWriter(store.path, writer_task, rate_aside=pool.jobs >= RATE_ASIDE_FROM_JOBS)
        sink = _Sink(store, outcome, progress, on_game, run_log, writer)
        with _stop_on_signals(pool, outcome):
            try:
                # places (ints) go only to a LocalPool, the one pool given a LazySpecs table (it takes either)
                tasks = cast(Iterator[GameSpec], handed_out())
                outcome.interrupted = pool.run(tasks, sink, len(pending), table=pending)
            finally:
                try:
                    try:
                        sink.flush()
                    finally:
                        if writer is not None:
                            writer.close()  # every game received is stored before the run goes on
                finally:
                    progress.finish()
        log.info("%s: %d games played now, %d failed, %d of %d stored%s", store.meta("name"), outcome.played,
                 len(outcome.failed), outcome.stored, outcome.total, " (stopped)" if outcome.interrupted else "")
    finally:
        try:
            try:
                if writer is not None:
                    writer.close()  # already closed unless the loop never began
            finally:
                if sink is not None:
                    sink.stop_checkpoints()
        finally:
            run_log.close()
    return outcome
