"""One game's stored seats as columns: the input of every standings figure.

The store gives ``(seq, table, deal, bot, rank, money, faults)`` per seat in
schedule order (:meth:`arena.runs.store.Store.seats_with_blocks`). This module
turns those rows into :class:`GameSeats`: per seat the game it belongs to,
the bot, placing, money and faults; per game its deal block. A deal block is
one deal at one table in all its seat rotations (the duplicate format), found
by the stored ``table`` and ``deal`` columns, never by parsing game ids.

A bot holding several seats of one game (a small field filling a table)
counts one game: :meth:`GameSeats.bot_games` folds its seats into one entry
per game and bot, with the mean of its placings and money.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Any, Iterable, Sequence

import numpy as np


@dataclass(frozen=True)
class GameSeats:
    """Every seat of one game's stored games, as parallel arrays.

    ``bots[i]`` names bot index ``i``. Per seat: ``game`` (index of the game,
    0-based in schedule order), ``bot``, ``rank`` (1 = first), ``money``,
    ``faults``. Per game: ``block`` (index of its deal block) and ``starts``
    (``starts[g]:starts[g + 1]`` are game ``g``'s seats). ``names`` and
    ``ranks`` repeat the seats' bots and placings as Python sequences, the
    form a rater's loop reads fastest.
    """

    bots: tuple[str, ...]
    names: Sequence[str]
    ranks: Sequence[int]
    game: np.ndarray
    bot: np.ndarray
    rank: np.ndarray
    money: np.ndarray
    faults: np.ndarray
    block: np.ndarray
    starts: np.ndarray

    @property
    def games(self) -> int:
        return len(self.block)

    @property
    def blocks(self) -> int:
        return int(self.block.max()) + 1 if len(self.block) else 0

    def rated_games(self) -> Iterable[tuple[Sequence[str], Sequence[int]]]:
        """``(bots, placings)`` per game in schedule order: what a rater takes."""
        names, ranks, starts = self.names, self.ranks, self.starts.tolist()
        return ((names[start:end], ranks[start:end]) for start, end in zip(starts, starts[1:]))

    def bot_games(self) -> "BotGames":
        """One entry per game and bot holding a seat in it (several seats folded into one)."""
        key = self.game.astype(np.int64) * len(self.bots) + self.bot
        keys, inverse, seats = np.unique(key, return_inverse=True, return_counts=True)
        game = keys // len(self.bots)
        return BotGames(
            game=game, bot=keys % len(self.bots), seats=seats,
            placing=np.bincount(inverse, self.rank) / seats,
            money=np.bincount(inverse, self.money) / seats,
            first=np.bincount(inverse, self.rank == 1) > 0,
            faults=np.bincount(inverse, self.faults).astype(np.int64),
            block=self.block[game])


@dataclass(frozen=True)
class BotGames:
    """Per game and bot (sorted by game, then bot index): seats held, mean placing, mean money,
    whether it placed first, faults, and the game's deal block."""

    game: np.ndarray
    bot: np.ndarray
    seats: np.ndarray
    placing: np.ndarray
    money: np.ndarray
    first: np.ndarray
    faults: np.ndarray
    block: np.ndarray


def from_rows(rows: list[tuple[int, Any, int, str, int, int, int]]) -> GameSeats:
    """:class:`GameSeats` from the store's ``(order, table, deal, bot, rank, money, faults)`` rows,
    in schedule order then seat order; ``table`` is whatever names a table (a number or a label)."""
    if not rows:
        empty = np.zeros(0, dtype=np.int64)
        return GameSeats((), (), (), empty, empty, empty, empty, empty, empty, np.zeros(1, dtype=np.int64))
    seq, table, deal, names, rank, money, faults = (list(map(itemgetter(column), rows)) for column in range(7))
    bots = tuple(dict.fromkeys(names))
    index = {bot: number for number, bot in enumerate(bots)}
    orders = np.asarray(seq, dtype=np.int64)
    new_game = np.empty(len(orders), dtype=bool)
    new_game[0] = True
    np.not_equal(orders[1:], orders[:-1], out=new_game[1:])
    starts = np.flatnonzero(new_game)
    game = np.cumsum(new_game) - 1
    blocks: dict[tuple[Any, Any], int] = {}
    block = [blocks.setdefault((table[start], deal[start]), len(blocks)) for start in starts.tolist()]
    return GameSeats(
        bots=bots, names=names, ranks=rank, game=game,
        bot=np.array(list(map(index.__getitem__, names)), dtype=np.int64),
        rank=np.asarray(rank, dtype=np.int64), money=np.asarray(money, dtype=np.int64),
        faults=np.asarray(faults, dtype=np.int64), block=np.asarray(block, dtype=np.int64),
        starts=np.append(starts, len(seq)))
