"""The run's log: records from workers reach arena.log, and closing never hangs on a worker killed mid-record."""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import time

from arena.runs.logs import MAX_RECORD_CHARS, RunLog, escape_control


def log_then_die(lines: int) -> None:
    logger = logging.getLogger("arena.test")
    for number in range(lines):
        logger.warning("line %d %s", number, "x" * 200)
    os.kill(os.getpid(), signal.SIGKILL)  # killed while its queue's feeder may still be writing


def test_closing_after_a_worker_was_killed_while_logging_is_prompt_and_keeps_what_arrived(tmp_path):
    log = RunLog(str(tmp_path / "arena.log"))
    worker = multiprocessing.get_context("fork").Process(target=log_then_die, args=(5000,))
    worker.start()
    worker.join()
    assert worker.exitcode == -signal.SIGKILL
    began = time.monotonic()
    log.close()
    closing = time.monotonic() - began
    assert closing < 2.0  # multiprocessing-logging's own close waits 5 s for records that never come
    lines = (tmp_path / "arena.log").read_text().splitlines()
    assert lines, "nothing that reached the queue was written"
    numbers = [int(line.split(" line ")[1].split()[0]) for line in lines]
    assert numbers == list(range(len(numbers)))  # whole records, in order, none torn


def test_records_are_cut_and_escaped(tmp_path):
    log = RunLog(str(tmp_path / "arena.log"))
    logging.getLogger("arena.test").warning("\x1b[2J%s", "y" * (MAX_RECORD_CHARS + 500))
    log.close()
    text = (tmp_path / "arena.log").read_text()
    assert "\x1b" not in text and "\\x1b[2J" in text
    assert "... (" in text and len(text) < MAX_RECORD_CHARS + 300
    assert escape_control("tab\tnew\nline\x07") == "tab\tnew\nline\\x07"
