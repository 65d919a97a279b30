"""The schedule: tables for round-robin and gauntlet, duplicate deals over every seat rotation, seeds."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.tournament.config import parse_tournament
from arena.tournament.schedule import build_schedule, seatings

RANDOMS = [{"spec": "random"}] + [{"spec": f"r{i}=py:arena_bots.random_bot:RandomBot"} for i in range(2, 6)]


def tournament(plugins, bots, games, form="round-robin", deals=2, seed=11):
    data = {"tournament": {"name": "cup", "seed": seed, "format": form, "deals": deals},
            "games": games, "bots": bots}
    return parse_tournament(data, "cup.toml", plugins)


def tasks_of(plugins, bots, games, **kwargs):
    return list(build_schedule(tournament(plugins, bots, games, **kwargs), plugins).tasks("none", plugins))


@pytest.mark.parametrize("form, entries, players, expected", [
    ("round-robin", "ABCD", 3, ["ABC", "ABD", "ACD", "BCD"]),
    ("round-robin", "ABCDE", 5, ["ABCDE"]),
    ("round-robin", "AB", 3, ["ABA"]),  # fewer entries than seats: repeated in order
    ("round-robin", "AB", 4, ["ABAB"]),
    ("gauntlet", "ABCD", 3, ["ABC", "ABD", "ACD"]),  # the first entry against every pair of the others
    ("gauntlet", "ABCD", 2, ["AB", "AC", "AD"]),
    ("gauntlet", "AB", 4, ["ABBB"]),  # fewer others than seats: the others repeated
    ("gauntlet", "ABC", 4, ["ABCB"]),
])
def test_tables(form, entries, players, expected):
    assert ["".join(table) for table in seatings(list(entries), players, form)] == expected


def test_round_robin_counts_ids_and_order(plugins):
    tasks = tasks_of(plugins, RANDOMS[:4], [{"name": "modern-art", "players": 3}, {"name": "silk-road", "players": 2}])
    by_game = Counter(task.game for task in tasks)
    assert by_game == {"modern-art": 4 * 2 * 3, "silk-road": 6 * 2 * 2}  # tables x deals x rotations
    assert [task.order for task in tasks] == list(range(len(tasks)))
    assert len({task.game_id for task in tasks}) == len(tasks)
    assert tasks[0].game_id == "cup/modern-art/t1/d1/r1"
    assert tasks[1].game_id == "cup/modern-art/t1/d1/r2"
    assert tasks[3].game_id == "cup/modern-art/t1/d2/r1"
    assert tasks[-1].game_id == "cup/silk-road/t6/d2/r2"


def test_gauntlet_counts(plugins):
    tasks = tasks_of(plugins, RANDOMS[:5], [{"name": "modern-art", "players": 3}], form="gauntlet", deals=3)
    assert len(tasks) == 6 * 3 * 3  # C(4, 2) tables of the first bot with two others
    assert all("random" in [e.name for e in task.entrants] for task in tasks)


def test_every_deal_is_played_once_in_each_rotation_with_the_same_cards(plugins):
    tasks = tasks_of(plugins, RANDOMS[:4], [{"name": "modern-art", "players": 4}], deals=3)
    deals: dict[tuple, list] = {}
    for task in tasks:
        deals.setdefault((task.table, task.deal), []).append(task)
    assert len(deals) == 1 * 3
    for rotations in deals.values():
        assert [task.rotation for task in rotations] == [1, 2, 3, 4]
        assert all(task.setup == rotations[0].setup for task in rotations)
        assert all(task.seed == rotations[0].seed for task in rotations)
        # each bot holds each seat (and so each hand) exactly once
        for seat in range(4):
            assert sorted(task.entrants[seat].name for task in rotations) == ["r2", "r3", "r4", "random"]
        # r2: every entry one seat lower, the first one in the last seat
        first, second = rotations[0].entrants, rotations[1].entrants
        assert list(second) == [*first[1:], first[0]]
    setups = [rotations[0].setup for rotations in deals.values()]
    assert all(setups[i] != setups[j] for i in range(3) for j in range(i))


def test_a_bot_keeps_its_seed_through_the_rotations_of_a_deal(plugins):
    tasks = tasks_of(plugins, RANDOMS[:3], [{"name": "silk-road", "players": 3}], deals=2)
    seeds: dict[tuple, set] = {}
    for task in tasks:
        for entrant, seed in zip(task.entrants, task.bot_seeds):
            seeds.setdefault((task.deal, entrant.name), set()).add(seed)
    assert all(len(found) == 1 for found in seeds.values())  # the same seed in every seat it takes
    assert len({next(iter(found)) for found in seeds.values()}) == len(seeds)  # and its own


def test_the_schedule_follows_only_from_the_file(plugins):
    games = [{"name": "silk-road", "players": 2}]
    first = tasks_of(plugins, RANDOMS[:3], games)
    assert first == tasks_of(plugins, RANDOMS[:3], games)
    other = tasks_of(plugins, RANDOMS[:3], games, seed=12)
    assert [t.game_id for t in other] == [t.game_id for t in first]
    assert all(a.setup != b.setup for a, b in zip(first, other))


def test_bots_that_do_not_play_a_game_are_left_out_of_its_tables(plugins):
    bots = [{"spec": "random"}, {"spec": "trader"}, RANDOMS[1]]
    schedule = build_schedule(tournament(plugins, bots, [{"name": "modern-art", "players": 3},
                                                         {"name": "silk-road", "players": 3}]), plugins)
    modern_art, silk_road = schedule.plans
    assert modern_art.left_out == ("trader",)
    assert [[e.name for e in table.entrants] for table in modern_art.tables] == [["random", "r2", "random"]]
    assert silk_road.left_out == ()
    assert schedule.summary()["games"][0]["left_out"] == ["trader"]


def test_skipped_games_are_not_scheduled_again(plugins):
    games = [{"name": "silk-road", "players": 2}]
    every = tasks_of(plugins, RANDOMS[:3], games)
    schedule = build_schedule(tournament(plugins, RANDOMS[:3], games), plugins)
    rest = list(schedule.tasks("none", plugins, skip={0, 1, 5}))
    assert rest == [task for task in every if task.order not in {0, 1, 5}]
