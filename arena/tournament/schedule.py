"""The schedule of a tournament: tables, deals, seat rotations, and each game's id, setup and seeds.

Per game of the file (cli.md): only the bots that play it are entered, in the
file's order. Round-robin seats every combination of ``players`` entries at a
table; gauntlet seats the first entry with every combination of ``players - 1``
others; sampled draws about ``tables_per_entry`` tables per entry
(:mod:`arena.formats.sampled`). With too few entries, one table repeats them
in order to fill the seats (A, B, A, B). Each table plays ``deals`` deals, and
each deal once in every rotation of the seats (duplicate format).

Everything follows from the run's secret (:mod:`arena.runs.seeds`: drawn and
kept in the store, or the file's public ``seed``), so the schedule is the same
on every machine and run, and ids stay put when the field changes:

- a table is named by its entries in table order (``random+greedy+mcts``; a
  table seating the same entries again gets ``#2``, ``#3``), never by its index;
- the game id is ``NAME/GAME/TABLE/dD/rR`` (deal and rotation counted from 1);
- deal ``D`` of a game is the same deal at every table: its setup is
  ``game.random_setup`` with ``Random(deal seed)``, the deal seed keyed by the
  game, its seats, its options and ``D``; the record's ``seed`` is that deal seed;
- a bot's seed follows the bot, not the seat: the entry at table position
  ``p`` gets the bot seed of (game, table, deal, ``p``) in every rotation, so
  across the rotations of a deal only the seat (and with it the cards)
  changes, never the bot's own randomness.

Rotation ``r`` puts table position ``(seat + r - 1) mod players`` in seat
``seat``: in r1 the table's order, in r2 every entry one seat lower (the first
in the last seat), and so on, so each entry holds each seat's cards once per deal.
Deals, bot seeds, rotations and ids are :mod:`arena.runs.deals`' (comparisons share them).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Sequence, TypeVar

from arena.entrants import Entrant
from arena.plugins import Plugins
from arena.runs.deals import Deal, DealBlocks, LazySpecs, TableDeal, deal, position_seeds
from arena.runs.spec import GameSpec
from arena.tournament.config import GameEntry, Tournament


@dataclass(frozen=True)
class Table:
    """One table of one game: its label (its entries' names, unique within the game) and its entries in table order."""

    game: str
    label: str
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


Entry = TypeVar("Entry")


def seatings(entries: Sequence[Entry], players: int, form: str) -> list[tuple[Entry, ...]]:
    """The tables of ``entries`` (in order) for ``players`` seats under ``form`` (cli.md)."""
    if form == "gauntlet":
        head, others = entries[0], entries[1:]
        if len(others) < players - 1:
            return [(head, *_filled(others, players - 1))]
        return [(head, *group) for group in itertools.combinations(others, players - 1)]
    if len(entries) < players:
        return [_filled(entries, players)]
    return list(itertools.combinations(entries, players))


def _filled(entries: Sequence[Entry], seats: int) -> tuple[Entry, ...]:
    """``entries`` repeated in order until ``seats`` are filled."""
    return tuple(entries[index % len(entries)] for index in range(seats))


@dataclass(frozen=True)
class Schedule:
    """The whole tournament: one :class:`GamePlan` per game, and its game tasks in order."""

    tournament: Tournament
    plans: tuple[GamePlan, ...]

    @property
    def total(self) -> int:
        return sum(plan.total for plan in self.plans)

    def specs(self, sandbox: str, plugins: Plugins, secret: bytes, versions: dict[str, str]) -> list[GameSpec]:
        """Every game as a spec, in schedule order; ``versions`` maps each entry's name to its code's version."""
        specs: list[GameSpec] = []
        for plan in self.plans:
            specs += game_specs(self.tournament, plan, plugins, secret, versions, sandbox, first_order=len(specs))
        return specs

    def lazy_specs(self, sandbox: str, plugins: Plugins, secret: bytes, versions: dict[str, str]) -> LazySpecs:
        """The same specs as :meth:`specs`, each made when first asked for (:class:`~arena.runs.deals.LazySpecs`)."""
        return LazySpecs([_deal_blocks(self.tournament, plan, plugins, secret, versions, sandbox)
                          for plan in self.plans])

    def summary(self, drawn: dict[str, list[GamePlan]] | None = None) -> dict[str, Any]:
        """The plan as plain JSON, kept in the store: per game its tables and who was left out.

        ``drawn`` holds, per game, the plans of a ladder's rounds drawn so far (a ladder's own plan has no tables).
        """
        plans = [(plan, [table for part in (drawn or {}).get(plan.entry.name, [plan]) for table in part.tables])
                 for plan in self.plans]
        return {
            "games": [
                {
                    "name": plan.entry.name,
                    "players": plan.entry.players,
                    "games": len(tables) * plan.deals * plan.entry.players,
                    "entries": [e.name for e in self.tournament.entrants if e.name not in plan.left_out],
                    "left_out": list(plan.left_out),
                    "tables": [[e.name for e in table.entrants] for table in tables],
                }
                for plan, tables in plans
            ],
            "bots": [entrant.name for entrant in self.tournament.entrants],
        }


def game_specs(tournament: Tournament, plan: GamePlan, plugins: Plugins, secret: bytes, versions: dict[str, str],
               sandbox: str, first_order: int = 0) -> list[GameSpec]:
    """The specs of one game's tables, numbered from ``first_order``: every deal at every table in every rotation.

    One setup per deal number, shared by every table and rotation (deal D is the same deal at every table).
    """
    game = plugins.game(plan.entry.name)
    players, options = plan.entry.players, plan.entry.options
    shuffled = [deal(secret, game, players, options, number) for number in range(1, plan.deals + 1)]
    specs: list[GameSpec] = []
    for table in plan.tables:
        for one in shuffled:
            at_table = TableDeal(tournament.name, game.name, options, table.label, table.entrants, one,
                                 position_seeds(secret, game.name, table.label, one.number, players),
                                 tournament.limits, sandbox, versions)
            specs += at_table.specs(first_order + len(specs))
    return specs


def _deal_blocks(tournament: Tournament, plan: GamePlan, plugins: Plugins, secret: bytes, versions: dict[str, str],
                 sandbox: str) -> DealBlocks:
    """:func:`game_specs` as deal blocks made when asked for: block ``i`` is table ``i // deals``'s deal
    ``i % deals + 1``."""
    game = plugins.game(plan.entry.name)
    players, options = plan.entry.players, plan.entry.options
    shuffled: dict[int, Deal] = {}

    def make(block: int) -> TableDeal:
        table, number = plan.tables[block // plan.deals], block % plan.deals + 1
        one = shuffled.get(number)
        if one is None:
            one = shuffled[number] = deal(secret, game, players, options, number)
        return TableDeal(tournament.name, game.name, options, table.label, table.entrants, one,
                         position_seeds(secret, game.name, table.label, number, players), tournament.limits,
                         sandbox, versions)

    return DealBlocks(game.name, players, len(plan.tables) * plan.deals, make)


def labelled(game: str, groups: list[tuple[Entrant, ...]], prefix: str = "") -> tuple[Table, ...]:
    """Tables named by their entries (``a+b+c``, after ``prefix``); a group seated again gets ``#2``, ``#3``, ..."""
    seen: dict[str, int] = {}
    tables = []
    for group in groups:
        label = prefix + "+".join(entrant.name for entrant in group)
        seen[label] = seen.get(label, 0) + 1
        tables.append(Table(game, label if seen[label] == 1 else f"{label}#{seen[label]}", group))
    return tuple(tables)


def playing_entrants(tournament: Tournament, game: str, plugins: Plugins) -> list[Entrant]:
    """The entries of ``tournament`` that play ``game``, in the file's order."""
    return [entrant for entrant in tournament.entrants if entrant.plays(game, plugins)]


def build_schedule(tournament: Tournament, plugins: Plugins, secret: bytes) -> Schedule:
    """The schedule of a checked tournament under ``secret`` (which draws a sampled tournament's tables)."""
    plans = []
    for entry in tournament.games:
        playing = playing_entrants(tournament, entry.name, plugins)
        left_out = tuple(e.name for e in tournament.entrants if e not in playing)
        if tournament.format == "ladder":
            groups: list[tuple[Entrant, ...]] = []  # drawn round by round (arena.tournament.ladder)
        elif tournament.format == "sampled":
            from arena.formats.sampled import sampled_tables  # numpy: not for a run of another format

            by_name = {entrant.name: entrant for entrant in playing}
            drawn = sampled_tables([e.name for e in playing], entry.players, tournament.tables_per_entry or 1,
                                   secret + entry.name.encode())
            groups = [tuple(by_name[name] for name in table) for table in drawn]
        else:
            groups = [tuple(group) for group in seatings(playing, entry.players, tournament.format)]
        plans.append(GamePlan(entry, labelled(entry.name, groups), left_out, tournament.deals))
    return Schedule(tournament, tuple(plans))
