"""One log file per run (``ROOT/NAME/arena.log``), written by every worker process.

The main process owns the file; workers send their log records to it through
multiprocessing-logging's queue handler, so lines never interleave mid-line.
Each line names its game: :func:`game_context` marks the game a process is
playing and a filter stamps it on every record (``-`` outside a game).

What we add to multiprocessing-logging, and why:
- it works only with the ``fork`` start method, so :func:`use_fork` sets it
  explicitly (Python 3.14 changes the default);
- the queue is bounded (:data:`QUEUE_RECORDS`): a flood of log lines is
  dropped and counted, never held in memory;
- a record is cut to :data:`MAX_RECORD_CHARS`, so each travels in one pipe
  write, which the kernel makes atomic: a worker killed while it logs never
  leaves half a record in the pipe;
- closing drains what has arrived and stops once nothing more comes for a
  moment, instead of waiting (up to 5 s) for records a killed worker counted
  but never sent;
- control characters in messages (a bot's terminal escapes) are shown escaped;
- the main process's own records go straight to the file (the library sends
  them through the queue too, to a thread of the same process).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import multiprocessing
import os
import queue
import threading
from typing import Iterator

from multiprocessing_logging import MultiProcessingHandler

LINE_FORMAT = "%(asctime)s %(processName)s %(levelname)s %(game)s %(name)s: %(message)s"
#: records waiting in the queue at most; more are dropped (and counted)
QUEUE_RECORDS = 10_000
#: characters of one record's message at most (a pipe write of under 4 KiB is atomic)
MAX_RECORD_CHARS = 3000
#: closing stops once no record has come for this long (seconds)
QUIET_SECONDS = 0.05
#: what the main process puts in the queue when it closes the log: every worker has exited by then
_CLOSING = logging.makeLogRecord({"name": "arena.runs.logs", "msg": "closing", "arena_log_closing": True})
_current_game: contextvars.ContextVar[str] = contextvars.ContextVar("arena_game", default="-")
_CONTROL = {code: f"\\x{code:02x}" for code in (*range(0x00, 0x20), 0x7f) if code not in (0x09, 0x0a)}


def escape_control(text: str) -> str:
    """``text`` with control characters (terminal escapes above all) shown as ``\\xNN``; tabs and newlines kept."""
    return text.translate(_CONTROL)


@contextlib.contextmanager
def game_context(game_id: str) -> Iterator[None]:
    """Within the block, log lines of this process name ``game_id``."""
    token = _current_game.set(game_id)
    try:
        yield
    finally:
        _current_game.reset(token)


class GameFilter(logging.Filter):
    """Stamps each record with the game its process is playing (``record.game``).

    It runs in the process that logs (a handler's filters run before the record
    is queued to the main process), so it sees that process's game.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "game"):
            record.game = _current_game.get()
        return True


def use_fork() -> None:
    """Make ``fork`` the start method, which multiprocessing-logging needs."""
    if multiprocessing.get_start_method(allow_none=True) != "fork":
        multiprocessing.set_start_method("fork", force=True)


