"""The ``sampled`` format: a balanced sample of tables for fields too large for a round-robin.

Thirty entries at four seats make 27,405 round-robin tables; a hundred make
3.9 million. :func:`sampled_tables` draws instead about ``tables_per_entry``
tables per entry, so that

- every entry sits at ``tables_per_entry`` tables (exactly, when
  ``entries x tables_per_entry`` is a multiple of ``players``; otherwise the
  last table is filled with entries that then play one table more);
- every pair of entries meets about equally often (the counts of meetings of
  all pairs stay within one or two of each other, as close as a field of that
  size and ``tables_per_entry`` allow);
- every entry holds every seat position about equally often (within one), so
  no entry gains from always being first to act in table order; each table is
  played in every seat rotation anyway, which balances the cards;
- the same arguments give the same tables on every machine.

**Growing the field.** The design is built one entry at a time, in the order
of ``entries``: the first ``players`` entries share ``tables_per_entry``
tables, and each further entry takes ``tables_per_entry`` seats from existing
tables (one seat per table, chosen to even out the meetings of pairs and the
seat positions), while the entries it displaces sit down together at new
tables in the seat positions they lost. Each step depends only on the seed,
the entries before it and the new entry's name, so **appending an entry to
the field keeps every earlier table but the ``tables_per_entry`` it takes a
seat at** (and the one filled-up last table, when there is one); their games
are not played again. An entry inserted in the middle of the list, or a
removed one, redraws every table from that point on: append new entries.

The draw is greedy with seeded tie-breaking, not an optimum; its balance is
tested (tests/test_formats_sampled.py) and 100 entries x 4 seats x 20 tables
each take well under a second.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np

from arena.formats.seeding import derived

__all__ = ["MAX_TABLES_PER_ENTRY", "sampled_tables"]

#: the penalty of a pair that met ``m`` times grows as ``BASE ** m``, so the draw first avoids a pair's
#: third meeting before a second, and so on (a steeper penalty than squares evens the counts out better)
BASE = 3
_PENALTY = BASE ** np.arange(-1, 65, dtype=np.float64)
_ADD = (_PENALTY[2:] - _PENALTY[1:-1])  # m -> m + 1, indexed by m
_REMOVE = np.concatenate([[0.0], _PENALTY[1:-2] - _PENALTY[2:-1]])  # m -> m - 1, indexed by m (0 for m = 0)
#: the most tables per entry the penalties cover (a pair meets at most once per table, plus the filled last one)
MAX_TABLES_PER_ENTRY = len(_ADD) - 2


def sampled_tables(entries: list[str], players: int, tables_per_entry: int,
                   seed: bytes | int) -> list[tuple[str, ...]]:
    """The tables of a ``sampled`` tournament: tuples of ``players`` entry names in seat order.

    :param entries: the entries that play this game, in the tournament file's order (append new ones at the end)
    :param players: seats per table
    :param tables_per_entry: how many tables each entry should sit at
    :param seed: the tournament's seed or secret; the same arguments always give the same tables
    :returns: the tables; existing tables keep their place in the list when an entry is appended
    """
    if players < 2 or not 1 <= tables_per_entry <= MAX_TABLES_PER_ENTRY or len(entries) < 2:
        raise ValueError(f"need at least 2 entries, 2 seats and 1 to {MAX_TABLES_PER_ENTRY} tables per entry, got "
                         f"{len(entries)} entries, {players} seats, {tables_per_entry} tables per entry")
    if len(set(entries)) != len(entries):
        raise ValueError("entries must have distinct names")
    if len(entries) <= players:
        filled = [entries[index % len(entries)] for index in range(players)]
        return [tuple(filled[(seat + table) % players] for seat in range(players)) for table in range(tables_per_entry)]
    design = _Design(len(entries), players, tables_per_entry)
    for index, name in enumerate(entries[players:], players):
        design.add(index, np.random.default_rng(derived(seed, "sampled", name)))
    design.finish()
    design.even_out()
    design.even_seats()
    return [tuple(entries[member] for member in table) for table in design.tables]


@dataclass
class _Design:
    """The tables drawn so far, with the meetings of every pair and the seat positions of every entry."""

    size: int
    players: int
    per_entry: int
    tables: list[list[int]] = field(default_factory=list)
    owed: list[tuple[int, int]] = field(default_factory=list)  # (entry, seat position) displaced, not yet reseated

    def __post_init__(self) -> None:
        self.meetings = np.zeros((self.size, self.size), dtype=np.int64)
        self.positions = np.zeros((self.size, self.players), dtype=np.int64)
        self._grid: np.ndarray | None = None
        for number in range(self.per_entry):
            self._seat([(seat + number) % self.players for seat in range(self.players)])

    def grid(self) -> np.ndarray:
        """The tables as an array ``[table, seat]`` (rebuilt only after a change)."""
        if self._grid is None:
            self._grid = np.array(self.tables, dtype=np.int64)
        return self._grid

    def _seat(self, table: list[int]) -> None:
        self._grid = None
        self.tables.append(list(table))
        for position, member in enumerate(table):
            self.positions[member, position] += 1
            for other in table:
                if other != member:
                    self.meetings[member, other] += 1

    def add(self, entry: int, rng: np.random.Generator) -> None:
        """Seat ``entry`` at ``per_entry`` existing tables, displacing one entry from each; reseat the displaced."""
        grid = self.grid().copy()
        players = self.players
        quota = np.full(players, self.per_entry // players)
        quota[(entry + np.arange(self.per_entry % players)) % players] += 1
        noise = rng.random(grid.shape) * 1e-3
        used_table = np.zeros(len(grid), dtype=bool)
        owed = np.zeros(self.size, dtype=bool)
        owed[[member for member, _ in self.owed]] = True
        for _ in range(self.per_entry):
            cost = self._cost(grid, entry) + noise
            cost[used_table[:, None] | (quota[None, :] == 0)] = np.inf
            if np.isfinite(cost[~owed[grid]]).any():
                cost[owed[grid]] = np.inf  # an entry owed a table already is displaced again only in a tiny field
            flat = int(np.argmin(cost))
            if not np.isfinite(cost.flat[flat]):
                break  # nowhere left to sit: the entry plays fewer tables (a tiny field)
            table, seat = divmod(flat, players)
            owed[grid[table, seat]] = True
            self._replace(grid, table, seat, entry)
            used_table[table] = True
            quota[seat] -= 1
        self._reseat_owed()

    def _cost(self, grid: np.ndarray, entry: int) -> np.ndarray:
        """Per table and seat: the change in the pairs' penalty (:data:`_ADD`) if ``entry`` took that seat:
        ``entry`` meets the other members once more, the occupant once less."""
        gained = _ADD[self.meetings[entry][grid]]  # [table, seat]: entry meeting that member once more
        mine = gained.sum(1, keepdims=True) - gained
        lost = _REMOVE[self.meetings[grid[:, :, None], grid[:, None, :]]]  # [t, s, s']: occupant s, member s'
        cost: np.ndarray = mine + lost.sum(2) - _REMOVE[0]  # the diagonal (occupant with itself) is not a pair
        return cost

    def _replace(self, grid: np.ndarray, table: int, seat: int, entry: int) -> None:
        occupant = int(grid[table, seat])
        others = [member for position, member in enumerate(self.tables[table]) if position != seat]
        for other in others:
            self.meetings[occupant, other] -= 1
            self.meetings[other, occupant] -= 1
            self.meetings[entry, other] += 1
            self.meetings[other, entry] += 1
        self.positions[occupant, seat] -= 1
        self.positions[entry, seat] += 1
        self.tables[table][seat] = entry
        grid[table, seat] = entry
        self._grid = None
        self.owed.append((occupant, seat))

    def _reseat_owed(self) -> None:
        """New tables of displaced entries, each in the position it lost where possible, meeting least-met ones."""
        while len(set(member for member, _ in self.owed)) >= self.players:
            table: list[int] = []
            for position in range(self.players):
                choices = [i for i, (member, _) in enumerate(self.owed) if member not in table]
                same = [i for i in choices if self.owed[i][1] == position] or choices
                pick = min(same, key=lambda i: (int(_ADD[self.meetings[self.owed[i][0], table]].sum()), i))
                table.append(self.owed.pop(pick)[0])
            self._seat(table)

    def even_out(self, passes: int = 10) -> None:
        """Bring every pair's meetings to ``floor`` or ``ceil`` of their mean where swaps allow
        (a count outside them costs far more than any spread within them).

        Only swaps of two entries holding the same seat position at two tables: every
        entry keeps its number of tables and its seat positions. It touches few tables.
        """
        size = self.size
        upper = np.triu(np.ones((size, size), dtype=bool), 1)
        mean = self.meetings[upper].mean()
        low, high = int(np.floor(mean)), int(np.ceil(mean))
        counts = np.arange(-1, 66, dtype=np.float64)
        penalty = 1000 * np.maximum(0, np.maximum(low - counts, counts - high)) + counts ** 2
        add, remove = penalty[2:] - penalty[1:-1], np.concatenate([[0.0], penalty[1:-2] - penalty[2:-1]])
        holding: dict[int, list[int]] = {}
        for _ in range(passes):
            bad = np.argwhere(upper & ((self.meetings > high) | (self.meetings < low)))
            if not len(bad):
                return
            changed = False
            for a, b in bad.tolist():
                holding = self._holding()
                if self.meetings[a, b] > high:  # move a or b away from a table they share
                    options = [(first, seat, np.arange(len(self.tables))) for first in holding[a]
                               if b in self.tables[first]
                               for seat in (self.tables[first].index(a), self.tables[first].index(b))]
                else:  # bring one to a table of the other, in exchange for the member in its seat there
                    options = [(second, self.tables[second].index(one), np.array(holding[other]))
                               for one, other in ((a, b), (b, a)) for second in holding[one]]
                gain, swap = max((self._best_swap(*option, add, remove) for option in options), default=(0, None))
                if gain > 0 and swap is not None:
                    self._swap(*swap)
                    changed = True
            if not changed:
                return

    def _best_swap(self, first: int, seat: int, seconds: np.ndarray, add: np.ndarray,
                   remove: np.ndarray) -> tuple[float, tuple[int, int, int] | None]:
        """The best exchange of ``first``'s member at ``seat`` with the same seat of one of ``seconds``:
        ``(drop in the pairs' penalty, (first, second, seat))``, the penalty's steps given by ``add``/``remove``."""
        grid = self.grid()
        m = self.meetings
        a = grid[first, seat]
        rest_a = np.delete(grid[first], seat)
        others = grid[seconds]
        c = others[:, seat]
        rest_c = np.delete(others, seat, axis=1)
        allowed = (seconds != first) & ~(others == a).any(1) & ~np.isin(c, grid[first])
        change = ((add[m[c[:, None], rest_a[None, :]]] + remove[m[a, rest_a]][None, :]).sum(1)
                  + (add[m[a, rest_c]] + remove[m[c[:, None], rest_c]]).sum(1))
        change[~allowed] = np.inf
        if not len(change):
            return 0, None
        best = int(np.argmin(change))
        return -float(change[best]), (first, int(seconds[best]), seat)

    def even_seats(self, passes: int = 10) -> None:
        """Exchange the seats of two members of one table while that evens out seat positions
        (the sum of squared position counts drops); meetings do not change."""
        positions = np.zeros((self.size, self.players), dtype=np.int64)
        for table in self.tables:
            positions[table, range(self.players)] += 1
        for _ in range(passes):
            changed = False
            for table in self.tables:
                for i, j in itertools.combinations(range(self.players), 2):
                    a, b = table[i], table[j]
                    # a: i -> j, b: j -> i; the drop in sum of squares, halved
                    gain = (positions[a, i] - positions[a, j] - 1) + (positions[b, j] - positions[b, i] - 1)
                    if gain > 0:
                        positions[a, i] -= 1
                        positions[a, j] += 1
                        positions[b, j] -= 1
                        positions[b, i] += 1
                        table[i], table[j] = b, a
                        self._grid = None
                        changed = True
            if not changed:
                return

    def _swap(self, first: int, second: int, seat: int) -> None:
        """Exchange the members at ``seat`` of two tables, keeping the meetings up to date."""
        a, b = self.tables[first][seat], self.tables[second][seat]
        for table, out, into in ((first, a, b), (second, b, a)):
            for other in self.tables[table]:
                if other != out:
                    self.meetings[out, other] -= 1
                    self.meetings[other, out] -= 1
                    self.meetings[into, other] += 1
                    self.meetings[other, into] += 1
            self.tables[table][seat] = into
            if self._grid is not None:
                self._grid[table, seat] = into

    def _holding(self) -> dict[int, list[int]]:
        """Per entry, the tables it sits at."""
        holding: dict[int, list[int]] = {entry: [] for entry in range(self.size)}
        for number, table in enumerate(self.tables):
            for member in table:
                holding[member].append(number)
        return holding

    def finish(self) -> None:
        """Fill last tables for entries still owed one, with the entries that met them least."""
        while self.owed:
            table = list(dict.fromkeys(member for member, _ in self.owed))[:self.players]
            for member in table:
                self.owed.remove(next(item for item in self.owed if item[0] == member))
            while len(table) < self.players:
                candidates = [e for e in range(self.size) if e not in table]
                table.append(min(candidates, key=lambda e: (int(_ADD[self.meetings[e, table]].sum()), e)))
            self._seat(table)
