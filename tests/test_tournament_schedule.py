"""The schedule: tables for round-robin and gauntlet, duplicate deals over every seat rotation, seeds."""

from __future__ import annotations

from collections import Counter

import pytest

from arena.runs import seeds
from arena.tournament.config import parse_tournament
from arena.tournament.schedule import build_schedule, seatings
from tournament_files import tournament_data

RANDOMS = [{"spec": "random"}] + [{"spec": f"r{i}=py:arena_bots.random_bot:RandomBot"} for i in range(2, 6)]


def tournament(plugins, bots, games, form="round-robin", deals=2, seed=11):
    data = tournament_data(bots, games, seed=seed, deals=deals, format=form)
    return parse_tournament(data, "cup.toml", plugins)


def tasks_of(plugins, bots, games, versions=None, **kwargs):
    """The specs of a tournament with a public seed; every bot at version "v1" unless ``versions`` says otherwise."""
    checked = tournament(plugins, bots, games, **kwargs)
    secret = seeds.public_secret(checked.seed)
    versions = {entrant.name: "v1" for entrant in checked.entrants} | (versions or {})
    return build_schedule(checked, plugins, secret).specs("none", plugins, secret, versions)


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
    assert len({task.id for task in tasks}) == len(tasks)
    assert tasks[0].id == "cup/modern-art/random+r2+r3/d1/r1"  # a table is named by its entries
    assert tasks[1].id == "cup/modern-art/random+r2+r3/d1/r2"
    assert tasks[3].id == "cup/modern-art/random+r2+r3/d2/r1"
    assert tasks[-1].id == "cup/silk-road/r3+r4/d2/r2"


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
    assert [t.id for t in other] == [t.id for t in first]
    assert all(a.setup != b.setup for a, b in zip(first, other))


def test_bots_that_do_not_play_a_game_are_left_out_of_its_tables(plugins):
    bots = [{"spec": "random"}, {"spec": "trader"}, RANDOMS[1]]
    schedule = build_schedule(tournament(plugins, bots, [{"name": "modern-art", "players": 3},
                                                         {"name": "silk-road", "players": 3}]), plugins,
                              seeds.public_secret(11))
    modern_art, silk_road = schedule.plans
    assert modern_art.left_out == ("trader",)
    assert [[e.name for e in table.entrants] for table in modern_art.tables] == [["random", "r2", "random"]]
    assert silk_road.left_out == ()
    assert schedule.summary()["games"][0]["left_out"] == ["trader"]


def test_deal_d_is_the_same_deal_at_every_table(plugins):
    tasks = tasks_of(plugins, RANDOMS[:4], [{"name": "silk-road", "players": 2}], deals=2)
    for deal in (1, 2):
        dealt = {(task.seed, str(task.setup)) for task in tasks if task.deal == deal}
        assert len(dealt) == 1
    assert tasks[0].setup != next(task.setup for task in tasks if task.deal == 2)


def test_adding_an_entry_keeps_every_stored_game_of_the_old_field(plugins):
    games = [{"name": "modern-art", "players": 3}]
    before = tasks_of(plugins, RANDOMS[:4], games)
    after = tasks_of(plugins, RANDOMS[:5], games)
    old = {task.id: task.key for task in before}
    kept = [task for task in after if task.id in old]
    assert len(kept) == len(before) and all(old[task.id] == task.key for task in kept)
    assert {task.table for task in after} - {task.table for task in before} == {
        "random+r2+r5", "random+r3+r5", "random+r4+r5", "r2+r3+r5", "r2+r4+r5", "r3+r4+r5"}


def test_a_changed_version_changes_the_keys_of_that_bots_games_only(plugins):
    games = [{"name": "silk-road", "players": 2}]
    before = tasks_of(plugins, RANDOMS[:3], games)
    after = tasks_of(plugins, RANDOMS[:3], games, versions={"r2": "v2"})
    for old, new in zip(before, after):
        assert old.id == new.id
        assert (old.key == new.key) == ("r2" not in old.names)


