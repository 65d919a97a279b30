"""How a run shows its progress: one line updated in place on a terminal, short periodic lines elsewhere.

Both say how many games were stored before this run, reused (taken over from
earlier results still valid), played now and still to play, the rate and the
time left. The time left is honest from the start: it is the games still to
play over the rate measured since the run began (start-up included, so it
errs long, never short), and the display says "estimating" until a few games
and a few seconds give a rate worth the name.

On a terminal the line is fitted to the terminal's width every time it is
drawn (less important parts are dropped first, the bar shrinks), so it never
wraps: at 80 columns it stays one line. Elsewhere (a CI log, a pipe) a short
line comes each time another tenth of the games is done, or after ``every``
seconds (default 30) without one, and one at the end.

The same display serves every command that works through many items:
``arena run``, ``arena compare`` and ``arena report`` (``unit="pages"``).
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

#: no time left is shown before this many items were done in this run ...
ESTIMATE_AFTER_ITEMS = 5
#: ... and this many seconds went by
ESTIMATE_AFTER_SECONDS = 2.0
#: a terminal line is redrawn at most this often (seconds)
REDRAW_EVERY = 0.1


class Tally:
    """Counts of one run: stored before it, reused, played in it, the total; first places per bot.

    :param total: every item of the run (games scheduled).
    :param done: items stored before this run began.
    :param firsts: bot -> first places among the stored games (for the current leader).
    :param seats: bot -> seats among the stored games.
    :param reused: items taken over from earlier results when the run began.
    :param unit: what is counted, in the plural ("games", "pages").
    """

    def __init__(self, total: int, done: int, firsts: dict[str, int], seats: dict[str, int], *,
                 reused: int = 0, unit: str = "games") -> None:
        self.total = total
        self.stored = done
        self.reused = reused
        self.played = 0
        self.firsts = dict(firsts)
        self.seats = dict(seats)
        self.unit = unit
        self.started = time.monotonic()

    @property
    def done(self) -> int:
        """Items in hand: stored before, reused and played now."""
        return self.stored + self.reused + self.played

    @property
    def to_play(self) -> int:
        return max(0, self.total - self.done)

    def count(self, players: list[str], ranks: list[int]) -> None:
        for bot, rank in zip(players, ranks):
            self.seats[bot] = self.seats.get(bot, 0) + 1
            if rank == 1:
                self.firsts[bot] = self.firsts.get(bot, 0) + 1

    def add(self, players: list[str], ranks: list[int]) -> None:
        """One item played in this run."""
        self.played += 1
        self.count(players, ranks)

    def add_many(self, games: list[tuple[list[str], list[int]]]) -> None:
        """Items played in this run, each as its seats' bots and ranks (a chunk of a worker's games)."""
        self.played += len(games)
        seats, firsts = self.seats, self.firsts
        for players, ranks in games:
            for bot, rank in zip(players, ranks):
                seats[bot] = seats.get(bot, 0) + 1
                if rank == 1:
                    firsts[bot] = firsts.get(bot, 0) + 1

    def add_tallied(self, games: int, tally: dict[str, tuple[int, int]]) -> None:
        """Items played in this run, given as their count and, per bot, the seats it held and its first places."""
        self.played += games
        seats, firsts = self.seats, self.firsts
        for bot, (held, first) in tally.items():
            seats[bot] = seats.get(bot, 0) + held
            if first:
                firsts[bot] = firsts.get(bot, 0) + first

    def add_reused(self, players: list[str], ranks: list[int]) -> None:
        """One item taken over from earlier results instead of being played."""
        self.reused += 1
        self.count(players, ranks)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def rate(self) -> float:
        """Items played per second since the run began."""
        elapsed = self.elapsed()
        return self.played / elapsed if elapsed > 0 else 0.0

    def estimate(self) -> float | None:
        """Seconds left at the rate so far, or None while that rate is not known yet."""
        if self.to_play == 0:
            return 0.0
        if self.played < ESTIMATE_AFTER_ITEMS or self.elapsed() < ESTIMATE_AFTER_SECONDS:
            return None
        return self.to_play / self.rate()

    def left(self) -> str:
        seconds = self.estimate()
        return "estimating" if seconds is None else f"{duration(seconds)} left"

    def leader(self) -> str:
        if not self.seats:
            return "leader: -"
        share = {bot: self.firsts.get(bot, 0) / seats for bot, seats in self.seats.items()}
        best = max(sorted(share), key=share.__getitem__)
        return f"leader: {best} ({100 * share[best]:.0f}% first places)"

    def counts(self) -> list[str]:
        """The non-zero counts among stored, reused and played, then what is left to play."""
        parts = [f"{self.stored} stored"] if self.stored else []
        if self.reused:
            parts.append(f"{self.reused} reused")
        if self.unit == "games":
            parts.append(f"{self.played} played")
            parts.append(f"{self.to_play} to play")
        else:
            parts.append(f"{self.played} written")
            parts.append(f"{self.to_play} to go")
        return parts


def duration(seconds: float) -> str:
    """``42s``, ``3m05s``, ``2h07m``."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def terminal_width(stream: TextIO) -> int:
    """The width of the terminal ``stream`` writes to (``COLUMNS`` if set, 80 when unknown)."""
    try:
        width = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        width = 0
    if not width:
        try:
            width = int(os.environ.get("COLUMNS", ""))
        except ValueError:
            width = 0
    return width or 80


