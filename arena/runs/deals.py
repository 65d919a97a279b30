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

import random
from dataclasses import dataclass
from typing import Any, Mapping

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
        positions = rotation_order(len(self.entrants), rotation)
        seated = tuple(self.entrants[p] for p in positions)
        return GameSpec(
            order=order,
            id=f"{self.run}/{self.game}/{self.table}/d{self.deal.number}/r{rotation}",
            game=self.game,
            table=self.table,
            deal=self.deal.number,
            rotation=rotation,
            options=self.options,
            setup=self.deal.setup,
            entrants=seated,
            seed=self.deal.seed,
            bot_seeds=tuple(self.bot_seeds[p] for p in positions),
            limits=self.limits,
            sandbox=self.sandbox,
            versions=tuple(self.versions[entrant.name] for entrant in seated),
            game_version=self.versions.get(game_key(self.game), ""),
        )
