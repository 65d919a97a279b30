"""The paired statistics of `arena compare` against reference computations and simulated outcomes."""

from __future__ import annotations

import math
import random
import statistics
from statistics import NormalDist

import pytest

from arena.compare.stats import (
    IMPROVEMENT, IMPROVEMENT_TEST, MIN_BLOCKS, NO_VERDICT, NOT_BETTER, NOT_WORSE, REGRESSION, REGRESSION_TEST,
    VARIANCE_FLOOR, Pair, PairedStats, Sprt, Tally, elo_of_score, rank_scores, score_of_elo, t_quantile,
)
from arena.errors import CompareError


@pytest.mark.parametrize("ranks, scores", [
    ([1, 2, 3, 4], [1, 2 / 3, 1 / 3, 0]),       # no ties: evenly spaced from 1 to 0
    ([1, 1, 3], [0.75, 0.75, 0]),               # two tied first share places 1 and 2
    ([1, 2, 2], [1, 0.25, 0.25]),               # two tied last share places 2 and 3
    ([1, 1, 1, 1], [0.5] * 4),                  # everyone tied: everyone at the middle
    ([2, 1], [0, 1]),                           # two players: win 1, loss 0
    ([1, 2, 2, 2, 5], [1, 0.5, 0.5, 0.5, 0]),   # three tied in the middle
])
def test_rank_scores_share_tied_places_and_add_up_to_half_the_players(ranks, scores):
    assert rank_scores(ranks) == pytest.approx(scores)
    assert sum(rank_scores(ranks)) == pytest.approx(len(ranks) / 2)


def test_a_pair_compares_the_seat_the_bots_under_test_took():
    candidate = {"money": [50, 80, 30], "ranks": [2, 1, 3]}
    baseline = {"money": [60, 60, 10], "ranks": [1, 1, 3]}
    pair = Pair.of(candidate, baseline, seat=1)
    assert pair.score == pytest.approx(1 - 0.75)
    assert pair.money == 20
    assert pair.pair_score == pytest.approx(0.625)


def test_elo_and_pair_score_are_inverse_and_on_the_chess_scale():
    assert elo_of_score(0.5) == 0
    assert elo_of_score(score_of_elo(-20)) == pytest.approx(-20)
    assert elo_of_score(0.64) == pytest.approx(100, abs=0.5)
    assert elo_of_score(1.0) == math.inf and elo_of_score(0.0) == -math.inf


@pytest.mark.parametrize("level, df, expected", [
    # two-sided Student t quantiles from printed tables
    (0.95, 1, 12.706), (0.95, 2, 4.303), (0.95, 3, 3.182), (0.95, 5, 2.571),
    (0.95, 10, 2.228), (0.95, 30, 2.042), (0.95, 120, 1.980), (0.99, 10, 3.169), (0.90, 4, 2.132),
])
def test_t_quantile_matches_printed_tables(level, df, expected):
    assert t_quantile(level, df) == pytest.approx(expected, abs=5e-4)


def test_tally_gives_the_mean_variance_and_t_interval_of_its_values():
    values = [0.42, 0.55, 0.61, 0.47, 0.50, 0.39]
    tally = Tally()
    for value in values:
        tally.add(value)
    assert tally.mean == pytest.approx(statistics.fmean(values))
    assert tally.variance() == pytest.approx(statistics.variance(values))
    assert tally.variance(ddof=0) == pytest.approx(statistics.pvariance(values))
    half = 2.5706 * statistics.stdev(values) / math.sqrt(len(values))  # t(0.975, 5 df)
    low, high = tally.interval()
    assert (low, high) == pytest.approx((tally.mean - half, tally.mean + half), abs=1e-4)


def reference_llr(values: list[float], sprt: Sprt) -> float:
    """The log-likelihood ratio from its definition: normal densities, the variance fitted under each mean."""
    def log_likelihood(mean: float) -> float:
        variance = sum((x - mean) ** 2 for x in values) / len(values)
        model = NormalDist(mean, math.sqrt(variance))
        return sum(math.log(model.pdf(x)) for x in values)

    return log_likelihood(score_of_elo(sprt.elo1)) - log_likelihood(score_of_elo(sprt.elo0))


def test_llr_of_fixed_data_worked_out_by_hand():
    # mean 0.5, variance (0.01 + 0 + 0.01 + 0.0025 + 0.0025) / 5 = 0.005;
    # q0 = 0.5, q1 = 1 / (1 + 10 ** 0.05) = 0.4712494; (0.5 - q1)^2 = 0.00082660;
    # LLR = 5/2 * ln(0.005 / 0.00582660) = -0.38249
    tally = Tally()
    for value in (0.4, 0.5, 0.6, 0.45, 0.55):
        tally.add(value)
    assert Sprt(0, -20).llr(tally) == pytest.approx(-0.38249, abs=1e-5)


