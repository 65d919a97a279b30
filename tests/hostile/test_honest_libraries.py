"""An honest bot whose libraries read the machine (psutil, the load average, the CPU count) plays in the jail.

A bot's ``/proc`` is a full one (arena/sandbox/jail.py): ``import psutil``
reads ``/proc/stat``, ``os.getloadavg()`` ``/proc/loadavg``. With a ``/proc``
of processes only (``subset=pid``) such a bot could not even be loaded
("loading the bot raised FileNotFoundError"): dask's ``distributed``, many ML
libraries and Node's ``os.cpus()`` read the same files.
"""

from __future__ import annotations

import sys

import pytest

from conftest import BOTS, honest, play, reports, require
from arena.entrants import parse_spec
from arena.sandbox.probe import protections

pytest.importorskip("psutil", reason="psutil is not installed (the dev extra brings it, with distributed)")

SEATS = {"py": "py:honest_libraries:Bot", "cmd": f"cmd:{sys.executable} {BOTS / 'honest_libraries.py'}"}


@pytest.mark.parametrize("kind", ["py", "cmd"])
def test_a_bot_importing_psutil_and_reading_the_load_plays_a_whole_game_without_fault(kind):
    # the same moves as random in its seat, no fault, and what it read is the machine's: a load, CPUs, memory
    require("namespaces", "filesystem")
    record, texts = play([parse_spec(f"reader={SEATS[kind]}"), honest()])
    control, _ = play([honest("reader"), honest()])
    assert record["faults"] == [] and record["moves"] == control["moves"]
    seen = reports(texts[0], "machine")
    assert len(seen) > 2  # its start and every decision
    for each in seen:
        assert len(each["load"]) == 3 and all(value >= 0 for value in each["load"])
        assert each["cpus"] >= 1 and each["psutil_cpus"] >= 1 and each["memory"] > 0


def test_arena_sandbox_says_a_bots_proc_shows_the_machines_counters():
    rows = {name: meaning for name, _, meaning in protections().rows()}
    assert "its /proc is a full one of its PID namespace" in rows["private filesystem"]
    assert "loadavg, stat, meminfo" in rows["private filesystem"]
