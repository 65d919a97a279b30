"""What the report reads from a results store, without loading every record.

The games page, the charts and the comparison's SPRT trace need only each
game's place, id, table and seats; these queries read them from the store's
``games``, ``seats`` and ``faults`` tables (current games only: history kept
for older bot versions is out of the standings, and out of the report).
Records are read one at a time, only for the games that get a replay page.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class GameRow(NamedTuple):
    """One current game: its place in the schedule, id, game, table label, deal and rotation."""

    order: int
    id: str
    game: str
    table: str
    deal: int
    rotation: int


class SeatResult(NamedTuple):
    """One seat of one game: the bot, its final money, rank and faults."""

    bot: str
    money: int
    rank: int
    faults: int


def game_index(store: Any) -> list[GameRow]:
    """Every current game in schedule order."""
    return [GameRow(*row) for row in store.query(
        "SELECT current, id, game, table_label, deal, rotation FROM games WHERE current IS NOT NULL "
        "ORDER BY current")]


def seat_results(store: Any) -> dict[int, list[SeatResult]]:
    """Schedule order -> the game's seats in seat order, for every current game."""
    seats: dict[int, list[SeatResult]] = {}
    for order, *seat in store.query(
            "SELECT g.current, s.bot, s.money, s.rank, s.faults FROM seats s JOIN games g ON g.row = s.row "
            "WHERE g.current IS NOT NULL ORDER BY g.current, s.seat"):
        seats.setdefault(order, []).append(SeatResult(*seat))
    return seats


def fault_kinds(store: Any) -> dict[str, dict[str, int]]:
    """Bot -> fault kind -> count over the current games (bots without faults left out), bots sorted."""
    counts: dict[str, dict[str, int]] = {}
    for bot, kind, count in store.query(
            "SELECT s.bot, f.kind, COUNT(*) FROM faults f JOIN seats s ON s.row = f.row AND s.seat = f.seat "
            "JOIN games g ON g.row = f.row WHERE g.current IS NOT NULL GROUP BY s.bot, f.kind ORDER BY s.bot"):
        counts.setdefault(bot, {})[kind] = count
    return counts


def placings(store: Any, game: str) -> list[tuple[int, str, int]]:
    """``(order, bot, rank)`` of every seat of ``game``'s current games, in schedule then seat order."""
    return [(row[0], row[1], row[2]) for row in store.seat_rows(game)]
