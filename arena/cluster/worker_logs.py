"""Carrying a worker's log lines back to the tournament log (``ROOT/NAME/arena.log``).

A Dask worker is not a child of the coordinator, so it cannot write to the
run's log queue the way a local worker process does. Instead, while a block of
games is played, the log records its thread emits (``arena`` at INFO and up,
warnings from any logger, as locally) are collected as plain dicts, each
stamped with its game and with the worker's address as its process name; they
travel back with the block's records and the coordinator hands them to its
loggers, so the log file reads the same as for a local run.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from typing import Any, Iterator

from arena.runs.logs import GameFilter

#: the parts of a log record that travel (all plain values)
CARRIED = ("name", "levelno", "levelname", "pathname", "filename", "module", "lineno", "funcName", "created",
           "msecs", "relativeCreated", "thread", "threadName", "process", "msg", "exc_text", "stack_info", "game")


class _Collector(logging.Handler):
    """Keeps, as plain dicts, the records one thread emits."""

    def __init__(self, worker: str) -> None:
        super().__init__(logging.INFO)
        self.worker = worker
        self.thread = threading.get_ident()
        self.records: list[dict[str, Any]] = []
        self.addFilter(GameFilter())

    def filter(self, record: logging.LogRecord) -> bool:
        return record.thread == self.thread and super().filter(record)

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        carried = {key: getattr(record, key, None) for key in CARRIED}
        carried["msg"] = record.getMessage()
        carried["processName"] = self.worker
        self.records.append(carried)


@contextlib.contextmanager
def collected_logs(worker: str) -> Iterator[list[dict[str, Any]]]:
    """Within the block, this thread's log records are collected into the list it gives."""
    arena_logger = logging.getLogger("arena")
    if arena_logger.getEffectiveLevel() > logging.INFO:
        arena_logger.setLevel(logging.INFO)
    collector = _Collector(worker)
    root = logging.getLogger()
    root.addHandler(collector)
    try:
        yield collector.records
    finally:
        root.removeHandler(collector)


def replay_logs(records: list[dict[str, Any]]) -> None:
    """Hand records collected on a worker to this process's loggers (and so to the tournament log)."""
    for carried in records:
        record = logging.makeLogRecord(carried)
        logging.getLogger(record.name).handle(record)
