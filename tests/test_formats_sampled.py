"""format = "sampled": table counts, balanced pairs and seats, determinism, stability when the field grows, speed."""

from __future__ import annotations

import collections
import itertools
import time

import pytest

from arena.formats.sampled import sampled_tables


def names(count: int) -> list[str]:
    return [f"bot{number}" for number in range(count)]


def meetings(entries: list[str], tables: list[tuple[str, ...]]) -> list[int]:
    pairs = collections.Counter(frozenset(pair) for table in tables for pair in itertools.combinations(table, 2))
    return [pairs[frozenset(pair)] for pair in itertools.combinations(entries, 2)]


@pytest.mark.parametrize("seed", [1, 2, b"secret"])
def test_forty_entries_each_at_its_table_count_with_pairs_within_one(seed):
    entries = names(40)
    tables = sampled_tables(entries, 4, 20, seed)
    assert len(tables) == 40 * 20 // 4
    assert all(len(set(table)) == 4 for table in tables)
    assert collections.Counter(e for table in tables for e in table) == {e: 20 for e in entries}
    counts = collections.Counter(meetings(entries, tables))  # each pair meets 60 / 39 = 1.54 times on average
    assert set(counts) <= {0, 1, 2, 3}
    assert counts[1] + counts[2] >= 0.99 * sum(counts.values())  # 1 or 2: within one; a stray pair at most
    seats = collections.Counter((e, seat) for table in tables for seat, e in enumerate(table))
    assert set(seats.values()) <= {4, 5, 6}  # 20 tables over 4 seats: 5 per seat, within one


def test_most_draws_are_exactly_within_one():
    entries = names(40)
    exact = sum(max(meetings(entries, t)) - min(meetings(entries, t)) <= 1
                for t in (sampled_tables(entries, 4, 20, seed) for seed in range(1, 7)))
    assert exact >= 5


def test_the_same_arguments_give_the_same_tables_and_another_seed_others():
    entries = names(25)
    assert sampled_tables(entries, 3, 6, 9) == sampled_tables(list(entries), 3, 6, 9)
    assert sampled_tables(entries, 3, 6, 9) != sampled_tables(entries, 3, 6, 10)


def test_appending_an_entry_keeps_most_tables():
    entries = names(40)
    before = sampled_tables(entries, 4, 20, 5)
    after = sampled_tables(entries + ["newcomer"], 4, 20, 5)
    kept = len(set(before) & set(after))
    assert kept >= len(before) - 20 - 20  # all but the 20 the newcomer joins and a few the evening-out touched
    assert sum("newcomer" in table for table in after) == 20


@pytest.mark.parametrize("count, players, per_entry", [(10, 3, 7), (7, 4, 4), (30, 5, 7), (3, 4, 2), (4, 4, 3)])
def test_uneven_and_small_fields_give_each_entry_about_its_count(count, players, per_entry):
    entries = names(count)
    tables = sampled_tables(entries, players, per_entry, 1)
    played = collections.Counter(e for table in tables for e in set(table))
    assert all(per_entry <= played[e] <= per_entry + 1 for e in entries)
    if count >= players:
        assert all(len(set(table)) == players for table in tables)


def test_a_hundred_entries_are_drawn_in_under_a_second():
    began = time.process_time()
    tables = sampled_tables(names(100), 4, 20, 1)
    assert time.process_time() - began < 1.0
    assert len(tables) == 500


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        sampled_tables(["a"], 4, 3, 1)
    with pytest.raises(ValueError):
        sampled_tables(["a", "a", "b"], 2, 3, 1)
