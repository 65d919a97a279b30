"""No mark left in a shared network namespace's settings: ``/proc/sys/net`` is read-only to a bot.

A Python bot's games share their template's network namespace (see
test_hostile_network.py). A namespace's sockets are refused by the filter,
but its settings under ``/proc/sys/net`` are a second channel between the
games of one template: a value written by one game would be read by the
next. The bot is no owner of that namespace in the kernel's eyes, so every
write is refused, at import and in each game, and each game reads what the
first read.
"""

from __future__ import annotations

import pytest

from conftest import LIMITS, honest, play, reports, require
from test_hostile_unprivileged import folder, kernel_games  # noqa: F401  (``folder``: the fixture)
from arena.entrants import parse_spec
from arena.plugins import get_plugins
from arena.seating import SeatPool


def test_a_game_can_change_no_setting_of_its_network_namespace_for_the_next():
    require("namespaces")
    pool = SeatPool(get_plugins(), "process", LIMITS)
    records, seen = [], []
    try:
        for seed in (1, 2, 3):
            record, texts = play([parse_spec("marker=py:hostile_sysctl:Marker"), honest()], seed=seed, pool=pool)
            records.append(record)
            seen.append(reports(texts[0], "sysctl")[-1])
    finally:
        pool.close()
    control, _ = play([parse_spec("control=random"), honest()], seed=1)
    assert all(record["faults"] == [] for record in records)
    assert records[0]["moves"] == control["moves"]
    assert_no_mark(seen, ("import", "game"))


def assert_no_mark(seen: list[dict], phases: tuple[str, ...]) -> None:
    """No write took, and every game read what the first read (a game reads ids through its own user namespace,
    so the phases may differ)."""
    assert len(seen) == 3
    for phase in phases:
        first_read = {path: value[0] for path, value in seen[0][phase].items() if path.startswith("/proc")}
        assert len(first_read) == 3
        for game in seen:
            marks = {path: value for path, value in game[phase].items() if path.startswith("/proc")}
            assert all(written != "written" for _, written in marks.values()), (phase, marks)
            assert {path: read for path, (read, _) in marks.items()} == first_read, phase


@pytest.mark.parametrize("kind", ["py", "cmd"])
def test_as_nobody_a_game_can_change_no_setting_of_its_network_namespace_for_the_next(folder, kind):  # noqa: F811
    played = kernel_games(folder, [("attacker", "net_settings", [])], kind, seeds=(1, 2, 3))
    off = [phrase for phrase in played["off"] if phrase.split(" ", 1)[0] == "namespaces"]
    assert not off, off
    assert all(record["faults"] == [] for record, _ in played["games"])
    assert_no_mark([reports(texts[0], "sysctl")[-1] for _, texts in played["games"]], ("game",))
