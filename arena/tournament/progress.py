"""How a run shows its progress: a bar on a terminal, plain periodic lines elsewhere (CI logs).

Both show games done of the total, the rate, the time left and the current
leader. The leader here is a cheap running figure, the bot with the best share
of first places so far; the leaderboard's TrueSkill ranking comes at the end.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

import click


class Tally:
    """Games done, the rate since the start, and first places per bot (for the current leader)."""

    def __init__(self, total: int, done: int, firsts: dict[str, int], seats: dict[str, int]) -> None:
        self.total = total
        self.done = done
        self.played = 0
        self.firsts = dict(firsts)
        self.seats = dict(seats)
        self.started = time.monotonic()

    def add(self, players: list[str], ranks: list[int]) -> None:
        self.done += 1
        self.played += 1
        for bot, rank in zip(players, ranks):
            self.seats[bot] = self.seats.get(bot, 0) + 1
            if rank == 1:
                self.firsts[bot] = self.firsts.get(bot, 0) + 1

    def rate(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.played / elapsed if elapsed > 0 else 0.0

    def leader(self) -> str:
        if not self.seats:
            return "leader: -"
        share = {bot: self.firsts.get(bot, 0) / seats for bot, seats in self.seats.items()}
        best = max(sorted(share), key=share.get)
        return f"leader: {best} ({100 * share[best]:.0f}% first places)"

    def left(self) -> str:
        rate = self.rate()
        if not rate:
            return "time left: -"
        return f"about {_duration((self.total - self.done) / rate)} left"


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class BarProgress:
    """click's progress bar over the games left to play, with the rate and current leader after it.

    Its length is the games left, not all of them, so that its time estimate is
    not thrown off by games stored in an earlier run.
    """

    def __init__(self, name: str, tally: Tally, stream: TextIO) -> None:
        self.tally = tally
        stored = f" ({tally.done} of {tally.total} were stored before)" if tally.done else ""
        self.bar = click.progressbar(
            length=tally.total - tally.done, label=f"{name}{stored}", show_eta=True, show_percent=False,
            show_pos=True, item_show_func=lambda _: f"{self.tally.rate():.1f} games/s  {self.tally.leader()}",
            file=stream,
        )
        self.bar.__enter__()

    def game_done(self, players: list[str], ranks: list[int]) -> None:
        self.tally.add(players, ranks)
        self.bar.update(1, True)

    def tick(self) -> None:
        self.bar.render_progress()

    def finish(self) -> None:
        self.bar.__exit__(None, None, None)


class LineProgress:
    """One plain line every ``every`` seconds, and one at the end."""

    def __init__(self, name: str, tally: Tally, stream: TextIO, every: float) -> None:
        self.name = name
        self.tally = tally
        self.stream = stream
        self.every = every
        self.last = time.monotonic()
        self.line(f"{tally.total - tally.done} to play")

    def line(self, tail: str) -> None:
        tally = self.tally
        print(f"{self.name}: {tally.done}/{tally.total} games, {tail}", file=self.stream, flush=True)

    def status(self) -> str:
        return f"{self.tally.rate():.1f} games/s, {self.tally.left()}, {self.tally.leader()}"

    def game_done(self, players: list[str], ranks: list[int]) -> None:
        self.tally.add(players, ranks)
        self.tick()

    def tick(self) -> None:
        if time.monotonic() - self.last >= self.every:
            self.last = time.monotonic()
            self.line(self.status())

    def finish(self) -> None:
        elapsed = time.monotonic() - self.tally.started
        self.line(f"{self.tally.played} played in {_duration(elapsed)} ({self.tally.rate():.1f} games/s), "
                  f"{self.tally.leader()}")


def make_progress(name: str, tally: Tally, stream: TextIO | None = None, every: float = 10.0) -> Any:
    """A bar when ``stream`` (default stderr) is a terminal, periodic lines otherwise."""
    stream = stream or sys.stderr
    if stream.isatty():
        return BarProgress(name, tally, stream)
    return LineProgress(name, tally, stream, every)
