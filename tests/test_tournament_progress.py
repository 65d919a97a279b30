"""Progress: one line fitted to a real terminal's width, short lines elsewhere; counts, rate, honest time left."""

from __future__ import annotations

import fcntl
import io
import os
import pty
import struct
import termios

import pytest

from arena.runs import progress as progress_module
from arena.runs.progress import BarProgress, LineProgress, Tally, fit_line, make_progress


@pytest.fixture
def terminal():
    """A real pseudo-terminal of 80 columns: (stream arena writes to, function reading what it wrote)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    attributes = termios.tcgetattr(slave)
    attributes[1] &= ~termios.OPOST  # the bytes as written, no \n -> \r\n translation
    termios.tcsetattr(slave, termios.TCSANOW, attributes)
    stream = open(slave, "w", encoding="utf-8", closefd=True)
    os.set_blocking(master, False)
    chunks = []

    def read() -> str:
        while True:
            try:
                chunk = os.read(master, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode()

    yield stream, read
    stream.close()
    os.close(master)


def fake_clock(monkeypatch, start=1000.0):
    now = [start]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: now[0])
    return now


def test_one_line_on_an_80_column_terminal(terminal, monkeypatch):
    stream, read = terminal
    now = fake_clock(monkeypatch)
    tally = Tally(7500, 1200, {"appraiser": 10}, {"appraiser": 20}, reused=300)
    progress = make_progress("a-tournament-with-a-long-name", tally, stream)
    assert isinstance(progress, BarProgress)
    for number in range(600):
        now[0] += 0.05
        progress.game_done(["a-bot-with-a-rather-long-name", "random", "appraiser"], [1 + number % 3, 2, 3])
        progress.tick()
    progress.finish()
    shown = read()
    assert shown.endswith("\n") and shown.count("\n") == 1  # updated in place: one line, ended once at the end
    drawings = [part for part in shown.rstrip("\n").split("\r") if part]
    assert len(drawings) > 100
    assert max(len(part) for part in drawings) <= 79  # never the last column: no wrap on any terminal
    last = drawings[-1]
    assert "1200 stored" in last and "300 reused" in last and "600 played" in last and "5400 to play" in last
    assert "games/s" in last and "left" in last


def test_time_left_says_estimating_until_it_knows(monkeypatch):
    now = fake_clock(monkeypatch)
    tally = Tally(100, 0, {}, {})
    assert tally.left() == "estimating"
    now[0] += 10
    tally.add(["a"], [1])
    assert tally.left() == "estimating"  # one game says little
    for _ in range(9):
        tally.add(["a"], [1])
    assert tally.left() == "1m30s left"  # 10 games in 10 s (start-up included): 90 more take 90 s


def test_the_line_fits_any_width(monkeypatch):
    fake_clock(monkeypatch)
    tally = Tally(7500, 1200, {}, {}, reused=300)
    for width in (20, 40, 60, 80, 100, 200):
        line = fit_line("demo", tally, width)
        assert len(line) < width, (width, line)
    assert "[" not in fit_line("demo", tally, 80)  # all four counts leave no room for a bar ...
    assert "[" in fit_line("demo", Tally(7500, 0, {}, {}), 80)  # ... played and to play do
    assert "leader" in fit_line("demo", tally, 200)


def test_plain_lines_off_a_terminal(monkeypatch):
    now = fake_clock(monkeypatch)
    stream = io.StringIO()
    progress = make_progress("cup", Tally(40, 10, {"a": 3}, {"a": 10}), stream, every=0)
    assert isinstance(progress, LineProgress)
    now[0] += 1
    progress.game_done(["a", "b"], [2, 1])
    now[0] += 1
    progress.game_done(["a", "b"], [1, 2])
    progress.finish()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "cup: 10/40 games, 30 to play"
    assert lines[1] == "cup: 11/40 games, 1.0 games/s, estimating"
    assert lines[3] == "cup: 12/40 games, 2 played in 2s (1.0 games/s), leader: b (50% first places)"


def test_a_line_every_tenth_or_every_30_seconds(monkeypatch):
    now = fake_clock(monkeypatch)
    stream = io.StringIO()
    progress = make_progress("cup", Tally(100, 0, {}, {}), stream)
    for _ in range(25):
        now[0] += 0.1
        progress.game_done(["a", "b"], [1, 2])
    assert len(stream.getvalue().splitlines()) == 3  # the first line, then 10% and 20%
    now[0] += 31
    progress.tick()
    lines = stream.getvalue().splitlines()
    assert len(lines) == 4 and lines[-1].startswith("cup: 25/100 games, ")
    for _ in range(75):
        progress.game_done(["a", "b"], [1, 2])
    assert len(stream.getvalue().splitlines()) == 4 + 7  # 30% ... 90%; the end is finish()'s line
    progress.finish()
    assert stream.getvalue().splitlines()[-1].startswith("cup: 100/100 games, 100 played in ")
