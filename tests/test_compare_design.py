"""The paired duplicate schedule of `arena compare`: twins differ only by the bot under test."""

from __future__ import annotations

import pytest

from arena.compare.design import Design, distinct_names
from arena.entrants import parse_spec
from arena.errors import CompareError
from arena.match import Limits
from arena.runs import seeds


def specs_of(design: Design, blocks: int, plugins, versions: dict | None = None) -> list:
    """The design's first ``blocks`` blocks under its public seed; every bot at version "v1" unless given."""
    known = {entrant.name: "v1" for entrant in design.entrants} | (versions or {})
    return design.specs(blocks, "none", plugins, seeds.public_secret(design.seed), known)


def make_design(plugins, players: int = 4, field_specs: tuple[str, ...] = ("random",), **changes) -> Design:
    candidate, baseline = distinct_names(parse_spec("appraiser", plugins), parse_spec("random", plugins))
    entries = [parse_spec(spec, plugins) for spec in field_specs]
    settings = dict(name="cmp", game="modern-art", players=players, options={"phantom": False, "double_split": False},
                    candidate=candidate, baseline=baseline,
                    field=tuple(entries[i % len(entries)] for i in range(players - 1)), seed=3, limits=Limits())
    settings.update(changes)
    return Design(**settings)


def test_each_block_pairs_every_seat_with_the_same_deal_seeds_and_field(plugins):
    design = make_design(plugins, field_specs=("random", "r2=py:arena_bots.random_bot:RandomBot"))
    tasks = specs_of(design, 2, plugins)
    assert [task.order for task in tasks] == list(range(16))
    for block in (tasks[:8], tasks[8:]):
        seats_under_test = []
        for candidate, baseline in zip(block[::2], block[1::2]):
            assert (candidate.table, baseline.table) == ("t1", "t2")
            assert candidate.setup == baseline.setup == block[0].setup
            assert candidate.bot_seeds == baseline.bot_seeds and candidate.seed == baseline.seed
            differing = [seat for seat in range(4) if candidate.entrants[seat] != baseline.entrants[seat]]
            assert len(differing) == 1
            seat = differing[0]
            assert (candidate.entrants[seat].name, baseline.entrants[seat].name) == ("appraiser", "random")
            assert seat == design.seat_under_test(candidate.rotation)
            seats_under_test.append(seat)
        assert sorted(seats_under_test) == [0, 1, 2, 3]
    assert tasks[0].setup != tasks[8].setup  # another deal
    assert tasks[0].id == "cmp/modern-art/t1/d1/r1" and tasks[15].id == "cmp/modern-art/t2/d2/r4"


def test_a_changed_candidate_changes_the_keys_of_its_games_only(plugins):
    design = make_design(plugins, players=3)
    before = specs_of(design, 2, plugins)
    after = specs_of(design, 2, plugins, versions={"appraiser": "v2"})
    assert [spec.id for spec in before] == [spec.id for spec in after]
    assert [spec.key == other.key for spec, other in zip(before, after)] == [spec.table == "t2" for spec in before]


def test_the_schedule_follows_from_the_seed_alone(plugins):
    first = specs_of(make_design(plugins), 1, plugins)
    again = specs_of(make_design(plugins), 1, plugins)
    other = specs_of(make_design(plugins, seed=4), 1, plugins)
    assert first == again
    assert first[0].setup != other[0].setup


def test_a_bot_compared_with_itself_gets_two_names(plugins):
    candidate, baseline = distinct_names(parse_spec("appraiser", plugins), parse_spec("appraiser", plugins))
    assert (candidate.name, baseline.name) == ("appraiser (candidate)", "appraiser (baseline)")
    assert candidate.target == baseline.target == "appraiser"


def test_the_definition_changes_with_what_decides_the_games(plugins):
    base = make_design(plugins)
    assert base.digest() == make_design(plugins).digest()
    assert base.digest() != make_design(plugins, seed=9).digest()
    assert base.digest() != make_design(plugins, limits=Limits(move_ms=50)).digest()
    assert base.definition()["kind"] == "compare"


@pytest.mark.parametrize("changes, problem", [
    ({"name": "a/b"}, "names a folder"),
    ({"field": ()}, "needs 3 field bots"),
])
def test_impossible_designs_are_refused(plugins, changes, problem):
    with pytest.raises(CompareError, match=problem):
        make_design(plugins, **changes)


def test_two_different_bots_under_one_name_are_refused(plugins):
    impostor = parse_spec("appraiser=py:arena_bots.random_bot:RandomBot", plugins)
    with pytest.raises(CompareError, match="two different bots are named 'appraiser'"):
        make_design(plugins, field=(impostor,) * 3)
