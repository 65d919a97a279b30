"""Limits a bot cannot dodge: memory through memfd, /dev/shm, /tmp, SysV shm or shared mappings; the disk
through its working folder; CPU through children; a raised RLIMIT_CPU."""

from __future__ import annotations

import dataclasses
import os
import re
import tempfile

import pytest

from conftest import KINDS, LIMITS, honest, play, reports, require

pytestmark = pytest.mark.slow  # bots that burn their memory and CPU limits: ~15 s


@pytest.mark.parametrize("kind", ["cmd", "py"])
@pytest.mark.parametrize("how", ["memfd", "shm", "tmp", "sysv", "shared", "heap"])
def test_a_bot_cannot_hold_more_memory_than_memory_mb_by_any_route(kind, how):
    require("memory", "ipc", "filesystem")
    limit = LIMITS.memory_mb
    record, texts = play([KINDS[kind]("memory", how, str(4 * limit)), honest()])
    held = max(reports(texts[0], "held_mb") or [0])
    refused = reports(texts[0], "refused")
    crashed = [fault for fault in record["faults"] if fault["seat"] == 0 and fault["kind"] == "crash"]
    assert held <= limit, f"held {held} MiB through {how} with memory_mb = {limit}"
    assert refused or crashed, "neither refused nor stopped"
    control, _ = play([KINDS[kind]("exit_at_start" if crashed else "none"), honest()])
    assert [f for f in record["faults"] if f["seat"] != 0] == []
    assert [m for m in record["moves"] if m["seat"] == 1] == [m for m in control["moves"] if m["seat"] == 1]


def working_folders() -> set[str]:
    """The bots' working folders on the host (a bot with a private root has none)."""
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith("arena-bot-")}


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_bot_cannot_fill_the_disk_through_its_working_folder(kind):
    require("memory", "filesystem")
    limit = LIMITS.memory_mb
    before = working_folders()
    record, texts = play([KINDS[kind]("fill_disk", str(8 * limit)), honest()])
    written = max(reports(texts[0], "written_mb") or [0])
    refused = reports(texts[0], "refused")
    crashed = [fault for fault in record["faults"] if fault["seat"] == 0 and fault["kind"] == "crash"]
    assert reports(texts[0], "cwd") == ["/home/bot"]  # its private home, in a scratch tmpfs of memory_mb
    assert written <= limit, f"wrote {written} MiB with memory_mb = {limit}"
    assert refused or crashed, "neither refused nor stopped"
    assert working_folders() - before == set(), "a working folder was left on the host"
    control, _ = play([KINDS[kind]("exit_at_start" if crashed else "none"), honest()])
    assert [f for f in record["faults"] if f["seat"] != 0] == []
    assert [m for m in record["moves"] if m["seat"] == 1] == [m for m in control["moves"] if m["seat"] == 1]


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_cpu_burnt_by_a_bots_children_is_charged_to_the_bot(kind):
    require("cpu")
    limits = dataclasses.replace(LIMITS, move_ms=150, bank_ms=0)
    record, _ = play([KINDS[kind]("cpu_children", "400"), honest()], limits)
    faults = [fault for fault in record["faults"] if fault["seat"] == 0]
    assert faults and faults[0]["kind"] == "timeout", record["faults"]
    cpu_ms = int(re.search(r"(\d+) ms of CPU time", faults[0]["detail"]).group(1))
    # the children's time (the bot's own process only waited: a few ms at most); under load the wall cap may
    # come first, but the CPU time it reports is still theirs
    assert cpu_ms >= 30, faults[0]["detail"]
    assert [f for f in record["faults"] if f["seat"] != 0] == []


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_bot_cannot_lift_its_cpu_limit(kind):
    record, texts = play([KINDS[kind]("rlimit"), honest()])
    seen = reports(texts[0], "rlimit")[-1]
    assert seen["hard"] != "unlimited" and seen["unlimited"] in ("ValueError", "PermissionError", "OSError")
    control, _ = play([KINDS[kind]("none"), honest()])
    assert record["faults"] == [] and record["moves"] == control["moves"]


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_between_its_decisions_a_bots_whole_process_tree_is_stopped(kind):
    require("cpu")
    slow = KINDS["cmd"]("slow", name="slow")  # takes 50 ms of wall time per decision: time a thief could use
    record, texts = play([KINDS[kind]("background"), slow])
    seen = reports(texts[0], "child_cpu")
    assert len(seen) > 10
    walls = reports(texts[0], "wall")
    child_cpu, wall = seen[-1] - seen[0], walls[-1] - walls[0]
    assert wall > 1 and child_cpu < 0.25 * wall, f"the child burnt {child_cpu:.2f} s of CPU in {wall:.2f} s"
    assert [f for f in record["faults"] if f["seat"] == 1] == []
