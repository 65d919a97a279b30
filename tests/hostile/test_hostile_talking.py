"""Bots at one table cannot talk: no shared /tmp, /dev/shm, UNIX socket (path or abstract) or SysV shm."""

from __future__ import annotations

import pytest

from conftest import KINDS, honest, play, reports, require


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_two_bots_at_one_table_cannot_reach_each_other(kind):
    require("namespaces", "filesystem", "ipc")
    make = KINDS[kind]
    record, texts = play([make("leave", name="leaver"), make("find", name="finder"), honest()])
    control, _ = play([make("none", name="leaver"), make("none", name="finder"), honest()])
    left = reports(texts[0], "leave")[-1]
    # the attack was really made; a Python bot's game makes no socket and no System V IPC object at all: its
    # games share its template's network and IPC namespaces, kept empty
    assert left["/tmp/hostile-mark"] == "written" and left["sysv"] == ("written" if kind == "cmd" else "errno 1")
    listening = "listening" if kind == "cmd" else "PermissionError"
    assert left["'\\x00hostile-abstract'"] == listening and left["'/tmp/hostile.sock'"] == listening
    found = reports(texts[1], "find")[-1]
    assert found["/tmp/hostile-mark"] == found["/dev/shm/hostile-mark"] == "FileNotFoundError"
    assert found["'/tmp/hostile.sock'"] in (("FileNotFoundError", "ConnectionRefusedError") if kind == "cmd" else
                                            ("PermissionError",))
    assert found["'\\x00hostile-abstract'"] == ("ConnectionRefusedError" if kind == "cmd" else "PermissionError")
    assert found["sysv"] == "absent"
    assert record["faults"] == [] and record["moves"] == control["moves"]