def fit_line(name: str, tally: Tally, width: int) -> str:
    """The progress line for ``width`` columns: never longer than ``width - 1`` (no wrap, ever).

    Parts go in order of importance: the counts and the time left, the rate,
    the name, the bar, the leader; the least important are left out until it
    fits, and as a last resort the line is cut.
    """
    room = max(1, width - 1)
    total = tally.total or 1
    percent = f"{100 * tally.done // total}%"
    counts = ", ".join(tally.counts())
    left = tally.left()
    rate = f"{tally.rate():.1f} {tally.unit}/s"
    leader = [tally.leader()] if tally.unit == "games" else []
    choices = [  # (before the bar, bar?, after it)
        ([name, percent], True, [counts, rate, left, *leader]),
        ([name, percent], True, [counts, rate, left]),
        ([name, percent], False, [counts, rate, left]),
        ([percent], False, [counts, rate, left]),
        ([], False, [counts, rate, left]),
        ([percent], False, [counts, left]),
        ([percent], False, [left]),
    ]
    for head, with_bar, tail in choices:
        text = " ".join(head + [" | ".join(tail)])
        if with_bar:
            space = room - len(text) - 1
            if space < 12:
                continue
            bar_width = min(30, space - 2)
            filled = bar_width * tally.done // total
            text = " ".join(head) + " [" + "#" * filled + "-" * (bar_width - filled) + "] " + " | ".join(tail)
        if len(text) <= room:
            return text
    return " ".join([percent, left])[:room]


class BarProgress:
    """One line on a terminal, redrawn in place and fitted to the terminal's width each time."""

    def __init__(self, name: str, tally: Tally, stream: TextIO) -> None:
        self.name = name
        self.tally = tally
        self.stream = stream
        self.drawn = 0.0
        self.shown = 0
        self.draw()

    def draw(self, force: bool = True) -> None:
        now = time.monotonic()
        if not force and now - self.drawn < REDRAW_EVERY:
            return
        self.drawn = now
        width = terminal_width(self.stream)
        line = fit_line(self.name, self.tally, width)
        # \r and spaces over what the previous line left: nothing but printable text, so no wrap
        pad = max(0, min(self.shown, width - 1) - len(line))
        self.stream.write("\r" + line + " " * pad)
        self.stream.flush()
        self.shown = len(line)

    def game_done(self, players: list[str], ranks: list[int]) -> None:
        self.tally.add(players, ranks)
        self.draw(force=self.tally.to_play == 0)

    def games_done(self, games: list[tuple[list[str], list[int]]]) -> None:
        """Several items played (a worker's chunk): counted, then drawn once."""
        self.tally.add_many(games)
        self.draw(force=self.tally.to_play == 0)

    def games_tallied(self, games: int, tally: dict[str, tuple[int, int]]) -> None:
        """Several items played, as their count and a tally per bot (seats, first places): drawn once."""
        self.tally.add_tallied(games, tally)
        self.draw(force=self.tally.to_play == 0)

    def game_reused(self, players: list[str], ranks: list[int]) -> None:
        self.tally.add_reused(players, ranks)
        self.draw(force=False)

    def tick(self) -> None:
        self.draw(force=False)

    def finish(self) -> None:
        self.draw()
        self.stream.write("\n")
        self.stream.flush()


