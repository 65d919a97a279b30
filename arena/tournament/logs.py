"""One log file per tournament (``ROOT/NAME/arena.log``), written by every worker process.

The main process owns the file; workers send their log records to it through
multiprocessing-logging's queue handler, so lines never interleave mid-line.
Each line names its game: :func:`game_context` marks the game a process is
playing and a filter stamps it on every record (``-`` outside a game).

Measured caveats of multiprocessing-logging, and what we do about them:
- it works only with the ``fork`` start method, so :func:`start_log` sets it
  explicitly (Python 3.14 changes the default);
- a process killed while it holds the queue's lock breaks logging for all, so
  worker processes are stopped, never killed, and bot processes never log
  through it (the sandbox reads their stderr over their pipe and the worker logs it).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import multiprocessing
from typing import Iterator

from multiprocessing_logging import MultiProcessingHandler

LINE_FORMAT = "%(asctime)s %(processName)s %(levelname)s %(game)s %(name)s: %(message)s"
_current_game: contextvars.ContextVar[str] = contextvars.ContextVar("arena_game", default="-")


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


class TournamentLog:
    """The log file of one run: every ``arena`` record at INFO and up, and warnings from any logger.

    Start it before the workers fork (they inherit its queue) and :meth:`close` it
    after they have exited (it drains the queue into the file).
    """

    def __init__(self, path: str) -> None:
        use_fork()
        self.path = path
        file_handler = logging.FileHandler(path, encoding="utf-8")
        file_handler.setFormatter(logging.Formatter(LINE_FORMAT))
        file_handler.addFilter(GameFilter())
        self.handler = MultiProcessingHandler("arena-log", sub_handler=file_handler)
        self.arena_logger = logging.getLogger("arena")
        self.previous_level = self.arena_logger.level
        self.arena_logger.setLevel(logging.INFO)
        logging.getLogger().addHandler(self.handler)

    def close(self) -> None:
        logging.getLogger().removeHandler(self.handler)
        self.arena_logger.setLevel(self.previous_level)
        self.handler.close()


def abandon_log_queue() -> None:
    """In a worker whose main process is gone: exit without waiting to flush log records nobody reads."""
    for handler in logging.getLogger().handlers:
        if isinstance(handler, MultiProcessingHandler):
            handler.queue.cancel_join_thread()
