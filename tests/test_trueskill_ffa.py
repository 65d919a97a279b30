"""The free-for-all TrueSkill update against the ``trueskill`` library, its reference.

The library stays the judge: every rating here is compared with what
``trueskill.TrueSkill(...).rate`` returns in the same environment.
"""

from __future__ import annotations

import random

import pytest
import trueskill

from arena.standings import trueskill_ffa
from arena.standings.raters import TRUESKILL_ENVIRONMENT, Rater, rate

ENV = trueskill.TrueSkill(**TRUESKILL_ENVIRONMENT)
TOLERANCE = 1e-9


def library(ratings: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """The library's new (mu, sigma) per player."""
    return [(rating.mu, rating.sigma)
            for (rating,) in ENV.rate([(ENV.create_rating(mu, sigma),) for mu, sigma in ratings], ranks=ranks)]


def ours(ratings: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """Ours, read back as a ``trueskill.Rating`` made from it reports it (what the library returns)."""
    return [trueskill_ffa.rating_values(mu, sigma) for mu, sigma in trueskill_ffa.rate(ratings, ranks)]


def random_game(rng: random.Random) -> tuple[list[tuple[float, float]], list[int]]:
    """2 to 5 players with random priors and placings drawn from 1..players (so ties are common)."""
    players = rng.randint(2, 5)
    ratings = [(rng.uniform(-5.0, 55.0), rng.uniform(0.2, 12.0)) for _ in range(players)]
    ranks = [rng.randint(1, players) for _ in range(players)]
    return ratings, ranks


def test_environment_is_the_arenas():
    assert (trueskill_ffa.MU, trueskill_ffa.SIGMA, trueskill_ffa.BETA, trueskill_ffa.TAU,
            trueskill_ffa.DRAW_PROBABILITY) == tuple(TRUESKILL_ENVIRONMENT.values())
    assert trueskill_ffa.DRAW_MARGIN == trueskill.calc_draw_margin(0.10, 2, ENV)


def test_ten_thousand_random_games_match_the_library():
    rng = random.Random(20261204)
    compared = ties = errors = 0
    sizes = set()
    for _ in range(10_000):
        ratings, ranks = random_game(rng)
        try:
            expected = library(ratings, ranks)
        except FloatingPointError:  # an upset too large for the library's precision: ours says the same
            with pytest.raises(FloatingPointError):
                ours(ratings, ranks)
            errors += 1
            continue
        got = ours(ratings, ranks)
        for (mu, sigma), (want_mu, want_sigma) in zip(got, expected):
            assert abs(mu - want_mu) <= TOLERANCE and abs(sigma - want_sigma) <= TOLERANCE, (ratings, ranks)
        compared += 1
        ties += len(set(ranks)) < len(ranks)
        sizes.add(len(ranks))
    assert compared >= 9_900 and ties >= 3_000 and sizes == {2, 3, 4, 5}
    assert errors < 100


def test_results_are_the_librarys_bit_for_bit():
    """Same operations in the same order: not close, equal (so a long run's ratings never drift apart)."""
    rng = random.Random(7)
    for _ in range(500):
        ratings, ranks = random_game(rng)
        try:
            expected = library(ratings, ranks)
        except FloatingPointError:
            continue
        assert ours(ratings, ranks) == expected


def test_placings_in_any_order_and_any_rank_numbers():
    ratings = [(20.0, 5.0), (30.0, 3.0), (25.0, 8.0), (27.0, 1.5)]
    for ranks in ([4, 1, 3, 2], [10, 0, 10, 7], [2, 2, 2, 2], [1, 1, 2, 2]):
        assert ours(ratings, ranks) == library(ratings, ranks)


def test_the_update_moves_ratings_as_trueskill_should():
    (winner, loser) = ours([(25.0, 25 / 3)] * 2, [1, 2])
    assert winner[0] > 25.0 > loser[0] and winner[1] < 25 / 3
    (first, second) = ours([(25.0, 25 / 3)] * 2, [1, 1])
    assert first == pytest.approx(second) and first[0] == pytest.approx(25.0)


def test_what_the_library_refuses_is_refused_alike():
    with pytest.raises(ValueError, match="multiple rating groups"):
        trueskill_ffa.rate([(25.0, 8.0)], [1])
    with pytest.raises(ValueError, match="Wrong ranks"):
        trueskill_ffa.rate([(25.0, 8.0), (25.0, 8.0)], [1, 2, 3])
    with pytest.raises(FloatingPointError):  # a win far beyond the library's precision
        ENV.rate([(ENV.create_rating(-200, 1),), (ENV.create_rating(200, 1),)], ranks=[1, 2])
    with pytest.raises(FloatingPointError):
        trueskill_ffa.rate([(-200.0, 1.0), (200.0, 1.0)], [1, 2])


def test_teams_and_weights_go_to_the_library():
    a, b, c, d = (ENV.create_rating(mu, sigma) for mu, sigma in ((20, 5), (30, 3), (25, 8), (27, 2)))
    teams = [(a, b), (c, d)]
    assert trueskill_ffa.rate_groups(teams, ranks=[2, 1]) == [tuple(group) for group in ENV.rate(teams, [2, 1])]
    weighted = ENV.rate([(a,), (b,), (c,)], ranks=[1, 2, 3], weights=[(0.5,), (1,), (1,)])
    assert trueskill_ffa.rate_groups([(a,), (b,), (c,)], [1, 2, 3], weights=[(0.5,), (1,), (1,)]) == \
        [tuple(group) for group in weighted]
    single = trueskill_ffa.rate_groups([(a,), (b,), (c,)], [3, 1, 2])
    assert [(r.mu, r.sigma) for (r,) in single] == \
        [(r.mu, r.sigma) for (r,) in ENV.rate([(a,), (b,), (c,)], ranks=[3, 1, 2])]


def library_rater(games: list[tuple[list[str], list[int]]]) -> dict[str, tuple[float, float]]:
    """The rating pass arena made with the library: one ``env.rate`` per game, a bot in several seats
    taking the mean of its seats' new mu and sigma."""
    current: dict[str, trueskill.Rating] = {}
    for bots, ranks in games:
        for bot in bots:
            current.setdefault(bot, ENV.create_rating(25.0, 25 / 3))
        updated = ENV.rate([(current[bot],) for bot in bots], ranks=ranks)
        if len(set(bots)) == len(bots):
            current.update({bot: rating for bot, (rating,) in zip(bots, updated)})
            continue
        for bot in dict.fromkeys(bots):
            mine = [rating for other, (rating,) in zip(bots, updated) if other == bot]
            current[bot] = ENV.create_rating(sum(r.mu for r in mine) / len(mine),
                                             sum(r.sigma for r in mine) / len(mine))
    return {bot: (rating.mu, rating.sigma) for bot, rating in current.items()}


def test_a_long_rating_pass_equals_the_librarys():
    """3,000 games of 3 to 5 seats among 12 bots, some holding two seats: the same ratings, exactly."""
    rng = random.Random(3)
    bots = [f"bot{number}" for number in range(12)]
    strength = {bot: rng.gauss(0, 1) for bot in bots}
    games = []
    for number in range(3_000):
        seated = rng.sample(bots, rng.randint(3, 5))
        if number % 50 == 0:
            seated[-1] = seated[0]  # one bot in two seats
        money = [round(3 * (strength[bot] + rng.gauss(0, 1))) for bot in seated]
        games.append((seated, [1 + sum(other > mine for other in money) for mine in money]))
    expected = library_rater(games)
    got = rate("trueskill", games)
    assert {bot: (rating.mu, rating.sigma) for bot, rating in got.items()} == expected
    rater = Rater("trueskill")
    for seated, ranks in games[:10]:
        rater.add(seated, ranks)
    assert rater.games == 10 and rater.rating(games[0][0][0]).sigma < 25 / 3


def test_games_of_six_to_nine_players_are_the_librarys_bit_for_bit():
    """Each number of players and pattern of draws has its chain written out: larger games too."""
    rng = random.Random(11)
    for _ in range(200):
        players = rng.randint(6, 9)
        ratings = [(rng.uniform(0.0, 50.0), rng.uniform(0.5, 10.0)) for _ in range(players)]
        ranks = [rng.randint(1, players) for _ in range(players)]
        try:
            expected = library(ratings, ranks)
        except FloatingPointError:
            continue
        assert ours(ratings, ranks) == expected, (ratings, ranks)


def test_placings_seen_before_are_still_checked_against_the_players():
    trueskill_ffa.rate([(25.0, 8.0), (25.0, 8.0)], [1, 2])  # the placings (1, 2) are now known
    with pytest.raises(ValueError, match="Wrong ranks"):
        trueskill_ffa.rate([(25.0, 8.0)] * 3, [1, 2])
    with pytest.raises(ValueError, match="multiple rating groups"):
        trueskill_ffa.rate([(25.0, 8.0)], [1])