@pytest.mark.parametrize("sprt, mean, answers", [
    (Sprt(0, -20), 0.46, (NOT_WORSE, REGRESSION)),
    (Sprt(0, -50, 0.1, 0.02), 0.46, (NOT_WORSE, REGRESSION)),
    (Sprt(10, -10, 0.01, 0.1), 0.46, (NOT_WORSE, REGRESSION)),
    # improvement tests (fishtest's gainer bounds): H1 above H0, a better candidate accepted as an improvement
    (Sprt(0, 20), 0.54, (NOT_BETTER, IMPROVEMENT)),
    (Sprt(0, 20), 0.49, (NOT_BETTER, IMPROVEMENT)),
    (Sprt(-10, 30, 0.02, 0.1), 0.53, (NOT_BETTER, IMPROVEMENT)),
])
def test_llr_and_decisions_follow_the_reference_block_by_block(sprt, mean, answers):
    rng = random.Random(5)
    values = [min(1.0, max(0.0, rng.gauss(mean, 0.12))) for _ in range(300)]
    paired = PairedStats(sprt)
    expected_verdict, expected_at = None, None
    for count, value in enumerate(values, 1):
        llr = reference_llr(values[:count], sprt) if count >= 2 else 0.0
        if expected_verdict is None and count >= MIN_BLOCKS:
            if llr >= math.log((1 - sprt.beta) / sprt.alpha):
                expected_verdict, expected_at = answers[1], count
            elif llr <= math.log(sprt.beta / (1 - sprt.alpha)):
                expected_verdict, expected_at = answers[0], count
        paired.add_block([Pair(2 * value - 1, 0)])
        if count < 2 or statistics.pvariance(values[:count]) >= VARIANCE_FLOOR:  # the floor: next test
            assert paired.llr == pytest.approx(llr, rel=1e-9, abs=1e-9)
        if paired.decided:
            break
    assert expected_verdict is not None
    assert (paired.decided, paired.blocks.n) == (expected_verdict, expected_at)


def test_identical_play_is_accepted_as_not_worse_at_the_earliest_block():
    paired = PairedStats(Sprt(0, -20))
    verdicts = [paired.add_block([Pair(0.0, 0)] * 4) for _ in range(MIN_BLOCKS)]
    assert verdicts == [None] * (MIN_BLOCKS - 1) + [NOT_WORSE]
    gap = (0.5 - score_of_elo(-20)) ** 2
    assert paired.llr == pytest.approx(MIN_BLOCKS / 2 * math.log(VARIANCE_FLOOR / (VARIANCE_FLOOR + gap)))
    assert paired.draws == 4 * MIN_BLOCKS and paired.wins == paired.losses == 0
    assert paired.summary()["elo"] == {"value": 0.0, "low": 0.0, "high": 0.0}
    with pytest.raises(CompareError):
        paired.add_block([Pair(0.0, 0)])


def test_the_order_of_the_bounds_names_the_question():
    assert Sprt(0, -20).question == REGRESSION_TEST and Sprt(10, -10).question == REGRESSION_TEST
    assert Sprt(0, 20).question == IMPROVEMENT_TEST and Sprt(-20, 0).question == IMPROVEMENT_TEST
    assert PairedStats(Sprt(0, 5)).summary()["question"] == IMPROVEMENT_TEST
    assert PairedStats().summary()["question"] == REGRESSION_TEST  # the default stays a regression test


def test_identical_play_is_not_better_at_the_earliest_block_of_an_improvement_test():
    paired = PairedStats(Sprt(0, 20))
    verdicts = [paired.add_block([Pair(0.0, 0)] * 4) for _ in range(MIN_BLOCKS)]
    assert verdicts == [None] * (MIN_BLOCKS - 1) + [NOT_BETTER]
    assert paired.verdict() == NOT_BETTER and paired.llr <= paired.sprt.lower


def test_a_clearly_better_candidate_is_an_improvement_and_not_a_regression():
    better = [Pair(0.5, 10)] * 3 + [Pair(-0.1, 0)]
    gains, regressions = PairedStats(Sprt(0, 20)), PairedStats(Sprt(0, -20))
    for _ in range(40):
        if not gains.decided:
            gains.add_block(better)
        if not regressions.decided:
            regressions.add_block(better)
    assert gains.verdict() == IMPROVEMENT and regressions.verdict() == NOT_WORSE


@pytest.mark.parametrize("elo0, elo1, alpha, beta, problem", [
    (0, 0, 0.05, 0.05, "ELO1"), (20, 20, 0.05, 0.05, "ELO1"), (0, math.nan, 0.05, 0.05, "ELO1"),
    (0, -20, 0, 0.05, "alpha"), (0, -20, 0.05, 0.6, "beta"), (0, 20, 0.05, 0.5, "beta"),
])
def test_impossible_sprt_settings_are_refused_with_a_message(elo0, elo1, alpha, beta, problem):
    with pytest.raises(CompareError, match=problem):
        Sprt(elo0, elo1, alpha, beta)


