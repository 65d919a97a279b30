"""What a run is doing: its progress, its latest finished games and its latest faults, as data and as HTML.

The front page of every site (``arena report``'s files and ``arena serve``'s
live pages) shows these three blocks from the same functions, so the live site
and the static one never disagree. The data is read with a few small queries
(the newest rows first, ``LIMIT``), so it costs the same for 100 games as for
100,000.

The pace (games per second, time left) is not in the store: only a reader
watching the store over time can measure it. The live server does
(:class:`Pace`, measured over the last :data:`PACE_WINDOW` seconds it watched);
the static report shows the counts only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from arena.report.markup import Markup, link, table
from arena.runs.store import SeatResult, Store
from arena.runs.progress import duration

#: the latest finished games and the latest faults shown on the front page
LATEST = 10
#: a fault's detail is cut to this many characters on the front page (the replay page shows it whole)
DETAIL_CHARS = 160
#: seconds over which the live server measures the pace
PACE_WINDOW = 30.0
#: seconds without a new game (while games are left to play) after which the page says the run looks stopped
STALLED_AFTER = 30.0

#: order, id -> the replay page's path relative to the site, or None when it has none
ReplayLink = Callable[[int, str], "str | None"]


@dataclass(frozen=True)
class LatestGame:
    """A finished game: its place in the schedule, id, game, when it was stored (UTC) and its seats."""

    order: int
    id: str
    game: str
    finished: str
    seats: tuple[SeatResult, ...]


@dataclass(frozen=True)
class LatestFault:
    """A fault of a finished game: the game, the bot, its kind, the move (0-based; None at the start), detail."""

    order: int
    id: str
    bot: str
    kind: str
    move: int | None
    decision: str
    detail: str


@dataclass(frozen=True)
class Pace:
    """The pace the live server measured: games per second, seconds left, seconds since the last new game.

    ``rate`` and ``left`` are None while the rate is being estimated (too few games or seconds seen).
    """

    rate: float | None
    left: float | None
    idle: float

    def to_json(self) -> dict[str, Any]:
        return {"rate": self.rate, "left": self.left, "idle": self.idle}


@dataclass(frozen=True)
class Activity:
    """The front page's live blocks: games stored and scheduled, the latest games and faults."""

    stored: int
    total: int
    games: tuple[LatestGame, ...]
    faults: tuple[LatestFault, ...]


def read_activity(store: Store, total: int, latest: int = LATEST) -> Activity:
    """The store's current games count and its ``latest`` newest games and faults (newest first)."""
    stored = store.count()
    rows = store.query("SELECT row, current, id, game, finished FROM games WHERE current IS NOT NULL "
                       "ORDER BY row DESC LIMIT ?", (latest,))
    seats: dict[int, list[SeatResult]] = {}
    if rows:
        marks = ", ".join("?" * len(rows))
        for row, *seat in store.query(f"SELECT row, bot, money, rank, faults FROM seats WHERE row IN ({marks}) "
                                      "ORDER BY row, seat", [row[0] for row in rows]):
            seats.setdefault(row, []).append(SeatResult(*seat))
    games = tuple(LatestGame(order, game_id, game, finished, tuple(seats.get(row, ())))
                  for row, order, game_id, game, finished in rows)
    faults = tuple(LatestFault(*fault) for fault in store.query(
        "SELECT g.current, g.id, s.bot, f.kind, f.move, f.decision, f.detail FROM faults f "
        "JOIN games g ON g.row = f.row JOIN seats s ON s.row = f.row AND s.seat = f.seat "
        "WHERE g.current IS NOT NULL ORDER BY f.rowid DESC LIMIT ?", (latest,)))
    return Activity(stored, total, games, faults)


def progress_text(stored: int, total: int, pace: Pace | None) -> str:
    """``Played 120 of 900 scheduled games (13%), 780 to play`` and, measured live, the pace and time left."""
    share = f" ({100 * stored / total:.0f}%)" if total else ""
    to_play = max(0, total - stored)
    text = f"Played {stored} of {total} scheduled games{share}, {to_play} to play"
    if to_play == 0:
        return text + ": all played."
    if pace is None:
        return text + "."
    if pace.idle >= STALLED_AFTER:
        return text + f"; no new game for {duration(pace.idle)}: the run may be stopped or between steps."
    if pace.rate is None or pace.left is None:
        return text + "; estimating the time left."
    return text + f"; {pace.rate:.1f} games/s over the last {PACE_WINDOW:.0f} s, about {duration(pace.left)} left."


def cut(text: str, most: int = DETAIL_CHARS) -> str:
    """The first line of ``text``, at most ``most`` characters (an ellipsis marks a cut)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    if len(line) > most or line != text.strip():
        return line[:most].rstrip() + "…"
    return line


def activity_html(activity: Activity, replay_link: ReplayLink, pace: Pace | None = None) -> str:
    """The progress line, the latest games and the latest faults (each game linked to its replay when it has one)."""

    def shown(order: int, game_id: str) -> Any:
        target = replay_link(order, game_id)
        return link(target, game_id) if target else game_id

    parts = [f'<p id="progress-line">{progress_text(activity.stored, activity.total, pace)}</p>',
             '<h2 id="latest-games">Latest games</h2>']
    if activity.games:
        parts.append(table(["game", "stored (UTC)", "bots and final money, by seat", "winner", "faults"], [
            [shown(game.order, game.id), game.finished.replace("T", " ").replace("+00:00", ""),
             " · ".join(f"{seat.bot} {seat.money}" for seat in game.seats),
             ", ".join(sorted({seat.bot for seat in game.seats if seat.rank == 1})),
             sum(seat.faults for seat in game.seats)] for game in activity.games], css_id="latest-games-table"))
    else:
        parts.append("<p>No game stored yet.</p>")
    parts.append('<h2 id="latest-faults">Latest faults</h2>')
    if activity.faults:
        parts.append(table(["game", "bot", "kind", "move", "decision", "detail"], [
            [shown(fault.order, fault.id), fault.bot, fault.kind, "start" if fault.move is None else fault.move + 1,
             fault.decision, cut(fault.detail)] for fault in activity.faults], css_id="latest-faults-table"))
        parts.append(Markup('<p class="note">Newest first; a game\'s replay page lists its faults in full.</p>'))
    else:
        parts.append("<p>No faults so far.</p>")
    return "\n".join(parts)