class LineProgress:
    """A short plain line at each tenth of the items to do, or after ``every`` seconds without one, and at the end."""

    def __init__(self, name: str, tally: Tally, stream: TextIO, every: float) -> None:
        self.name = name
        self.tally = tally
        self.stream = stream
        self.every = every
        self.last = time.monotonic()
        self.to_do = max(1, tally.to_play)
        self.step = 0  # tenths of the items to do reported so far
        self.line(f"{tally.to_play} to play" if tally.unit == "games" else f"{tally.to_play} to go")

    def line(self, tail: str) -> None:
        tally = self.tally
        print(f"{self.name}: {tally.done}/{tally.total} {tally.unit}, {tail}", file=self.stream, flush=True)
        self.last = time.monotonic()

    def status(self) -> str:
        return f"{self.tally.rate():.1f} {self.tally.unit}/s, {self.tally.left()}"

    def game_done(self, players: list[str], ranks: list[int]) -> None:
        self.tally.add(players, ranks)
        self.tick()

    def games_done(self, games: list[tuple[list[str], list[int]]]) -> None:
        """Several items played (a worker's chunk): counted, then one line if a tenth was passed."""
        self.tally.add_many(games)
        self.tick()

    def games_tallied(self, games: int, tally: dict[str, tuple[int, int]]) -> None:
        """Several items played, as their count and a tally per bot (seats, first places): one line if a tenth
        was passed."""
        self.tally.add_tallied(games, tally)
        self.tick()

    def game_reused(self, players: list[str], ranks: list[int]) -> None:
        self.tally.add_reused(players, ranks)

    def tick(self) -> None:
        tally = self.tally
        step = 10 * tally.played // self.to_do
        if tally.to_play and (step > self.step or time.monotonic() - self.last >= self.every):
            self.step = max(step, self.step)
            self.line(self.status())

    def finish(self) -> None:
        tally = self.tally
        reused = f", {tally.reused} reused" if tally.reused else ""
        leader = f", {tally.leader()}" if tally.unit == "games" else ""
        verb = "played" if tally.unit == "games" else "written"
        self.line(f"{tally.played} {verb}{reused} in {duration(tally.elapsed())} "
                  f"({tally.rate():.1f} {tally.unit}/s){leader}")


def make_progress(name: str, tally: Tally, stream: TextIO | None = None, every: float = 30.0
                  ) -> BarProgress | LineProgress:
    """A line redrawn in place when ``stream`` (default stderr) is a terminal, periodic lines otherwise.

    The object has ``game_done(bots, ranks)`` (one item played), ``games_done([(bots, ranks), ...])`` (a
    worker's chunk of them, drawn once), ``games_tallied(count, {bot: (seats, firsts)})`` (the same, counted
    by the worker), ``game_reused(bots, ranks)``
    (one item taken over from earlier results), ``tick()`` (call it while waiting) and
    ``finish()``.
    """
    stream = stream or sys.stderr
    if stream.isatty():
        return BarProgress(name, tally, stream)
    return LineProgress(name, tally, stream, every)
