"""Paired statistics of a comparison: scores, confidence intervals and the sequential test.

The score of one game is rank-based: a seat ranked ``r`` of ``P`` players scores
``(P - r) / (P - 1)`` (1 for first, 0 for last), and seats tied on money share
the places they cover equally (two seats tied first of three score 0.75 each),
so the scores of a game always add up to ``P / 2``. Money is reported too.

A *pair* is two games of the same deal with the same field, seeds and seat:
the candidate's game and the baseline's twin. Its score difference is
``d = candidate's score - baseline's score`` (in -1..1, 0 when both did
equally well) and its *pair score* is ``q = (1 + d) / 2`` (in 0..1, 0.5 even);
a pair is a win, draw or loss for the candidate as ``d`` is above, at or
below 0. A *block* is the pairs of one deal, one per seat. Deals are
independent draws, the pairs of one deal are not, so every estimate and the
test treat a block's mean as one observation.

The Elo-like difference of a mean pair score ``q`` is ``400 log10(q / (1 - q))``,
the logistic scale chess players know: +100 means a pair score of 0.64. It
is a convenient unit for hypotheses, not a rating comparable across games.

The sequential probability ratio test weighs two hypotheses about the mean
pair score ``q``: H0 ``q = q(ELO0)`` against H1 ``q = q(ELO1)``. Their order
says which question is asked (fishtest's two kinds of test):

- a *regression test* (ELO1 < ELO0, the default 0,-20): H0 no regression,
  H1 a regression of the size worth catching; H1 accepted is
  :data:`REGRESSION`, H0 accepted :data:`NOT_WORSE`;
- an *improvement test* (ELO1 > ELO0, e.g. 0,20, fishtest's gainer bounds):
  H0 no gain, H1 a gain worth having; H1 accepted is :data:`IMPROVEMENT`,
  H0 accepted :data:`NOT_BETTER`.

Its statistic is the generalized log-likelihood ratio of a normal
model with unknown variance (the variance profiled out under each hypothesis):

    LLR = n/2 * log((v + (m - q0)^2) / (v + (m - q1)^2))

with ``n`` blocks, ``m`` the mean and ``v`` the (maximum-likelihood) variance of
the block means, floored at :data:`VARIANCE_FLOOR` so that identical play
(a bot against itself) gives a finite ratio. After each block, in schedule
order: ``LLR >= log((1 - beta) / alpha)`` accepts H1 (a regression, or an
improvement); ``LLR <= log(beta / (1 - alpha))`` accepts H0 (not worse, or not
better). So ``alpha`` bounds the rate of accepting H1 for a candidate at
ELO0 (a false alarm, or a false gain) and ``beta`` the rate of missing a
difference of ELO1. No decision is
taken before :data:`MIN_BLOCKS` blocks, when the variance is still a guess.

Why this form: plugging the sample variance into Wald's known-variance ratio,
``n (q1 - q0)(2m - q0 - q1) / (2v)``, decides faster when the candidate is far
from both hypotheses, but measured on simulated comparisons it raised the false
alarm rate from 5% to 8-9% (at alpha 0.05), because early variance estimates
are noisy; with the variance fitted under each hypothesis the rates stay near
alpha and beta (tests/test_compare_stats.py measures them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from statistics import NormalDist
from typing import Any

from arena.errors import CompareError

#: the smallest variance of block pair scores the test assumes (a standard deviation of 0.01)
VARIANCE_FLOOR = 1e-4
#: blocks needed before the test may decide
MIN_BLOCKS = 5
#: the largest Elo-like difference an SPRT bound may name (a pair score of 99.7%; far beyond, the arithmetic overflows)
MAX_ELO = 1000
#: the confidence level of every interval reported
CONFIDENCE = 0.95

#: the two questions a comparison asks: is the candidate worse, or is it better?
REGRESSION_TEST = "regression"
IMPROVEMENT_TEST = "improvement"
QUESTIONS = (REGRESSION_TEST, IMPROVEMENT_TEST)

NOT_WORSE = "not-worse"
REGRESSION = "regression"
IMPROVEMENT = "improvement"
NOT_BETTER = "not-better"
NO_VERDICT = "no-verdict"

#: each question's answers: (H0 accepted, H1 accepted)
ANSWERS = {REGRESSION_TEST: (NOT_WORSE, REGRESSION), IMPROVEMENT_TEST: (NOT_BETTER, IMPROVEMENT)}
#: the default SPRT bounds ELO0,ELO1 of each question
DEFAULT_BOUNDS = {REGRESSION_TEST: (0.0, -20.0), IMPROVEMENT_TEST: (0.0, 20.0)}


def question_of(elo0: float, elo1: float) -> str:
    """The question SPRT bounds ask: :data:`REGRESSION_TEST` when ELO1 < ELO0, :data:`IMPROVEMENT_TEST` when above."""
    return REGRESSION_TEST if elo1 < elo0 else IMPROVEMENT_TEST


def rank_scores(ranks: list[int]) -> list[float]:
    """Each seat's score from competition ranks: ``(P - rank) / (P - 1)``, tied seats sharing their places."""
    players = len(ranks)
    return [(players - rank - (ranks.count(rank) - 1) / 2) / (players - 1) for rank in ranks]


