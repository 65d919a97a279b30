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


def test_a_workers_chunk_counted_where_it_was_played_shows_what_its_games_show():
    """Tallied by the worker (seats and first places per bot), a chunk moves the counts and the leader as its
    games one by one would."""
    games = [(["a", "b", "c"], [1, 2, 3]), (["a", "b", "c"], [2, 1, 3]), (["c", "a", "b"], [1, 1, 3])]
    one_by_one, tallied = Tally(10, 0, {}, {}), Tally(10, 0, {}, {})
    for players, ranks in games:
        one_by_one.add(players, ranks)
    tallied.add_tallied(3, {"a": (3, 2), "b": (3, 1), "c": (3, 1)})
    assert (tallied.played, tallied.seats, tallied.firsts) == (one_by_one.played, one_by_one.seats,
                                                               one_by_one.firsts)
    assert tallied.leader() == one_by_one.leader() == "leader: a (67% first places)"


def test_a_tournament_run_gets_counts_not_records_from_its_workers(tmp_path, monkeypatch):
    """No observer of a tournament needs each game's record in the main process: its workers send each chunk
    as counts, a tally, rows and log lines; the progress, the store and the log say what the games did."""
    import json

    from arena.plugins import get_plugins
    from arena.runs.pools.local import LocalPool
    from arena.runs.store import open_store
    from arena.tournament.config import parse_tournament
    from arena.tournament.runner import run_tournament
    from tournament_files import tournament_data

    brief, real = [], LocalPool._brief

    def counted(self, message, held, chunks):
        brief.append(len(message.orders))
        return real(self, message, held, chunks)

    monkeypatch.setattr(LocalPool, "_brief", counted)
    tournament = parse_tournament(tournament_data(["random", "trader", "r2=random"], "silk-road:3", deals=4),
                                  "cup.toml", get_plugins())
    stream = io.StringIO()
    outcome = run_tournament(tournament, get_plugins(), root=str(tmp_path), jobs=2, sandbox="none",
                             progress_stream=stream)
    assert sum(brief) == outcome.played == outcome.total == 12
    store = open_store(outcome.folder)
    try:
        records = [json.loads(text) for text in store.records()]
    finally:
        store.close()
    firsts = {bot: sum(record["result"]["ranks"][record["players"].index(bot)] == 1 for record in records)
              for bot in ("random", "trader", "r2")}
    best = max(sorted(firsts), key=firsts.__getitem__)
    last = stream.getvalue().splitlines()[-1]
    assert last.startswith("cup: 12/12 games, 12 played in ") and last.endswith(
        f"leader: {best} ({100 * firsts[best] / 12:.0f}% first places)"), last
    log_text = (tmp_path / "cup" / "arena.log").read_text()
    assert sum(" INFO cup/silk-road/" in line and "finished in" in line for line in log_text.splitlines()) == 12
