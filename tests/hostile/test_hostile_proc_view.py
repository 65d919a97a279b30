"""``[sandbox] proc = "processes"``: a bot's ``/proc`` shows its processes only, none of the machine's counters.

By default a bot's ``/proc`` is a full one, because honest libraries read the
machine there (tests/hostile/test_honest_libraries.py), and the counters one
bot moves are read by another (the strict expected failure
``test_hostile_shared_kernel.py::test_a_bot_reads_no_counter_of_the_machine_that_another_bot_moves``).
A competition that prefers it asks for a ``/proc`` of processes only: the
same sender and probe then find no counter there (``sysinfo(2)`` still counts
the machine's threads: its own strict expected failure), a Python bot's games
mount the same view as their template (a template that mounts them a full
one gets no game started), and a bot that imports psutil cannot load.
"""

from __future__ import annotations

import dataclasses
import sys

import pytest

from conftest import BOTS, KINDS, LIMITS, honest, play, reports, require
from shared_attacks import GLOBAL_FILES
from test_hostile_template import reference
from test_hostile_unprivileged import checked_kernel_games, folder  # noqa: F401  (``folder``: the fixture)
from arena.entrants import parse_spec
from arena.plugins import get_plugins
from arena.seating import SeatPool

PROCESSES = dataclasses.replace(LIMITS, proc="processes")


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_with_proc_processes_a_bot_reads_no_counter_of_the_machine_that_another_bot_moves(kind):
    # the sender holds 30 more threads and 16 MiB at every other decision; the probe finds none of the files
    # that count them (with a full /proc it reads them all: test_hostile_shared_kernel.py's strict xfail)
    require("namespaces", "filesystem")
    make = KINDS[kind]
    record, texts = play([make("global_send", name="sender"), make("global_probe", name="probe"), honest()],
                         limits=PROCESSES)
    control, _ = play([make("none", name="sender"), make("none", name="probe"), honest()], limits=PROCESSES)
    assert record["faults"] == [] and record["moves"] == control["moves"]
    assert reports(texts[0], "sent")[:2] == [1, 0]
    seen = reports(texts[1], "machine")
    assert len(seen) > 2
    for each in seen:
        assert {path: each[path] for path in GLOBAL_FILES if each[path].startswith("read")} == {}
        assert each["/proc/loadavg"] == "FileNotFoundError"


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_as_nobody_with_proc_processes_a_bot_reads_no_counter_of_the_machine_that_another_bot_moves(folder, kind):  # noqa: F811
    # an unprivileged runner's bots mount their /proc in user namespaces of their own: the same narrow view
    texts = checked_kernel_games(folder, [("sender", "global_send", []), ("probe", "global_probe", [])], kind,
                                 ("namespaces", "filesystem"), proc="processes")
    seen = reports(texts[1], "machine")
    assert len(seen) > 2
    for each in seen:
        assert {path: each[path] for path in GLOBAL_FILES if each[path].startswith("read")} == {}
        assert each["/proc/loadavg"] == "FileNotFoundError"


def test_with_proc_processes_a_template_that_mounts_its_games_a_full_proc_gets_no_game_started():
    """The template's code (the bot's) makes its games mount a full /proc: the runner finds the machine's
    counters in each game's /proc before its start and stops it there (a crash at start)."""
    require("namespaces", "filesystem")
    pool = SeatPool(get_plugins(), "process", PROCESSES)
    records = []
    try:
        for seed in range(1, 3):
            attacker = parse_spec("attacker=py:hostile_template:Bot", options={"patch": ["proc"]})
            records.append((seed, play([attacker, honest()], limits=PROCESSES, seed=seed, pool=pool)[0]))
    finally:
        pool.close()
    for seed, record in records:
        assert [(fault["seat"], fault["kind"], fault["decision"]) for fault in record["faults"]] == [
            (0, "crash", "start")]
        assert "a /proc showing the machine's counters" in record["faults"][0]["detail"], record["faults"]
        assert record["moves"] == reference(record, 0, seed)["moves"]


@pytest.mark.parametrize("kind", ["py", "cmd"])
def test_with_proc_processes_a_bot_importing_psutil_cannot_start_and_says_why(kind):
    # the price of the opt-in: psutil reads the machine's files (/proc/stat, /proc/meminfo), which are not there
    # (with a full /proc the same bot plays: test_honest_libraries.py)
    pytest.importorskip("psutil", reason="psutil is not installed (the dev extra brings it, with distributed)")
    require("namespaces", "filesystem")
    seat = {"py": "py:honest_libraries:Bot", "cmd": f"cmd:{sys.executable} {BOTS / 'honest_libraries.py'}"}[kind]
    record, texts = play([parse_spec(f"reader={seat}"), honest()], limits=PROCESSES)
    assert [(fault["seat"], fault["kind"], fault["decision"]) for fault in record["faults"]][:1] == [
        (0, "crash", "start")], record["faults"]
    said = record["faults"][0]["detail"] + texts[0]
    assert "FileNotFoundError" in said and "No such file or directory: '/proc/" in said, said[-2000:]
