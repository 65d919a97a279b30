"""Storing a run's games in a process of its own: the main process hands over their rows and goes on.

The main process of a run receives every game of every worker, so whatever
it does per game bounds how many workers a run can feed. Of what it did per
game, SQLite's inserts were the most (a games row with three indexes, four
seat rows with one: 25-35 µs of CPU a game). A :class:`StoreWriter` forks a
process that opens the store on a connection of its own and inserts each
batch of rows (:func:`arena.runs.store.game_rows`) the main process sends,
answering each batch once it is committed (batches are gathered into
transactions of about 256 games, waiting at most 0.25 s: :func:`_received`). A local worker pickles its
chunk's rows itself (:class:`arena.runs.spec.PackedChunk`), and the main
process passes them on unread; it pickles only the rows of games other
pools hand it (a few µs a game), and goes back to its workers.

A batch that fails (the disk is full, the store was locked for too long) is
answered with the store's one-line error, which the main process raises at
its next batch or when it closes the writer. The main process closes the
writer before the run ends, so every game received is stored by then (the
ratings and the comparison's bookkeeping read them next). The writer ignores
Ctrl-C and SIGTERM (the main process stops the run, then closes it: every
path out of the run loop does) and dies with the main process, as the
workers do: a run killed outright loses the batches in the pipe and those
the writer was gathering (at most 0.25 s of games), which a rerun plays again.

The writer may be given a :class:`WriterTask` to do with each batch: the
tournament's live ratings (:mod:`arena.standings.live_ratings`) rate the
games from their seats' rows there, so that no process of its own and no
message of the main process's is spent on them. The task takes each batch
as it arrives, while the writer gathers its transaction (up to
:data:`GATHER_SECONDS`), not once it is stored: when the run ends, only the
last transaction's inserts are left to do, not its rating too (~7 ms of
256 games, after the last game at any ``-j``). A task that fails is dropped
(its result is then None); the games are stored all the same. A batch that
cannot be stored drops the task too, since it counted those games.

With many workers the writer gives its task a process of its own
(``rate_aside``, from :data:`RATE_ASIDE_FROM_JOBS` workers on): storing and
rating then run side by side, the writer sending each batch's placings on
(:class:`_TaskAside`). On two cores that would cost a few µs a game more
CPU and gain nothing; with many, the writer's one chain of work, about
51 µs a random game (half of it TrueSkill, half SQLite), would bound a run
at about 20,000 games a second, some 14 times one worker's rate.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import pickle
import select
import signal
import socket
import time
from typing import Any, Callable, Iterator, Protocol, Sequence

from arena.errors import StoreError
from arena.runs.logs import flush_log_queue
from arena.runs.process import die_with_parent
from arena.runs.store import GameRows, Store

log = logging.getLogger("arena.runs")
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
#: pages the writer lets the store's write-ahead log grow to before it copies them into the store (SQLite's
#: default, 1,000 pages of 4 KiB, copied every ~1,500 games: 4 us of the writer's ~27 a game; 10,000: ~40 MB)
CHECKPOINT_PAGES = 10_000
#: games the writer gathers into one transaction before it stores them, waiting at most GATHER_SECONDS for them
GATHER_GAMES, GATHER_SECONDS = 256, 0.25
#: the most games of batches already waiting that the writer stores in one transaction
MERGED_GAMES = 1024
#: workers from which the writer rates in a process of its own beside it (:class:`_TaskAside`)
RATE_ASIDE_FROM_JOBS = 6
#: bytes of batches the main process may send ahead of the writer's reading (a batch of 256 games is ~400 KB)
SEND_BUFFER = 4 * 1024 * 1024


class WriterTask(Protocol):
    """What a writer does besides storing: :meth:`begin`, :meth:`add` and :meth:`result` run in the writer's
    process (the task is forked with it), :meth:`received` in the main process with what :meth:`result` gave."""

    def begin(self) -> None: ...

    def add(self, rows: list[GameRows]) -> None: ...

    def add_placings(self, games: list[Placing]) -> None: ...

    def result(self) -> Any: ...

    def received(self, result: Any) -> None: ...


#: where :func:`arena.runs.store.game_rows` puts a game's name and schedule order, and a seat's bot and rank
_GAME, _ORDER, _BOT, _RANK = 2, 6, 0, 3


#: a game's name, its order in the schedule, and its seats' bots and ranks
Placing = tuple[str, int, list[str], list[int]]


def placings(rows: list[GameRows]) -> Iterator[Placing]:
    """Per game of ``rows``: its game, its order in the schedule, and its seats' bots and ranks."""
    for fields, seats, _ in rows:
        yield fields[_GAME], fields[_ORDER], [seat[_BOT] for seat in seats], [seat[_RANK] for seat in seats]


