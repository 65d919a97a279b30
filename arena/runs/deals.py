"""Duplicate deals: a deal's seed and setup, a table's bot seeds, and the deal's game in each rotation of the seats.

Tournaments (:mod:`arena.tournament.schedule`) and comparisons
(:mod:`arena.compare.design`) play every deal once in every rotation of a
table's seats; they differ only in which tables they set and in what order
they list the games. What a game of one deal at one table is, they share here,
so a game id, a seed or a spec key means the same thing in both:

- deal ``D`` of a game is shuffled by ``game.random_setup`` with
  ``Random(deal seed)``, the deal seed keyed by the game, its seats, its
  options and ``D`` (:mod:`arena.runs.seeds`): the same deal at every table;
- a bot's seed follows its table position, not its seat: position ``p`` gets
  the bot seed of (game, table key, deal, ``p``) in every rotation;
- rotation ``r`` (from 1) puts table position ``(seat + r - 1) mod players``
  in seat ``seat``, so each position holds each seat's cards once per deal;
- the game id is ``RUN/GAME/TABLE/dD/rR``.
"""

from __future__ import annotations

import bisect
import functools
import operator
import random
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence, cast

from arena.entrants import Entrant
from arena.games.base import Game
from arena.match import Limits
from arena.runs import seeds
from arena.runs.spec import GameSpec
from arena.versions import game_key


@dataclass(frozen=True)
class Deal:
    """Deal ``number`` (from 1) of a game: its seed (the record's ``seed``) and the setup that seed shuffles."""

    number: int
    seed: int
    setup: dict[str, Any]


def deal(secret: bytes, game: Game, players: int, options: dict[str, Any], number: int) -> Deal:
    """Deal ``number`` of ``game`` for ``players`` seats under ``options``: the same at every table of a run."""
    deal_seed = seeds.deal_seed(secret, game.name, players, sorted(options.items()), number)
    return Deal(number, deal_seed, game.random_setup(players, options, random.Random(deal_seed)))


def position_seeds(secret: bytes, game: str, table_key: str, deal_number: int, players: int) -> tuple[int, ...]:
    """The bot seeds of deal ``deal_number`` at the table keyed ``table_key``, by table position."""
    return tuple(seeds.bot_seed(secret, game, table_key, deal_number, position) for position in range(players))


def rotation_order(players: int, rotation: int) -> list[int]:
    """Table positions by seat in ``rotation`` (counted from 1)."""
    return [(seat + rotation - 1) % players for seat in range(players)]


@functools.lru_cache(maxsize=256)
def _seated(players: int, rotation: int) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    """What takes a table's values by position to the seats' in ``rotation``: a tuple in seat order."""
    positions = rotation_order(players, rotation)
    if players == 1:
        return lambda values: (values[0],)
    return cast(Callable[[Sequence[Any]], tuple[Any, ...]], operator.itemgetter(*positions))


@dataclass(frozen=True)
class TableDeal:
    """One deal at one table: everything its games in the seat rotations share.

    ``entrants`` and ``bot_seeds`` are in table order; ``versions`` maps each
    entrant's name to its code's version (:mod:`arena.versions`), and the
    game's :func:`~arena.versions.game_key` to the game's version when known.
    """

    run: str  # the tournament's or comparison's name, the first part of every game id
    game: str
    options: dict[str, Any]
    table: str  # the table's label within its game
    entrants: tuple[Entrant, ...]
    deal: Deal
    bot_seeds: tuple[int, ...]
    limits: Limits
    sandbox: str
    versions: Mapping[str, str]

    def spec(self, rotation: int, order: int) -> GameSpec:
        """The game of this deal in ``rotation`` (from 1), at position ``order`` of its schedule."""
        return self.specs(order, (rotation,))[0]

    def specs(self, first_order: int, rotations: Sequence[int] | None = None) -> list[GameSpec]:
        """The games of this deal in ``rotations`` (default: every one, from 1), at positions ``first_order``,
        ``first_order + 1``, ... of the schedule.

        What the rotations share (the id's stem, the versions by table position) is made once: a tournament's
        specs are made one after another before its first game, about 4,000 a second of it on two cores.
        """
        players = len(self.entrants)
        versions = [self.versions[entrant.name] for entrant in self.entrants]
        game_version = self.versions.get(game_key(self.game), "")
        stem = f"{self.run}/{self.game}/{self.table}/d{self.deal.number}/r"
        number, setup, seed = self.deal.number, self.deal.setup, self.deal.seed
        made = []
        for order, rotation in enumerate(range(1, players + 1) if rotations is None else rotations, first_order):
            seated = _seated(players, rotation)
            made.append(GameSpec.made({
                "order": order, "id": stem + str(rotation), "game": self.game, "table": self.table, "deal": number,
                "rotation": rotation, "options": self.options, "setup": setup, "entrants": seated(self.entrants),
                "seed": seed, "bot_seeds": seated(self.bot_seeds), "limits": self.limits, "sandbox": self.sandbox,
                "versions": seated(versions), "game_version": game_version}))
        return made


