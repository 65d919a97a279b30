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

from array import array
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, NamedTuple, Sequence

if TYPE_CHECKING:  # numpy (about 60 ms) is imported by the functions that make arrays: a run, which imports
    import numpy as np  # this module, starts its games without it (it comes while they are played)


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
        import numpy as np

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
    import numpy as np

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


class SeatColumns(NamedTuple):
    """Stored games' seats as they came to the run's store writer (in any order), column by column.

    Per game: ``order`` (its place in the schedule), ``table`` (an index into
    ``tables``), ``deal`` and ``width`` (its seats). Per seat, game after game
    as in the per-game columns: ``bot`` (an index into ``bots``), ``rank``,
    ``money``, ``faults``. Arrays of machine integers: the writer sends them
    to the main process in a few pieces, not a tuple a seat.
    """

    tables: list[Any]
    bots: list[str]
    order: array[int]
    table: array[int]
    deal: array[int]
    width: array[int]
    bot: array[int]
    rank: array[int]
    money: array[int]
    faults: array[int]


class SeatCollector:
    """Builds :class:`SeatColumns` from the store's rows of games, batch by batch (in the run's store writer).

    A game's rows are :func:`arena.runs.store.game_rows`'s: its games row
    (table at 3, deal at 4, order at 6) and its seats' rows (bot, version,
    money, rank, faults).
    """

    def __init__(self) -> None:
        self.columns = SeatColumns([], [], *(array("q") for _ in range(8)))
        self._tables: dict[Any, int] = {}
        self._bots: dict[str, int] = {}

    def add(self, fields: Sequence[Any], seats: Sequence[Sequence[Any]]) -> None:
        """One game: its games row and its seats' rows."""
        columns = self.columns
        label = fields[3]
        number = self._tables.get(label)
        if number is None:
            number = self._tables[label] = len(columns.tables)
            columns.tables.append(label)
        columns.order.append(fields[6])
        columns.table.append(number)
        columns.deal.append(fields[4])
        columns.width.append(len(seats))
        bots, bot, rank, money, faults = self._bots, columns.bot, columns.rank, columns.money, columns.faults
        for name, _, seat_money, seat_rank, seat_faults in seats:
            code = bots.get(name)
            if code is None:
                code = bots[name] = len(columns.bots)
                columns.bots.append(name)
            bot.append(code)
            rank.append(seat_rank)
            money.append(seat_money)
            faults.append(seat_faults)


def from_columns(columns: SeatColumns) -> GameSeats:
    """:class:`GameSeats` of the games of ``columns``, put in schedule order: equal, field for field, to
    :func:`from_rows` of the store's rows of the same games (tests/test_tournament_leaderboard.py)."""
    import numpy as np

    if not len(columns.order):
        return from_rows([])
    order = np.frombuffer(columns.order, dtype=np.int64)
    width = np.frombuffer(columns.width, dtype=np.int64)
    by_order = np.argsort(order, kind="stable")
    first_seat = np.cumsum(width) - width  # where each game's seats begin, as they came
    sorted_width = width[by_order]
    starts = np.cumsum(sorted_width) - sorted_width  # and in schedule order
    seat = np.repeat(first_seat[by_order] - starts, sorted_width) + np.arange(int(sorted_width.sum()))
    codes = np.frombuffer(columns.bot, dtype=np.int64)[seat]
    # bots numbered by their first seat in schedule order, as from_rows numbers them
    present, first = np.unique(codes, return_index=True)
    appearance = present[np.argsort(first)]
    renumber = np.zeros(len(columns.bots), dtype=np.int64)
    renumber[appearance] = np.arange(len(appearance))
    bots = tuple(columns.bots[code] for code in appearance.tolist())
    bot = renumber[codes]
    rank = np.frombuffer(columns.rank, dtype=np.int64)[seat]
    tables, deals = np.frombuffer(columns.table, dtype=np.int64)[by_order], np.frombuffer(columns.deal,
                                                                                        dtype=np.int64)[by_order]
    # deal blocks numbered by their first game in schedule order, as from_rows numbers them
    pair = tables * (int(deals.max()) - int(deals.min()) + 1) + (deals - int(deals.min()))
    _, first_game, inverse = np.unique(pair, return_index=True, return_inverse=True)
    block = np.argsort(np.argsort(first_game, kind="stable"), kind="stable")[inverse.reshape(-1)]
    return GameSeats(
        bots=bots, names=_Listed(lambda: [bots[code] for code in bot.tolist()]), ranks=_Listed(rank.tolist),
        game=np.repeat(np.arange(len(order)), sorted_width), bot=bot, rank=rank,
        money=np.frombuffer(columns.money, dtype=np.int64)[seat],
        faults=np.frombuffer(columns.faults, dtype=np.int64)[seat], block=block.astype(np.int64),
        starts=np.append(starts, int(sorted_width.sum())))


class _Listed(Sequence[Any]):
    """A list made on first use: a run's seats come with their ratings already made, so their names and
    placings as Python lists (what a rater reads) are mostly never needed (8-10 ms at 20,000 games, after the
    last game)."""

    def __init__(self, make: Callable[[], list[Any]]) -> None:
        self._make: Callable[[], list[Any]] | None = make
        self._items: list[Any] = []

    def _list(self) -> list[Any]:
        if self._make is not None:
            self._items, self._make = self._make(), None
        return self._items

    def __getitem__(self, index: Any) -> Any:
        return self._list()[index]

    def __len__(self) -> int:
        return len(self._list())

    def __iter__(self) -> Iterator[Any]:
        return iter(self._list())

    def __eq__(self, other: object) -> bool:
        return self._list() == (list(other) if isinstance(other, _Listed) else other)

    __hash__ = None  # type: ignore[assignment]