def run_task(task: WriterTask, step: str, *args: Any) -> bool:
    """``task``'s ``step`` (``begin``, ``add``); False, the error logged, when it fails: the task is then dropped."""
    try:
        getattr(task, step)(*args)
    except Exception:  # the task is extra work: its failure must cost no stored game
        log.exception("the store writer's %s failed; it is dropped", type(task).__name__)
        return False
    return True


class _TaskAside:
    """A writer's task done in a process the writer forks, beside it: the writer sends it each batch's placings.

    Lives in the writer's process. The process it forks dies with the
    writer, ignores Ctrl-C and SIGTERM as the writer does, and sends the
    task's result when the writer asks for it; if it fails or dies, the
    writer's next ``add`` or ``result`` raises and the task is dropped (the
    leaderboard rates the games itself afterwards).
    """

    def __init__(self, task: WriterTask) -> None:
        self.task = task
        self.conn: multiprocessing.connection.Connection | None = None
        self.pid = 0

    def begin(self) -> None:
        mine, theirs = multiprocessing.Pipe()
        self.pid = os.fork()  # not a multiprocessing.Process: the writer is a daemon, which may not have those
        if self.pid == 0:
            mine.close()
            _rate_aside(theirs, self.task)  # never returns
        theirs.close()
        self.conn = mine

    def add(self, rows: list[GameRows]) -> None:
        self.add_placings(list(placings(rows)))

    def add_placings(self, games: list[Placing]) -> None:
        assert self.conn is not None, "begin() comes first"
        self.conn.send(games)

    def result(self) -> Any:
        assert self.conn is not None, "begin() comes first"
        try:
            self.conn.send(None)
            return self.conn.recv()
        finally:
            self.conn.close()
            os.waitpid(self.pid, 0)

    def received(self, result: Any) -> None:  # the main process holds the task itself, never this wrapper
        raise NotImplementedError


def _rate_aside(conn: multiprocessing.connection.Connection, task: WriterTask) -> None:
    """The process beside the writer: ``task`` over every batch of placings until ``None``, then its result."""
    status = 1
    try:
        die_with_parent()
        multiprocessing.current_process().name = "store-rater"  # how its log lines name it
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        task.begin()
        while (games := conn.recv()) is not None:
            task.add_placings(games)
        conn.send(task.result())
        status = 0
    except Exception:
        log.exception("the store writer's %s, beside it, failed; it is dropped", type(task).__name__)
    finally:
        flush_log_queue()
        os._exit(status)  # nothing of the writer's (its store connection) is closed or flushed from here


class StoreWriter:
    """A process that stores the batches of games' rows it is sent, in order, on its own connection.

    ``task`` is done with each batch stored (:class:`WriterTask`), in a process beside the writer's when
    ``rate_aside`` (runs of many workers: :data:`RATE_ASIDE_FROM_JOBS`).
    """

    def __init__(self, path: str, task: WriterTask | None = None, rate_aside: bool = False) -> None:
        context = multiprocessing.get_context("fork")
        self.path = path
        self.task = task
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_write, args=(theirs, self.conn, path, task, rate_aside),
                                       name="store-writer", daemon=True)
        self.unanswered = 0
        self.closed = False
        #: the pipe's end, registered once: ``conn.poll()`` makes and drops a selector each call (~50 us)
        self.answered = select.poll()
        self.answered.register(self.conn.fileno(), select.POLLIN)
        # Ctrl-C is held back while forking: raised in a fork handler it would be printed and lost (the run
        # would go on), and a writer nobody closes would keep the interpreter from exiting
        held = signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            self.process.start()
        finally:
            theirs.close()
            try:
                signal.pthread_sigmask(signal.SIG_SETMASK, held)  # a Ctrl-C held back is raised here
            except BaseException:
                self.close()
                raise
        with contextlib.suppress(OSError):
            with socket.socket(fileno=os.dup(self.conn.fileno())) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)

    def add(self, rows: list[GameRows], pickled: Sequence[bytes] = ()) -> None:
        """Have ``rows`` and the rows ``pickled`` in pieces (a local worker's chunks) stored in one transaction;
        raises the error of an earlier batch that failed."""
        self._answers(wait=False)
        try:
            send_batch(self.conn, rows, pickled)
        except OSError:
            raise self._lost() from None
        self.unanswered += 1

    def close(self) -> None:
        """Wait until every batch sent is stored, then stop the process; raises the error of a batch that failed."""
        if self.closed:
            return
        self.closed = True
        result = None
        stopped = False
        try:
            # ``None`` first: it ends the writer's wait for more games (up to GATHER_SECONDS), so the last
            # games are stored and answered at once rather than after that wait
            with contextlib.suppress(OSError):
                self.conn.send(None)
                stopped = True
            self._answers(wait=True)
            if stopped:
                with contextlib.suppress(OSError):
                    if self.task is not None:
                        with contextlib.suppress(EOFError):
                            result = self.conn.recv()  # the task's result: the writer's last message
        finally:
            self.conn.close()  # a writer we could not send ``None`` to is gone, or ends at this end of file
            self.process.join()
            if self.task is not None:
                self.task.received(result)

    def _answers(self, wait: bool) -> None:
        while self.unanswered and (wait or self.answered.poll(0)):
            try:
                answer = self.conn.recv()
            except (EOFError, OSError):
                raise self._lost() from None
            self.unanswered -= 1
            if answer:
                raise StoreError(answer)

    def _lost(self) -> StoreError:
        self.process.join(1.0)
        return StoreError(f"{self.path}: the process storing this run's games died (exit code "
                          f"{self.process.exitcode}); the games it had not stored are played again by the next run")