def test_fixed_size_mode_reads_the_verdict_from_the_confidence_interval():
    worse, even, single = PairedStats(), PairedStats(), PairedStats()
    for value in (-0.3, -0.2, -0.25, -0.35):
        worse.add_block([Pair(value, -10), Pair(value, -30)])
    for value in (-0.3, 0.2, -0.1, 0.15):
        even.add_block([Pair(value, 5)])
    single.add_block([Pair(-1.0, -50)])
    assert worse.verdict() == REGRESSION and even.verdict() == NOT_WORSE and single.verdict() == NO_VERDICT
    summary = worse.summary()
    assert summary["losses"] == 8 and summary["pairs"] == 8 and summary["blocks"] == 4
    assert summary["money_difference"]["value"] == pytest.approx(-20)
    assert summary["score_difference"]["value"] == pytest.approx(-0.275)
    assert summary["score_difference"]["high"] < 0
    assert "sprt" not in summary


def test_fixed_size_improvement_needs_the_whole_interval_above_zero():
    better, even, worse = (PairedStats(fixed_question=IMPROVEMENT_TEST) for _ in range(3))
    for value in (0.3, 0.2, 0.25, 0.35):
        better.add_block([Pair(value, 10)])
        worse.add_block([Pair(-value, -10)])
    for value in (-0.3, 0.2, -0.1, 0.15):
        even.add_block([Pair(value, 5)])
    assert (better.verdict(), even.verdict(), worse.verdict()) == (IMPROVEMENT, NOT_BETTER, NOT_BETTER)
    assert better.summary()["question"] == IMPROVEMENT_TEST and better.summary()["score_difference"]["low"] > 0


# -- error rates on simulated outcomes: the same SPRT code, fed like a real comparison --

PLAYERS = 4
LEVELS = [k / (PLAYERS - 1) for k in range(PLAYERS)]
MEAN_ABS_DIFFERENCE = statistics.fmean(abs(a - b) for a in LEVELS for b in LEVELS)


def simulated_run(rng: random.Random, sprt: Sprt, true_elo: float, max_blocks: int = 400) -> str:
    """One comparison of 4-player blocks whose pairs have mean pair score ``score_of_elo(true_elo)``.

    Each pair's rank scores are drawn independently (no help from the pairing);
    a weaker candidate turns a share of pairs into their losing side, a stronger one into their winning side.
    """
    shift = (2 * score_of_elo(true_elo) - 1) / MEAN_ABS_DIFFERENCE  # < 0 weaker, > 0 stronger
    paired = PairedStats(sprt)
    for _ in range(max_blocks):
        pairs = []
        for _ in range(PLAYERS):
            difference = rng.choice(LEVELS) - rng.choice(LEVELS)
            if rng.random() < abs(shift):
                difference = math.copysign(abs(difference), shift)
            pairs.append(Pair(difference, 0))
        if paired.add_block(pairs):
            break
    return paired.verdict()


@pytest.mark.parametrize("sprt", [Sprt(0, -20, 0.05, 0.05), Sprt(0, -30, 0.1, 0.02)])
def test_false_alarms_for_an_equal_candidate_stay_within_alpha(sprt):
    rng = random.Random(2024)
    runs = 600
    alarms = sum(simulated_run(rng, sprt, true_elo=0.0) == REGRESSION for _ in range(runs))
    assert alarms / runs <= sprt.alpha + 0.03


@pytest.mark.parametrize("sprt", [Sprt(0, -20, 0.05, 0.05), Sprt(0, -30, 0.02, 0.1)])
def test_a_regression_of_elo1_is_missed_at_most_beta_of_the_time(sprt):
    rng = random.Random(7)
    runs = 600
    missed = sum(simulated_run(rng, sprt, true_elo=sprt.elo1) == NOT_WORSE for _ in range(runs))
    assert missed / runs <= sprt.beta + 0.03


@pytest.mark.parametrize("sprt", [Sprt(0, 20, 0.05, 0.05), Sprt(0, 30, 0.1, 0.02)])
def test_false_gains_for_an_equal_candidate_stay_within_alpha(sprt):
    rng = random.Random(2025)
    runs = 600
    gains = sum(simulated_run(rng, sprt, true_elo=0.0) == IMPROVEMENT for _ in range(runs))
    assert gains / runs <= sprt.alpha + 0.03


@pytest.mark.parametrize("sprt", [Sprt(0, 20, 0.05, 0.05), Sprt(0, 30, 0.02, 0.1)])
def test_an_improvement_of_elo1_is_missed_at_most_beta_of_the_time(sprt):
    rng = random.Random(8)
    runs = 600
    missed = sum(simulated_run(rng, sprt, true_elo=sprt.elo1) == NOT_BETTER for _ in range(runs))
    assert 0 < missed / runs <= sprt.beta + 0.03