class BoundedQueueHandler(MultiProcessingHandler):
    """multiprocessing-logging's handler with a bounded queue, atomic records and a close that never hangs."""

    def __init__(self, name: str, sub_handler: logging.Handler) -> None:
        # the library's __init__ starts its thread on an unbounded queue: set up the same parts here instead
        logging.Handler.__init__(self)
        self.sub_handler = sub_handler
        self.setLevel(sub_handler.level)
        self.setFormatter(sub_handler.formatter)
        self.filters = sub_handler.filters
        self.queue = multiprocessing.Queue(QUEUE_RECORDS)
        self._is_closed = False
        self.dropped = 0
        self.owner = os.getpid()
        self._receive_thread = threading.Thread(target=self._receive, name=name, daemon=True)
        self._receive_thread.start()

    def _format_record(self, record: logging.LogRecord) -> logging.LogRecord:
        record = super()._format_record(record)
        text = escape_control(str(record.msg))
        if record.exc_text:
            record.exc_text = escape_control(record.exc_text)[:MAX_RECORD_CHARS]
        if len(text) > MAX_RECORD_CHARS:
            text = text[:MAX_RECORD_CHARS] + f" ... ({len(text) - MAX_RECORD_CHARS} more characters)"
        record.msg = text
        return record

    def emit(self, record: logging.LogRecord) -> None:
        """A record of the process that owns the log goes straight to the file; a worker's goes through the queue."""
        if os.getpid() == self.owner:
            self.sub_handler.handle(self._format_record(record))
        else:
            super().emit(record)

    def _send(self, record: logging.LogRecord) -> None:
        try:
            self.queue.put_nowait(record)
        except queue.Full:
            self.dropped += 1

    def _receive(self) -> None:
        quiet = QUIET_SECONDS
        while True:
            try:
                record = self.queue.get(timeout=0.2)
            except queue.Empty:
                if self._is_closed:  # closing, and the word to stop never came: stop all the same
                    break
                continue
            except (EOFError, OSError):
                return
            if getattr(record, "arena_log_closing", False):  # sent once every worker exited: their records came first
                quiet = 0.0
                break
            self.sub_handler.handle(record)  # under its lock: the main process writes too
        while True:  # closing: write what has arrived, until nothing more comes for a moment
            try:
                record = self.queue.get(timeout=quiet)
            except (queue.Empty, EOFError, OSError):
                break
            self.sub_handler.handle(record)
        self.queue.cancel_join_thread()
        self.queue.close()

    def close(self) -> None:
        if not self._is_closed:
            self._is_closed = True
            with contextlib.suppress(queue.Full, OSError, ValueError):
                self.queue.put(_CLOSING, timeout=QUIET_SECONDS)  # wakes the thread at once
            self._receive_thread.join()  # returns at the word, or once QUIET_SECONDS pass with nothing new
            self.sub_handler.close()
            logging.Handler.close(self)


class RunLog:
    """The log file of one run: every ``arena`` record at INFO and up, and warnings from any logger.

    Start it before the workers fork (they inherit its queue) and :meth:`close` it
    after they have exited (it writes what has arrived, then closes at once).
    """

    def __init__(self, path: str) -> None:
        use_fork()
        self.path = path
        file_handler = logging.FileHandler(path, encoding="utf-8")
        file_handler.setFormatter(logging.Formatter(LINE_FORMAT))
        file_handler.addFilter(GameFilter())
        self.handler = BoundedQueueHandler("arena-log", file_handler)
        self.file_handler = file_handler
        self.arena_logger = logging.getLogger("arena")
        self.previous_level = self.arena_logger.level
        self.arena_logger.setLevel(logging.INFO)
        logging.getLogger().addHandler(self.handler)

    def write(self, text: str) -> None:
        """Append lines already formatted as :data:`LINE_FORMAT` formats a record (a worker's "finished" lines,
        made where its games were played: the main process then only writes them), under the file's lock."""
        handler = self.file_handler
        handler.acquire()
        try:
            if handler.stream is not None:
                handler.stream.write(text)
                handler.stream.flush()
        finally:
            handler.release()

    def close(self) -> None:
        logging.getLogger().removeHandler(self.handler)
        self.arena_logger.setLevel(self.previous_level)
        self.handler.close()


def flush_log_queue() -> None:
    """In a process forked by hand (no ``multiprocessing.Process``), before ``os._exit``: send its log records on."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, MultiProcessingHandler) and handler.queue is not None:
            with contextlib.suppress(OSError, ValueError):
                handler.queue.close()
                handler.queue.join_thread()


def abandon_log_queue() -> None:
    """In a worker whose main process is gone: exit without waiting to flush log records nobody reads."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, MultiProcessingHandler):
            handler.queue.cancel_join_thread()
