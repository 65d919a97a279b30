"""Storing a run's games in a process of its own: the main process hands over their rows and goes on.

The main process of a run receives every game of every worker, so whatever
it does per game bounds how many workers a run can feed. Of what it did per
game, SQLite's inserts were the most (a games row with three indexes, four
seat rows with one: 25-35 µs of CPU a game). A :class:`StoreWriter` forks a
process that opens the store on a connection of its own and inserts each
batch of rows (:func:`arena.runs.store.game_rows`) the main process sends,
answering each batch once it is committed; the main process pickles the rows
(a few µs a game) and goes back to its workers.

A batch that fails (the disk is full, the store was locked for too long) is
answered with the store's one-line error, which the main process raises at
its next batch or when it closes the writer. The main process closes the
writer before the run ends, so every game received is stored by then (the
ratings and the comparison's bookkeeping read them next). The writer ignores
Ctrl-C and SIGTERM (the main process stops the run, then closes it: every
path out of the run loop does) and dies with the main process, as the
workers do: a run killed outright loses the batches in the pipe, which a
rerun plays again.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket

from arena.errors import StoreError
from arena.runs.process import die_with_parent
from arena.runs.store import GameRows, Store

_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}
#: bytes of batches the main process may send ahead of the writer's reading (a batch of 256 games is ~400 KB)
SEND_BUFFER = 4 * 1024 * 1024


class StoreWriter:
    """A process that stores the batches of games' rows it is sent, in order, on its own connection."""

    def __init__(self, path: str) -> None:
        context = multiprocessing.get_context("fork")
        self.path = path
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_write, args=(theirs, self.conn, path), name="store-writer",
                                       daemon=True)
        self.unanswered = 0
        self.closed = False
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

    def add(self, rows: list[GameRows]) -> None:
        """Have ``rows`` stored (in one transaction); raises the error of an earlier batch that failed."""
        self._answers(wait=False)
        try:
            self.conn.send(rows)
        except OSError:
            raise self._lost() from None
        self.unanswered += 1

    def close(self) -> None:
        """Wait until every batch sent is stored, then stop the process; raises the error of a batch that failed."""
        if self.closed:
            return
        self.closed = True
        try:
            self._answers(wait=True)
        finally:
            with contextlib.suppress(OSError):
                self.conn.send(None)
            self.conn.close()
            self.process.join()

    def _answers(self, wait: bool) -> None:
        while self.unanswered and (wait or self.conn.poll()):
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


def _write(conn: multiprocessing.connection.Connection, theirs: multiprocessing.connection.Connection,
           path: str) -> None:
    """The writer process: store each batch that comes down ``conn`` until ``None``, answering each."""
    theirs.close()  # the main process's end: only the main process may hold it
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's: it stops the run, then closes us
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)  # blocked by the fork (StoreWriter.__init__)
    store = Store(path)
    try:
        while (rows := conn.recv()) is not None:
            try:
                store.add_rows(rows)
            except StoreError as error:
                conn.send(str(error))
            else:
                conn.send("")
    except (EOFError, OSError):
        pass  # the main process is gone
    finally:
        store.close()
