"""The standings figures of one game that do not come from the rater: totals, head-to-head, rank ranges.

All are computed from :class:`~arena.standings.seats.GameSeats` with numpy, so
that they cost a small fraction of the rating pass (benchmarks/ratings.py).

- **Totals** per bot: games (a bot holding two seats of one game counts one
  game), seats, first places (games where a seat of it placed first), mean
  placing and mean money (over games, a game's value being the mean of the
  bot's seats in it), faults (all seats).
- **Head-to-head** per ordered pair of bots that shared games: wins (the row
  bot placed above the other: a lower mean placing in that game), draws,
  losses, so ``wins + draws + losses`` is the number of games they shared;
  the score ``(wins + draws / 2) / shared`` and its 95% Wilson interval. The
  games of one deal block are not independent (same cards, rotated), so the
  interval counts an *effective* number of games: the shared games scaled
  by the ratio of the binomial variance to the variance measured between
  deal blocks (at most the games, at least the blocks when it cannot be measured).
- **Rank ranges**: a bootstrap over deal blocks. Each of :data:`RESAMPLES`
  resamples weighs every block by a Poisson(1) count; in each, every bot's
  *pairwise score* (the share of its table-mates it placed above, draws half,
  over all its games) orders the bots. A bot's range is the 2.5th to the
  97.5th percentile of the ranks it held. An adjacent pair's order is decided
  when the upper bot scores above the lower one in at least 97.5% of the
  resamples. The pairwise score needs no rating pass, which is what makes a
  thousand resamples affordable; in formats where every bot meets the field
  alike (round-robin, gauntlet, sampled) it orders bots as the rating does.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np

from arena.standings.seats import BotGames, GameSeats

RESAMPLES = 1000
CONFIDENCE = 0.95
_CHUNK = 100
#: Poisson(1) by inverse CDF over 2^16 equally likely draws: ten times faster than numpy's poisson for
#: the tens of millions of block weights a large tournament needs (every probability off by < 2^-16)
_POISSON = np.searchsorted(np.cumsum([math.exp(-1) / math.factorial(k) for k in range(12)]),
                           (np.arange(2 ** 16) + 0.5) / 2 ** 16).astype(np.float32)
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Totals:
    """One bot's counts in one game (or all games)."""

    games: int
    seats: int
    firsts: int
    placing_sum: float
    money_sum: float
    faults: int


