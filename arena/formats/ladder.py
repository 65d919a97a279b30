"""The ``ladder`` format: rounds of tables drawn from the standings, until the order at the top is settled.

Each round, :func:`ladder_round` draws tables from the standings after the
earlier rounds: entries of similar rating sit together (so the games tell
close entries apart), and new or uncertain entries sit at more tables (so
their rating firms up first). :func:`settled` says when to stop: the order of
every adjacent pair among the top ``top`` entries (and of the last of them
against the next one, who is in and who is out) is decided at the chosen
confidence. The tournament's ``rounds`` is the budget: with ``until =
"rounds"`` every round is played, with ``until = "settled"`` the ladder stops
at the first round after which :func:`settled` holds.

Both are pure functions of their arguments: the tables of round ``r`` follow
from the seed, ``r`` and the standings after round ``r - 1`` (which follow
from the games, rated in schedule order), so a ladder gives the same games
for any ``-j``, any scheduler and after a resume.

How a round is drawn:

1. every entry gets one slot, and ``extra`` more if it is *uncertain*: fewer
   than ``new_games`` games so far, or a sigma above ``uncertain_sigma``;
2. each slot draws a *position* from the entry's rating, ``mu + sigma * z``
   with ``z`` a seeded standard normal: uncertain entries wander more;
3. slots are added for the most uncertain entries until the last table is
   full (and an entry has at most one slot per table);
4. the slots sorted by position, best first, are cut into tables of
   ``players`` consecutive slots; an entry never sits twice at one table (a
   repeated slot trades places with the nearest slot of another entry that
   can take it; in a field too small for that, the slots are dealt round the
   tables instead);
5. each table's seats are rotated by the round number (every table is played
   in every rotation anyway, so this only varies the table order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from arena.formats.seeding import derived

__all__ = ["Standing", "ladder_round", "settled", "order_probability"]


@dataclass(frozen=True)
class Standing:
    """One entry's rating after the games played so far (the rater's mu and sigma; 25 and 25/3 when new)."""

    entry: str
    mu: float
    sigma: float
    games: int


def ladder_round(standings: list[Standing], round_number: int, seed: bytes | int, players: int,
                 extra: int = 1, new_games: int = 1, uncertain_sigma: float = 4.0) -> list[tuple[str, ...]]:
    """The tables of ladder round ``round_number`` (from 1): tuples of ``players`` entry names in seat order.

    :param standings: every entry of the game with its rating after the earlier rounds (order does not matter)
    :param round_number: the round being drawn, from 1
    :param seed: the tournament's seed or secret
    :param players: seats per table
    :param extra: more tables for an uncertain entry this round
    :param new_games: an entry with fewer games than this is uncertain
    :param uncertain_sigma: an entry with a larger sigma is uncertain
    :returns: the round's tables, best-rated first
    """
    if players < 2 or len(standings) < 2:
        raise ValueError(f"need at least 2 entries and 2 seats, got {len(standings)} entries, {players} seats")
    ordered = sorted(standings, key=lambda s: s.entry)
    if len(ordered) < players:  # one table, the entries repeated in order (as a round-robin does)
        return [tuple(ordered[seat % len(ordered)].entry for seat in range(players))]
    import numpy as np  # here, not with the module: a run that is no ladder starts its games without numpy

    rng = np.random.default_rng(derived(seed, "ladder", str(round_number)))
    uncertain = [s.games < new_games or s.sigma > uncertain_sigma for s in ordered]
    by_uncertainty = sorted(range(len(ordered)), key=lambda i: (-ordered[i].sigma, ordered[i].games,
                                                                 ordered[i].entry))
    counts = _slot_counts([1 + (extra if loose else 0) for loose in uncertain], by_uncertainty, players)
    slots = [index for index in range(len(ordered)) for _ in range(counts[index])]
    draws = rng.standard_normal(len(slots))
    position = [ordered[slot].mu + ordered[slot].sigma * z for slot, z in zip(slots, draws)]
    line = [slots[i] for i in sorted(range(len(slots)), key=lambda i: (-position[i], i))]
    tables = _cut(line, players, len(ordered))
    return [tuple(ordered[member].entry for member in _rotated(table, round_number)) for table in tables]


def _slot_counts(wanted: list[int], by_uncertainty: list[int], players: int) -> list[int]:
    """Tables per entry: as ``wanted``, topped up (most uncertain first) to fill the last table, and
    at most one per table (an entry cannot sit twice at a table)."""
    counts = list(wanted)
    while True:
        tables = max(1, -(-sum(counts) // players))
        if any(count > tables for count in counts):
            counts = [min(count, tables) for count in counts]
            continue
        if sum(counts) == tables * players:
            return counts
        room = [i for i in by_uncertainty if counts[i] < tables]  # the fewest added so far, most uncertain first
        counts[min(room, key=lambda i: (counts[i] - wanted[i], by_uncertainty.index(i)))] += 1


def _cut(line: list[int], players: int, size: int) -> list[list[int]]:
    """Cut ``line`` into tables of ``players``; a member repeated at a table trades with a later slot."""
    line = list(line)
    for start in range(0, len(line), players):
        for seat in range(start, start + players):
            if line[seat] in line[start:seat]:
                swap = next((later for later in range(start + players, len(line))
                             if line[later] not in line[start:start + players]), None)
                if swap is None:  # no later slot fits: take one from the nearest earlier table that can give one
                    swap = next((earlier for earlier in reversed(range(start))
                                 if line[earlier] not in line[start:start + players]
                                 and line[seat] not in line[earlier - earlier % players:
                                                            earlier - earlier % players + players]), None)
                if swap is not None:
                    line[seat], line[swap] = line[swap], line[seat]
    tables = [line[start:start + players] for start in range(0, len(line), players)]
    if size >= players and any(len(set(table)) < players for table in tables):
        # no single exchange helps (a small field): deal the slots, grouped by entry in line order,
        # round the tables; an entry has at most one slot per table, so it never sits twice
        grouped = sorted(line, key=lambda member: (line.index(member), member))
        tables = [grouped[number::len(tables)] for number in range(len(tables))]
    return tables


def _rotated(table: list[int], round_number: int) -> list[int]:
    shift = round_number % len(table)
    return table[shift:] + table[:shift]


def order_probability(upper: Standing, lower: Standing) -> float:
    """The probability that ``upper``'s skill is above ``lower``'s, their ratings taken as independent normals."""
    spread = math.hypot(upper.sigma, lower.sigma)
    if spread == 0:
        return 1.0 if upper.mu > lower.mu else 0.5 if upper.mu == lower.mu else 0.0
    return 0.5 * (1 + math.erf((upper.mu - lower.mu) / (spread * math.sqrt(2))))


def settled(standings: list[Standing], top: int, confidence: float) -> bool:
    """Whether the order of the top ``top`` entries is decided at ``confidence`` (e.g. 0.95).

    The entries sorted by mu (highest first): every adjacent pair among the
    first ``top``, and the ``top``-th against the next one (who is in the
    top), must hold with at least ``confidence`` probability
    (:func:`order_probability`). With ``top`` at least the number of entries,
    every adjacent pair counts.
    """
    if top < 1 or not 0 < confidence < 1:
        raise ValueError(f"need top >= 1 and 0 < confidence < 1, got top {top}, confidence {confidence}")
    ordered = sorted(standings, key=lambda s: (-s.mu, s.entry))
    pairs = zip(ordered[:top], ordered[1:top + 1])
    return all(order_probability(upper, lower) >= confidence for upper, lower in pairs)