def send_batch(conn: multiprocessing.connection.Connection, rows: list[GameRows], pickled: Sequence[bytes]) -> None:
    """Send the writer a batch: ``rows`` and how many pieces follow, then each piece of rows pickled where it was
    played, as a frame of its own (sent as it is: not copied into one more pickle, nor unpickled here)."""
    conn.send((rows, len(pickled)))
    for piece in pickled:
        conn.send_bytes(piece)


def _rows(conn: multiprocessing.connection.Connection, batch: tuple[list[GameRows], int]) -> list[GameRows]:
    """A batch's rows: those sent as they are, then those pickled in pieces, which follow it down ``conn``."""
    rows, pieces = batch
    for _ in range(pieces):
        rows += pickle.loads(conn.recv_bytes())
    return rows


def _received(conn: multiprocessing.connection.Connection,
              arrived: Callable[[list[GameRows]], None] = lambda rows: None,
              ) -> Iterator[tuple[list[GameRows], int]]:
    """The batches that come down ``conn`` until ``None``, gathered into transactions: their rows and how many
    batches they are; ``arrived`` is given each batch's rows as it comes, before its transaction is gathered.

    A transaction costs the writer about 250 us of CPU whatever its size
    (the pages every batch touches, the key index's all over the file, go
    to the write-ahead log once a commit): a game cost 19 us to insert in
    transactions of 64 games, 16.5 in 128 and 15 in 256, and a run's batches
    hold 50-170. So the writer takes the batches that wait behind one, and
    while it holds fewer than :data:`GATHER_GAMES` games it waits up to
    :data:`GATHER_SECONDS` for more, as a batch would have waited in the pipe
    had the writer been busy (the games are stored and answered together; a
    run that stops sends ``None``, which ends the wait at once). A
    transaction holds at most :data:`MERGED_GAMES` games.
    """
    waiting = select.poll()  # registered once: conn.poll() makes and drops a selector each call
    waiting.register(conn.fileno(), select.POLLIN)
    stopped = False
    while not stopped and (batch := conn.recv()) is not None:
        first = _rows(conn, batch)
        arrived(first)
        rows, batches = list(first), 1
        deadline = time.monotonic() + GATHER_SECONDS
        while len(rows) < MERGED_GAMES:
            wait = deadline - time.monotonic() if len(rows) < GATHER_GAMES else 0.0
            if not waiting.poll(max(wait, 0.0) * 1000):
                break
            batch = conn.recv()
            if batch is None:
                stopped = True
                break
            more = _rows(conn, batch)
            arrived(more)
            rows += more
            batches += 1
        yield rows, batches


def _write(conn: multiprocessing.connection.Connection, theirs: multiprocessing.connection.Connection,
           path: str, task: WriterTask | None, rate_aside: bool = False) -> None:
    """The writer process: store each batch that comes down ``conn`` until ``None``, answering each; then send
    ``task``'s result, if it has one."""
    theirs.close()  # the main process's end: only the main process may hold it
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's: it stops the run, then closes us
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # blocked by the fork (StoreWriter.__init__)
    store = Store(path)
    with contextlib.suppress(Exception):  # a store opened read-only has nothing to copy
        store.db.execute(f"PRAGMA wal_autocheckpoint={CHECKPOINT_PAGES}")
    answers_result = task is not None  # the main process waits for one last message, the task's result
    if task is not None and rate_aside:
        task = _TaskAside(task)
    if task is not None and not run_task(task, "begin"):
        task = None

    def arrived(rows: list[GameRows]) -> None:
        nonlocal task
        if task is not None and not run_task(task, "add", rows):
            task = None

    try:
        for rows, batches in _received(conn, arrived):
            try:
                store.add_rows(rows)
            except StoreError as error:
                for _ in range(batches):
                    conn.send(str(error))
                if task is not None:  # it has counted games that are not stored: its result would not hold
                    log.error("the store writer's %s is dropped: a batch it was given could not be stored",
                              type(task).__name__)
                    task = None
                continue
            for _ in range(batches):
                conn.send("")
        if answers_result:
            result = None
            if task is not None:
                try:
                    result = task.result()
                except Exception:
                    log.exception("the store writer's %s failed; it is dropped", type(task).__name__)
            conn.send(result)
    except (EOFError, OSError):
        pass  # the main process is gone
    finally:
        store.close()