@dataclass(frozen=True)
class HeadToHead:
    """How the row bot fared against another in the games they shared."""

    wins: int
    draws: int
    losses: int
    effective: float  # the number of independent games the record is worth, for its interval

    @property
    def shared(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float | None:
        """``(wins + draws / 2) / shared``, or None when they never met."""
        return (self.wins + self.draws / 2) / self.shared if self.shared else None

    @property
    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of :attr:`score` over :attr:`effective` games."""
        return wilson(self.score or 0.0, self.effective)


@dataclass(frozen=True)
class Resampled:
    """The bootstrap of one game: per resample and bot index, the bot's pairwise score and rank range.

    ``score`` and ``low``/``high`` ranks are ``resamples x bots`` arrays (bots as
    in :attr:`GameSeats.bots`); ``point`` is each bot's pairwise score on all games.
    """

    bots: tuple[str, ...]
    point: np.ndarray
    score: np.ndarray
    low: np.ndarray
    high: np.ndarray

    def rank_range(self, bot: str, confidence: float = CONFIDENCE) -> tuple[int, int]:
        """The ranks ``bot`` holds in ``confidence`` of the resamples, as ``(best, worst)``."""
        index = self.bots.index(bot)
        tail = (1 - confidence) / 2
        return (int(np.quantile(self.low[:, index], tail, method="lower")),
                int(np.quantile(self.high[:, index], 1 - tail, method="higher")))

    def above(self, bot: str, other: str) -> float:
        """The share of resamples where ``bot`` scores above ``other`` (ties count half)."""
        a, b = self.score[:, self.bots.index(bot)], self.score[:, self.bots.index(other)]
        return float(np.mean((a > b) + 0.5 * (a == b)))

    def midranks(self) -> np.ndarray:
        """Per resample and bot, the middle of its tied ranks (for the overall mean of ranks)."""
        middle: np.ndarray = (self.low + self.high) / 2
        return middle


@dataclass(frozen=True)
class GameFigures:
    """Everything but the ratings for one game's standings."""

    totals: dict[str, Totals]
    head_to_head: dict[tuple[str, str], HeadToHead]
    resampled: Resampled


def game_figures(seats: GameSeats, seed: str) -> GameFigures:
    """Totals, head-to-head and the bootstrap of one game; ``seed`` (the game's name) fixes the resamples."""
    per = seats.bot_games()
    pairs = _pairs(per)
    return GameFigures(_totals(seats.bots, per), _head_to_head(seats.bots, pairs),
                       _resample(seats.bots, seats.blocks, pairs, seed))


def _totals(bots: tuple[str, ...], per: BotGames) -> dict[str, Totals]:
    size = len(bots)
    games = np.bincount(per.bot, minlength=size)
    seats = np.bincount(per.bot, per.seats, minlength=size)
    firsts = np.bincount(per.bot, per.first, minlength=size)
    placing = np.bincount(per.bot, per.placing, minlength=size)
    money = np.bincount(per.bot, per.money, minlength=size)
    faults = np.bincount(per.bot, per.faults, minlength=size)
    return {bot: Totals(int(games[i]), int(seats[i]), int(firsts[i]), float(placing[i]), float(money[i]),
                        int(faults[i])) for i, bot in enumerate(bots)}


@dataclass(frozen=True)
class _Pairs:
    """Every ordered pair of bots sharing a game: the row bot, the other, the block, the row bot's score."""

    bot: np.ndarray
    other: np.ndarray
    block: np.ndarray
    score: np.ndarray


def _pairs(per: BotGames) -> _Pairs:
    """Entries of one game are adjacent in ``per`` (sorted by game): pair each with the next ``d`` ones."""
    parts = []
    widest = int(np.bincount(per.game).max()) if len(per.game) else 0
    for step in range(1, widest):
        first, second = np.arange(len(per.game) - step), np.arange(step, len(per.game))
        same = per.game[first] == per.game[second]
        first, second = first[same], second[same]
        score = np.where(per.placing[first] < per.placing[second], 1.0,
                         np.where(per.placing[first] > per.placing[second], 0.0, 0.5))
        parts.append((per.bot[first], per.bot[second], per.block[first], score))
        parts.append((per.bot[second], per.bot[first], per.block[first], 1.0 - score))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return _Pairs(empty, empty, empty, np.zeros(0))
    return _Pairs(*(np.concatenate(column) for column in zip(*parts)))


def _head_to_head(bots: tuple[str, ...], pairs: _Pairs) -> dict[tuple[str, str], HeadToHead]:
    size = len(bots)
    pair = pairs.bot * size + pairs.other
    wins = np.bincount(pair, pairs.score == 1.0, minlength=size * size)
    draws = np.bincount(pair, pairs.score == 0.5, minlength=size * size)
    shared = np.bincount(pair, minlength=size * size)
    # per block and pair: the score summed (s) and the games (n), for the variance between blocks
    keys, block_score, block_games = _per_key(pairs.block * (size * size) + pair, pairs.score)
    of_pair = keys % (size * size)
    blocks = np.bincount(of_pair, minlength=size * size)
    sum_ss = np.bincount(of_pair, block_score ** 2, minlength=size * size)
    sum_sn = np.bincount(of_pair, block_score * block_games, minlength=size * size)
    sum_nn = np.bincount(of_pair, block_games ** 2, minlength=size * size)
    figures = {}
    for index in np.flatnonzero(shared):
        n, k = int(shared[index]), int(blocks[index])
        p = (wins[index] + draws[index] / 2) / n
        spread = sum_ss[index] - 2 * p * sum_sn[index] + p * p * sum_nn[index]
        between = k / (k - 1) * spread / n ** 2 if k > 1 else 0.0
        effective = min(n, p * (1 - p) / between) if between > 0 and 0 < p < 1 else k
        bot, other = divmod(int(index), size)
        figures[(bots[bot], bots[other])] = HeadToHead(int(wins[index]), int(draws[index]),
                                                       n - int(wins[index]) - int(draws[index]), float(effective))
    return figures


#: the most block-and-pair cells :func:`_per_key` counts in one array (8 bytes each, three arrays)
_DENSE_KEYS = 1 << 22


def _per_key(key: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct values of ``key`` in increasing order, with per value the ``score`` summed and the count.

    As ``np.unique(key, return_inverse=True)`` then two bincounts over the
    inverse, with the same sums (each key's scores added in the same order),
    but counted straight into a dense array when the keys are few enough:
    sorting 500,000 keys for ``np.unique`` was 40 ms of a 20,000-game
    leaderboard, after the last game.
    """
    if len(key) and int(key.max()) < _DENSE_KEYS:
        games = np.bincount(key)
        present = np.flatnonzero(games)
        return present, np.bincount(key, score)[present], games[present].astype(float)
    keys, inverse = np.unique(key, return_inverse=True)
    return keys, np.bincount(inverse, score), np.bincount(inverse).astype(float)


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``p`` observed over ``n`` (possibly fractional) trials."""
    if n <= 0:
        return 0.0, 1.0
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def _resample(bots: tuple[str, ...], blocks: int, pairs: _Pairs, seed: str) -> Resampled:
    size = len(bots)
    cell = pairs.block * size + pairs.bot
    # per block and bot: the pairwise score summed, then the table-mates met (one matrix, one product per chunk)
    sums = np.empty((blocks, 2 * size), dtype=np.float32)
    sums[:, :size] = np.bincount(cell, pairs.score, minlength=blocks * size).reshape(blocks, size)
    sums[:, size:] = np.bincount(cell, minlength=blocks * size).reshape(blocks, size)
    with np.errstate(invalid="ignore", divide="ignore"):
        point = sums[:, :size].sum(0, dtype=np.float64) / sums[:, size:].sum(0, dtype=np.float64)
    rng = np.random.default_rng(zlib.crc32(seed.encode()))
    scores, lows, highs = [], [], []
    for start in range(0, RESAMPLES, _CHUNK):
        weights = _POISSON[rng.integers(0, len(_POISSON), size=(min(_CHUNK, RESAMPLES - start), blocks),
                                        dtype=np.uint16)]
        totals = weights @ sums
        with np.errstate(invalid="ignore", divide="ignore"):
            score = totals[:, :size] / totals[:, size:]
        score = np.where(np.isnan(score), 0.5, score)  # a resample without the bot's games: even
        above = score[:, None, :] > score[:, :, None]  # [r, i, j]: j scores above i
        level = score[:, None, :] == score[:, :, None]
        lows.append(1 + above.sum(2))
        highs.append(above.sum(2) + level.sum(2))
        scores.append(score)
    return Resampled(bots, np.nan_to_num(point, nan=0.5), np.concatenate(scores), np.concatenate(lows),
                     np.concatenate(highs))
