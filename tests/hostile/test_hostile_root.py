"""Nothing written on a bot's root itself: it is read-only, so no game leaves a note there for the next one.

A bot's root is a tmpfs holding only mount points (the runtime, its files,
its scratch on /tmp, /dev/shm and its home). A Python bot's games share their
template's root; under a runner that is not root that tmpfs belonged to the
runner's user, the bot's too, so a game could write ``/note`` and the next game
of the same template read it. The root's tmpfs is made read-only once built
(its superblock: no game, in a user namespace below its owner's, can make it
writable again).
"""

from __future__ import annotations

from conftest import KINDS, honest, play, reports, require
from attacks import ROOT_PLACES as PLACES
from test_hostile_unprivileged import folder, kernel_games  # noqa: F401  (``folder``: the fixture)
from arena.plugins import get_plugins
from arena.seating import SeatPool


def assert_no_note(seen: list[dict]) -> None:
    assert len(seen) == 3
    for game in seen:
        assert {path: game[path]["found"] for path in PLACES} == dict.fromkeys(PLACES, "FileNotFoundError")
        assert all(game[path]["wrote"] != "written" for path in PLACES), game


def test_a_python_bots_games_leave_no_note_on_their_root_for_the_next_game():
    require("namespaces", "filesystem")
    pool = SeatPool(get_plugins(), "process", __import__("conftest").LIMITS)
    seen = []
    try:
        for seed in (1, 2, 3):
            record, texts = play([KINDS["py"]("root_note"), honest()], seed=seed, pool=pool)
            assert record["faults"] == []
            seen.append(reports(texts[0], "root")[-1])
    finally:
        pool.close()
    assert_no_note(seen)


def test_as_nobody_a_python_bots_games_leave_no_note_on_their_root_for_the_next_game(folder):  # noqa: F811
    played = kernel_games(folder, [("attacker", "root_note", [])], "py", seeds=(1, 2, 3))
    off = [phrase for phrase in played["off"] if phrase.split(" ", 1)[0] in ("namespaces", "filesystem")]
    assert not off, off
    assert all(record["faults"] == [] for record, _ in played["games"])
    assert_no_note([reports(texts[0], "root")[-1] for _, texts in played["games"]])