def score_of_elo(elo: float) -> float:
    """The pair score (0..1) of an Elo-like difference."""
    return 1 / (1 + 10 ** (-elo / 400))


def elo_of_score(score: float) -> float:
    """The Elo-like difference of a mean pair score (infinite at 0 and 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return 400 * math.log10(score / (1 - score))


@dataclass(frozen=True)
class Pair:
    """The candidate's game and the baseline's twin, seen from the seat they took."""

    score: float  # candidate's rank score minus the baseline's, in -1..1
    money: int  # candidate's final money minus the baseline's

    @classmethod
    def of(cls, candidate_result: dict[str, Any], baseline_result: dict[str, Any], seat: int) -> "Pair":
        """The pair of two games' results (``{"money", "ranks"}`` by seat) with the bot under test in ``seat``."""
        scores = [rank_scores(result["ranks"])[seat] for result in (candidate_result, baseline_result)]
        return cls(scores[0] - scores[1], candidate_result["money"][seat] - baseline_result["money"][seat])

    @property
    def pair_score(self) -> float:
        return (1 + self.score) / 2


def _two_sided_t_mass(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with ``df`` degrees of freedom (Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    cos2 = math.cos(theta) ** 2
    if df % 2 == 0:
        term = total = 1.0
        for k in range(1, df // 2):
            term *= cos2 * (2 * k - 1) / (2 * k)
            total += term
        return math.sin(theta) * total
    if df == 1:
        return 2 * theta / math.pi
    term = total = 1.0
    for k in range(1, (df - 1) // 2):
        term *= cos2 * (2 * k) / (2 * k + 1)
        total += term
    return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)


@lru_cache(maxsize=512)
def t_quantile(level: float, df: int) -> float:
    """The ``t`` with ``P(|T| <= t) = level`` (e.g. 12.706 for 0.95 and 1 degree of freedom)."""
    low, high = 0.0, 2 * NormalDist().inv_cdf((1 + level) / 2)
    while _two_sided_t_mass(high, df) < level:
        low, high = high, high * 2
    for _ in range(100):
        middle = (low + high) / 2
        if _two_sided_t_mass(middle, df) < level:
            low = middle
        else:
            high = middle
    return (low + high) / 2


@dataclass
class Tally:
    """Running count, sum and sum of squares of one value per block."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, value: float) -> None:
        self.n += 1
        self.total += value
        self.squares += value * value

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else math.nan

    def variance(self, ddof: int = 1) -> float:
        """The variance (``ddof=1``: the unbiased sample variance; ``ddof=0``: maximum likelihood)."""
        if self.n <= ddof:
            return math.nan
        return max(0.0, (self.squares - self.total * self.total / self.n) / (self.n - ddof))

    def interval(self, level: float = CONFIDENCE) -> tuple[float, float]:
        """The Student-t confidence interval of the mean (NaN with fewer than 2 values)."""
        if self.n < 2:
            return (math.nan, math.nan)
        half = t_quantile(level, self.n - 1) * math.sqrt(self.variance() / self.n)
        return (self.mean - half, self.mean + half)


@dataclass(frozen=True)
class Sprt:
    """The sequential test's hypotheses (Elo-like, see the module docstring) and error rates."""

    elo0: float = 0.0
    elo1: float = -20.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not (self.elo1 < self.elo0 or self.elo1 > self.elo0):  # NaN is refused too
            raise CompareError(
                f"SPRT bounds ELO0,ELO1 = {self.elo0:g},{self.elo1:g}: ELO1 must differ from ELO0; below it "
                "asks for a regression (e.g. 0,-20), above it for an improvement (e.g. 0,20)"
            )
        for name, rate in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < rate < 0.5:
                raise CompareError(f"{name} must be between 0 and 0.5, got {rate:g}")

    @property
    def question(self) -> str:
        """:data:`REGRESSION_TEST` (ELO1 < ELO0) or :data:`IMPROVEMENT_TEST` (ELO1 > ELO0)."""
        return question_of(self.elo0, self.elo1)

    @property
    def lower(self) -> float:
        """At or below this LLR, H0 (not worse; not better) is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """At or above this LLR, H1 (a regression; an improvement) is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, blocks: Tally) -> float:
        """The log-likelihood ratio of H1 over H0 given the block pair scores so far."""
        if blocks.n < 2:
            return 0.0
        variance = max(blocks.variance(ddof=0), VARIANCE_FLOOR)
        q0, q1 = score_of_elo(self.elo0), score_of_elo(self.elo1)
        mean = blocks.mean
        return blocks.n / 2 * math.log((variance + (mean - q0) ** 2) / (variance + (mean - q1) ** 2))

    def verdict(self, llr: float, blocks: int) -> str | None:
        """The answer of H1 or H0 (:data:`ANSWERS`), or None while the test goes on."""
        if blocks < MIN_BLOCKS:
            return None
        accept_h0, accept_h1 = ANSWERS[self.question]
        if llr >= self.upper:
            return accept_h1
        if llr <= self.lower:
            return accept_h0
        return None


@dataclass
class PairedStats:
    """The statistics of a comparison, fed one block at a time in schedule order.

    With an :class:`Sprt`, each block updates the LLR and the first block at which
    it crosses a bound fixes the verdict. Without one (fixed-size mode) the
    verdict is read from the confidence interval at the end: asking about a
    regression, a regression when the whole interval of the score difference
    lies below 0, else not worse; asking about an improvement, an improvement
    when it lies wholly above 0, else not better.
    """

    sprt: Sprt | None = None
    #: the question of fixed-size mode (with an SPRT, its bounds' question)
    fixed_question: str = REGRESSION_TEST
    blocks: Tally = field(default_factory=Tally)  # per block: mean pair score
    money: Tally = field(default_factory=Tally)  # per block: mean money difference
    wins: int = 0
    draws: int = 0
    losses: int = 0
    llr: float = 0.0
    decided: str | None = None

    def add_block(self, pairs: list[Pair]) -> str | None:
        """Count one block's pairs; the SPRT's verdict once it has one."""
        if self.decided:
            raise CompareError("the comparison was already decided; no block may follow")
        self.blocks.add(sum(pair.pair_score for pair in pairs) / len(pairs))
        self.money.add(sum(pair.money for pair in pairs) / len(pairs))
        for pair in pairs:
            if pair.score > 0:
                self.wins += 1
            elif pair.score < 0:
                self.losses += 1
            else:
                self.draws += 1
        if self.sprt is not None:
            self.llr = self.sprt.llr(self.blocks)
            self.decided = self.sprt.verdict(self.llr, self.blocks.n)
        return self.decided

    @property
    def pairs(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def question(self) -> str:
        """The question asked: the SPRT's, or in fixed-size mode :attr:`fixed_question`."""
        return self.sprt.question if self.sprt is not None else self.fixed_question

    def verdict(self) -> str:
        """The final verdict: the SPRT's, or the confidence interval's in fixed-size mode."""
        if self.sprt is not None:
            return self.decided or NO_VERDICT
        low, high = self.blocks.interval()
        if math.isnan(high):
            return NO_VERDICT
        if self.question == IMPROVEMENT_TEST:
            return IMPROVEMENT if low > 0.5 else NOT_BETTER
        return REGRESSION if high < 0.5 else NOT_WORSE

    def summary(self) -> dict[str, Any]:
        """Every figure the reports show, JSON-ready (None where a figure is undefined)."""
        low, high = self.blocks.interval()
        money_low, money_high = self.money.interval()
        summary: dict[str, Any] = {
            "blocks": self.blocks.n,
            "pairs": self.pairs,
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "score_difference": _estimate(2 * self.blocks.mean - 1, 2 * low - 1, 2 * high - 1),
            "pair_score": _estimate(self.blocks.mean, low, high),
            "elo": _estimate(*(elo_of_score(q) if not math.isnan(q) else q for q in (self.blocks.mean, low, high))),
            "money_difference": _estimate(self.money.mean, money_low, money_high),
            "confidence": CONFIDENCE,
            "question": self.question,
            "verdict": self.verdict(),
        }
        if self.sprt is not None:
            summary["sprt"] = {
                "elo0": self.sprt.elo0, "elo1": self.sprt.elo1,
                "alpha": self.sprt.alpha, "beta": self.sprt.beta,
                "llr": self.llr, "lower": self.sprt.lower, "upper": self.sprt.upper,
            }
        return summary


def _estimate(value: float, low: float, high: float) -> dict[str, float | None]:
    """``{"value", "low", "high"}`` with NaN and infinities as None (JSON has neither)."""
    return {key: number if math.isfinite(number) else None
            for key, number in (("value", value), ("low", low), ("high", high))}