def test_a_bot_seed_says_nothing_about_the_deal_it_plays(plugins):
    """Deal and bot seeds come from separate keyed domains: equal inputs still give unrelated seeds."""
    secret = seeds.draw_secret()
    assert seeds.deal_seed(secret, "x", 1) != seeds.bot_seed(secret, "x", 1)
    assert seeds.deal_seed(secret, "x", 1) != seeds.deal_seed(seeds.draw_secret(), "x", 1)


def test_a_specs_key_is_the_hash_arena_always_made_so_stored_games_are_still_reused(plugins):
    """GameSpec.key writes the sorted JSON member by member (issue 25): the same text as ``json.dumps``."""
    import dataclasses
    import hashlib

    from arena.runs.spec import key_text

    specs = tasks_of(plugins, RANDOMS[:3], [{"name": "modern-art", "players": 3}, {"name": "silk-road", "players": 2}])
    varied = [dataclasses.replace(spec, id=f"{spec.id}/é ☃\"\\", game_version="g1",
                                  options={**spec.options, "x": {"b": [1.5, None, True], "a": "é"}})
              for spec in specs[::5]]
    for spec in specs + varied:
        assert spec.key == hashlib.sha256(key_text(spec).encode()).hexdigest(), spec.id
    # a key of this schedule as stores hold it (made by arena before this change)
    assert specs[5].id == "cup/modern-art/random+r2+r3/d2/r3"
    assert specs[5].key == "515857c42278379f600fe5c19642f6a352e1c50e1016dc42f6b72a4212b449d1"


def test_a_schedules_specs_are_the_specs_their_fields_make(plugins):
    """Specs are made the fast way (GameSpec.made): each holds every field and equals the constructor's spec."""
    import dataclasses

    from arena.runs.spec import GameSpec

    specs = tasks_of(plugins, RANDOMS[:3], [{"name": "modern-art", "players": 3}, {"name": "silk-road", "players": 2}])
    names = [field.name for field in dataclasses.fields(GameSpec)]
    for spec in specs:
        built = GameSpec(**{name: getattr(spec, name) for name in names})
        assert list(spec.__dict__) == names  # every field, no other
        assert spec == built and repr(spec) == repr(built) and spec.key == built.key


@pytest.mark.parametrize("form", ["round-robin", "gauntlet"])
def test_specs_made_when_asked_for_are_the_specs_made_at_once(plugins, form):
    """A schedule's lazy specs (made by the workers that play them) equal, place by place, the list made before
    the run: every field, every key, order equal to place; by index, negative index, slice and iteration."""
    from arena.runs.deals import LazySpecs, orders_by_game

    checked = tournament(plugins, RANDOMS, [{"name": "modern-art", "players": 3}, {"name": "silk-road", "players": 2}],
                         form=form, deals=3)
    secret = seeds.public_secret(checked.seed)
    versions = {entrant.name: "v1" for entrant in checked.entrants}
    schedule = build_schedule(checked, plugins, secret)
    at_once = schedule.specs("none", plugins, secret, versions)
    lazy = schedule.lazy_specs("none", plugins, secret, versions)
    assert isinstance(lazy, LazySpecs) and len(lazy) == len(at_once) > 0
    assert [lazy[place] for place in reversed(range(len(lazy)))] == at_once[::-1]  # asked for out of order
    assert list(lazy) == at_once and lazy[-1] == at_once[-1] and lazy[3:9] == at_once[3:9]
    assert [spec.key for spec in lazy] == [spec.key for spec in at_once]
    assert all(spec.order == place for place, spec in enumerate(lazy))
    assert orders_by_game(lazy) == orders_by_game(at_once) == {
        game: [spec.order for spec in at_once if spec.game == game] for game in ("modern-art", "silk-road")}
    with pytest.raises(IndexError):
        lazy[len(lazy)]
