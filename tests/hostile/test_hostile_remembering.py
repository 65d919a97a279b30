"""A bot remembers nothing from one game to the next: not in its memory, /tmp, /dev/shm, sockets or SysV shm."""

from __future__ import annotations

import dataclasses

import pytest

from conftest import KINDS, LIMITS, honest, play, reports, require
from arena.plugins import get_plugins
from arena.seating import SeatPool


def two_games(entrant, limits):
    pool = SeatPool(get_plugins(), "process", limits)
    try:
        first, _ = play([entrant, honest()], limits, seed=1, pool=pool)
        second, texts = play([entrant, honest()], limits, seed=2, pool=pool)
    finally:
        pool.close()
    return first, second, reports(texts[0], "find")


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_nothing_survives_from_one_game_to_the_next(kind):
    require("namespaces", "filesystem", "ipc")
    first, second, found = two_games(KINDS[kind]("remember"), LIMITS)
    assert len(found) >= 2
    assert found[-1] == found[0]  # the second game finds what the first found: nothing
    assert found[-1]["/tmp/hostile-mark"] == found[-1]["/dev/shm/hostile-mark"] == "FileNotFoundError"
    assert found[-1]["sysv"] == "absent" and found[-1]["memory"] == "fresh"
    # a Python bot's game makes no socket at all (its games share its template's network namespace, kept empty)
    assert found[-1]["'\\x00hostile-abstract'"] == ("ConnectionRefusedError" if kind == "cmd" else "PermissionError")
    assert first["faults"] == second["faults"] == []


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_with_reuse_a_bot_does_remember_so_the_test_above_can_fail(kind):
    _, _, found = two_games(KINDS[kind]("remember"), dataclasses.replace(LIMITS, reuse=True))
    assert found[-1]["memory"] == "remembered" and found[-1]["/tmp/hostile-mark"] == "read"
