"""Progress: a bar on a terminal, plain lines elsewhere; both show games done, rate, time left and the leader."""

from __future__ import annotations

import io

from arena.tournament.progress import BarProgress, LineProgress, Tally, make_progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_off_a_terminal():
    stream = io.StringIO()
    progress = make_progress("cup", Tally(40, 10, {"a": 3}, {"a": 10}), stream, every=0)
    assert isinstance(progress, LineProgress)
    progress.game_done(["a", "b"], [2, 1])
    progress.game_done(["a", "b"], [1, 2])
    progress.finish()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "cup: 10/40 games, 30 to play"
    assert lines[1].startswith("cup: 11/40 games, ") and "games/s" in lines[1] and "left" in lines[1]
    assert lines[2].endswith("leader: b (50% first places)")  # b: 1 of 2; a: 4 of 12
    assert lines[3].startswith("cup: 12/40 games, 2 played in ")


def test_lines_come_only_every_so_often():
    stream = io.StringIO()
    progress = make_progress("cup", Tally(40, 0, {}, {}), stream, every=3600)
    for _ in range(5):
        progress.game_done(["a", "b"], [1, 2])
    assert stream.getvalue().splitlines() == ["cup: 0/40 games, 40 to play"]


def test_a_bar_on_a_terminal():
    stream = Terminal()
    progress = make_progress("cup", Tally(40, 10, {}, {}), stream)
    assert isinstance(progress, BarProgress)
    progress.game_done(["a", "b"], [1, 2])
    progress.finish()
    shown = stream.getvalue()
    assert "cup (10 of 40 were stored before)" in shown
    assert "1/30" in shown and "games/s" in shown and "leader: a (100% first places)" in shown
