"""format = "ladder": similar ratings meet, new entries play more, rounds are pure, the top settles."""

from __future__ import annotations

import collections
import random

import pytest

from arena.formats.ladder import Standing, ladder_round, order_probability, settled
from arena.standings.raters import rate


def test_entries_of_similar_rating_sit_together():
    standings = [Standing(f"e{rank}", 40 - 3 * rank, 0.5, 50) for rank in range(8)]
    tables = ladder_round(standings, 3, 11, 4)
    assert sorted(map(sorted, tables)) == [["e0", "e1", "e2", "e3"], ["e4", "e5", "e6", "e7"]]


def test_new_and_uncertain_entries_play_more():
    standings = [Standing(f"old{n}", 25 + n, 1.0, 40) for n in range(9)] + [Standing("new", 25, 25 / 3, 0)]
    tables = ladder_round(standings, 1, 3, 3)
    seats = collections.Counter(entry for table in tables for entry in table)
    assert seats["new"] >= 2 and all(1 <= seats[f"old{n}"] < seats["new"] for n in range(9))
    assert all(len(set(table)) == 3 for table in tables)


def test_a_round_follows_from_the_seed_the_round_and_the_standings_only():
    standings = [Standing(f"e{n}", 25 + n % 3, 2 + n % 4, n) for n in range(11)]
    assert ladder_round(standings, 2, b"k", 4) == ladder_round(list(reversed(standings)), 2, b"k", 4)
    assert ladder_round(standings, 2, b"k", 4) != ladder_round(standings, 3, b"k", 4)


def test_settled_needs_every_adjacent_pair_of_the_top_decided():
    clear = [Standing("a", 30, 1, 9), Standing("b", 25, 1, 9), Standing("c", 20, 1, 9), Standing("d", 19.9, 1, 9)]
    assert settled(clear, 2, 0.95)  # a > b, b > c
    assert not settled(clear, 3, 0.95)  # c against d (who is third) is not decided
    assert order_probability(clear[0], clear[1]) > 0.99 and order_probability(clear[2], clear[3]) < 0.6
    with pytest.raises(ValueError):
        settled(clear, 0, 0.95)


def play_ladder(seed: int, budget: int) -> tuple[list[list[tuple[str, ...]]], list[Standing]]:
    """A ladder of three clearly different strengths (two entries each), played with synthetic games."""
    strength = {"strong1": 3.0, "strong2": 3.0, "middle1": 0.0, "middle2": 0.0, "weak1": -3.0, "weak2": -3.0}
    rng = random.Random(seed)
    games: list[tuple[list[str], list[int]]] = []
    standings = [Standing(entry, 25.0, 25 / 3, 0) for entry in strength]
    rounds = []
    for number in range(1, budget + 1):
        tables = ladder_round(standings, number, seed, 3)
        rounds.append(tables)
        for table in tables:
            for rotation in range(3):
                seated = list(table[rotation:] + table[:rotation])
                score = [strength[e] + rng.gauss(0, 1) for e in seated]
                games.append((seated, [1 + sum(o > s for o in score) for s in score]))
        ratings = rate("trueskill", games)
        played = collections.Counter(e for seated, _ in games for e in set(seated))
        standings = [Standing(e, ratings[e].mu, ratings[e].sigma, played[e]) for e in strength]
        grouped = [Standing(kind, sum(s.mu for s in standings if s.entry.startswith(kind)) / 2,
                            max(s.sigma for s in standings if s.entry.startswith(kind)), 0)
                   for kind in ("strong", "middle", "weak")]
        if settled(grouped, 2, 0.95):
            break
    return rounds, standings


def test_three_clearly_different_strengths_settle_before_the_budget_the_same_every_time():
    rounds, standings = play_ladder(seed=5, budget=30)
    assert len(rounds) < 30
    order = [s.entry.rstrip("12") for s in sorted(standings, key=lambda s: -s.mu)]
    assert order == ["strong", "strong", "middle", "middle", "weak", "weak"]
    assert play_ladder(seed=5, budget=30) == (rounds, standings)
