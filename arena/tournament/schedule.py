"""The schedule of a tournament: tables, deals, seat rotations, and each game's id, setup and seeds.

Per game of the file (cli.md): only the bots that play it are entered, in the
file's order. Round-robin seats every combination of ``players`` entries at a
table; gauntlet seats the first entry with every combination of ``players - 1``
others. With too few entries, one table repeats them in order to fill the
seats (A, B, A, B). Each table plays ``deals`` deals, and each deal once in
every rotation of the seats (duplicate format).

Everything follows from the tournament seed, the game, the table and the deal
(``derive_seed``), so the schedule is the same on every machine and run:

- the game id is ``NAME/GAME/tT/dD/rR`` (table, deal and rotation counted from 1);
- the setup of a deal is ``game.random_setup`` with ``Random(deal seed)``, the
  same in every rotation; the record's ``seed`` is that deal seed;
- a bot's seed follows the bot, not the seat: the entry at table position
  ``p`` gets ``derive_seed(seed, game, table, deal, "bot", p)`` in every
  rotation, so across the rotations of a deal only the seat (and with it the
  cards) changes, never the bot's own randomness.

Rotation ``r`` puts table position ``(seat + r - 1) mod players`` in seat
``seat``: in r1 the table's order, in r2 every entry one seat lower (the first
in the last seat), and so on, so each entry holds each seat's cards once per deal.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Any, Iterator

from arena.entrants import Entrant
from arena.match import derive_seed
from arena.tournament.config import GameEntry, Tournament
from arena.runs.spec import GameSpec


@dataclass(frozen=True)
class Table:
    """One table of one game: its number (from 1) and its entries in table order."""

    game: str
    number: int
    entrants: tuple[Entrant, ...]


@dataclass(frozen=True)
class GamePlan:
    """One game of the file: its tables, and the bots left out because they do not play it."""

    entry: GameEntry
    tables: tuple[Table, ...]
    left_out: tuple[str, ...]
    deals: int

    @property
    def total(self) -> int:
        """Games of this game: tables x deals x rotations."""
        return len(self.tables) * self.deals * self.entry.players


def seatings(entries: list, players: int, form: str) -> list[tuple]:
    """The tables of ``entries`` (in order) for ``players`` seats under ``form`` (cli.md)."""
    if form == "gauntlet":
        head, others = entries[0], entries[1:]
        if len(others) < players - 1:
            return [(head, *_filled(others, players - 1))]
        return [(head, *group) for group in itertools.combinations(others, players - 1)]
    if len(entries) < players:
        return [_filled(entries, players)]
    return list(itertools.combinations(entries, players))


def _filled(entries: list, seats: int) -> tuple:
    """``entries`` repeated in order until ``seats`` are filled."""
    return tuple(entries[index % len(entries)] for index in range(seats))


def rotation_order(players: int, rotation: int) -> list[int]:
    """Table positions by seat in ``rotation`` (counted from 1)."""
    return [(seat + rotation - 1) % players for seat in range(players)]


@dataclass(frozen=True)
class Schedule:
    """The whole tournament: one :class:`GamePlan` per game, and its game tasks in order."""

    tournament: Tournament
    plans: tuple[GamePlan, ...]

    @property
    def total(self) -> int:
        return sum(plan.total for plan in self.plans)

    def specs(self, sandbox: str, plugins: Any) -> list[GameSpec]:
        """Every game as a spec, in schedule order (one setup per deal, shared by its rotations)."""
        tournament = self.tournament
        specs: list[GameSpec] = []
        for plan in self.plans:
            game = plugins.game(plan.entry.name)
            players = plan.entry.players
            for table in plan.tables:
                for deal in range(1, plan.deals + 1):
                    deal_seed = derive_seed(tournament.seed, game.name, table.number, deal)
                    setup = game.random_setup(players, plan.entry.options, random.Random(deal_seed))
                    bot_seeds = [derive_seed(tournament.seed, game.name, table.number, deal, "bot", position)
                                 for position in range(players)]
                    for rotation in range(1, players + 1):
                        positions = rotation_order(players, rotation)
                        specs.append(GameSpec(
                            order=len(specs),
                            id=f"{tournament.name}/{game.name}/t{table.number}/d{deal}/r{rotation}",
                            game=game.name,
                            table=f"t{table.number}",
                            deal=deal,
                            rotation=rotation,
                            options=plan.entry.options,
                            setup=setup,
                            entrants=tuple(table.entrants[p] for p in positions),
                            seed=deal_seed,
                            bot_seeds=tuple(bot_seeds[p] for p in positions),
                            limits=tournament.limits,
                            sandbox=sandbox,
                        ))
        return specs

    def summary(self) -> dict:
        """The plan as plain JSON, kept in the store: per game its tables and who was left out."""
        return {
            "games": [
                {
                    "name": plan.entry.name,
                    "players": plan.entry.players,
                    "games": plan.total,
                    "entries": _unique(e.name for table in plan.tables for e in table.entrants),
                    "left_out": list(plan.left_out),
                    "tables": [[e.name for e in table.entrants] for table in plan.tables],
                }
                for plan in self.plans
            ],
            "bots": [entrant.name for entrant in self.tournament.entrants],
        }


def _unique(names: Iterator[str]) -> list[str]:
    return list(dict.fromkeys(names))


def build_schedule(tournament: Tournament, plugins: Any) -> Schedule:
    """The schedule of a checked tournament."""
    plans = []
    for entry in tournament.games:
        playing = [e for e in tournament.entrants if e.plays(entry.name, plugins)]
        left_out = tuple(e.name for e in tournament.entrants if e not in playing)
        tables = tuple(
            Table(entry.name, number, tuple(group))
            for number, group in enumerate(seatings(playing, entry.players, tournament.format), 1)
        )
        plans.append(GamePlan(entry, tables, left_out, tournament.deals))
    return Schedule(tournament, tuple(plans))
