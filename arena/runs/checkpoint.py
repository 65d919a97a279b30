"""Copying a run's write-ahead log into its store while the games are played, not after the last one.

The run's store writer (:mod:`arena.runs.writer`) lets SQLite's write-ahead
log grow (its ``wal_autocheckpoint``) so that it spends no CPU copying pages
while it stores. At 4,000 random games the log then held 17-20 MB when the
last game came in, and the main process's first commit after the run (the
ratings' cache) copied it into the store and synced it: 45-50 ms of wall
(15 ms of CPU), then 15 ms more to remove the log at the close, all of it
after the last game, when nothing else runs. On two cores that is time no
worker plays, at ``-j 1`` and ``-j 2`` alike.

A :class:`Checkpointer` is a thread of the main process that copies what
the writer has committed into the store every :data:`EVERY_SECONDS` on a
connection of its own (``PRAGMA wal_checkpoint(PASSIVE)``: it never waits for
the writer nor holds it up, and SQLite runs it without Python's global lock).
The copy happens while the workers play: at ``-j 1`` on the core the single
worker leaves free; what is left at the end is the last fraction of a
second's pages. A checkpoint that fails is only skipped: the store's own
close copies whatever is left, as before. The thread blocks the stop signals,
so Ctrl-C still reaches the main thread at once.
"""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import threading

#: seconds between two copies of the log into the store while a run plays
EVERY_SECONDS = 0.25
_STOP_SIGNALS = {signal.SIGINT, signal.SIGTERM}


class Checkpointer:
    """A thread copying the write-ahead log of the store at ``path`` into it until :meth:`close`."""

    def __init__(self, path: str, every: float = EVERY_SECONDS) -> None:
        self.path = path
        self.every = every
        self.copies = 0  # checkpoints done (for the tests)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="store-checkpoint", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)  # signals are the main thread's to take
        try:
            db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error:
            return
        try:
            while not self._stop.wait(self.every):
                db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                self.copies += 1
        except sqlite3.Error:
            pass  # skipped: the store's own close copies what is left
        finally:
            with contextlib.suppress(sqlite3.Error):
                db.close()

    def close(self) -> None:
        """Stop copying (a copy under way is finished first) and wait for the thread."""
        self._stop.set()
        self._thread.join()