@dataclass(frozen=True)
class DealBlocks:
    """One game's part of a schedule, deal block by deal block: ``count`` blocks of ``players`` games each,
    block ``i`` being :meth:`TableDeal.specs` of ``make(i)`` (the games of one deal at one table)."""

    game: str
    players: int
    count: int
    make: Callable[[int], TableDeal]


class LazySpecs(Sequence[GameSpec]):
    """A schedule's specs, each made when it is first asked for (a deal block at a time), in schedule order.

    A run of many workers made every spec in its main process before the
    first game (12 us a game: the deal's shuffle, the bot seeds, the spec),
    one after another at any ``-j``. A local pool's workers inherit this
    table when they fork and are sent places in it: each worker makes the
    specs of the games it plays, side by side with the others, and the main
    process makes one only to name a game that failed. Spec ``i`` has order
    ``i``: equal, field for field, to the ``i``-th of the list made at once
    (tests/test_tournament_schedule.py).

    The last :data:`KEPT_BLOCKS` blocks made are kept (a worker's chunk asks
    for a block's games one after another); iterating makes every spec once.
    """

    #: blocks kept once made
    KEPT_BLOCKS = 64

    def __init__(self, parts: Sequence[DealBlocks]) -> None:
        self.parts = tuple(parts)
        self.starts: list[int] = []
        total = 0
        for part in self.parts:
            self.starts.append(total)
            total += part.players * part.count
        self.total = total
        self._made: dict[tuple[int, int], list[GameSpec]] = {}

    def __len__(self) -> int:
        return self.total

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[place] for place in range(*index.indices(self.total))]
        place = index + self.total if index < 0 else index
        if not 0 <= place < self.total:
            raise IndexError(f"spec {index} of a schedule of {self.total}")
        part = bisect.bisect_right(self.starts, place) - 1
        block, rotation = divmod(place - self.starts[part], self.parts[part].players)
        made = self._made.get((part, block))
        if made is None:
            if len(self._made) >= self.KEPT_BLOCKS:
                self._made.clear()
            made = self._made[part, block] = self._block(part, block)
        return made[rotation]

    def __iter__(self) -> Iterator[GameSpec]:
        for part, blocks in enumerate(self.parts):
            for block in range(blocks.count):
                yield from self._block(part, block)

    def _block(self, part: int, block: int) -> list[GameSpec]:
        blocks = self.parts[part]
        return blocks.make(block).specs(self.starts[part] + block * blocks.players)

    def orders_by_game(self) -> dict[str, list[int]]:
        """Each game's orders in the schedule, no spec made."""
        orders: dict[str, list[int]] = {}
        for start, part in zip(self.starts, self.parts):
            orders.setdefault(part.game, []).extend(range(start, start + part.players * part.count))
        return orders


def orders_by_game(specs: Sequence[GameSpec]) -> dict[str, list[int]]:
    """Each game's orders among ``specs``, in their order (of a :class:`LazySpecs`, without making a spec)."""
    if isinstance(specs, LazySpecs):
        return specs.orders_by_game()
    orders: dict[str, list[int]] = {}
    for spec in specs:
        orders.setdefault(spec.game, []).append(spec.order)
    return orders
