"""The raters: TrueSkill (the default) and OpenSkill's Plackett-Luce, behind one small interface.

A rater turns games, in the order to rate them, into one :class:`Rating` per
bot. Each game is a free-for-all by placing: every seat is a one-player team,
equal placings are draws. A bot holding several seats of one game takes the
mean of its seats' updated mu and sigma.

A :class:`Rater` takes games one at a time (a run rates each game as it
arrives); :func:`rate` rates a whole sequence with one. TrueSkill's update is
:mod:`arena.standings.trueskill_ffa` (the ``trueskill`` library's numbers,
bit for bit, at about a tenth of its cost); OpenSkill's is its library's.

Both raters start a bot at mu 25, sigma 25/3 and report mu with a 95%
interval ``mu +- 1.96 sigma``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from arena.standings import trueskill_ffa

#: the rater names a tournament file's ``rating`` key takes; the first is the default
RATERS = ("trueskill", "openskill")
DEFAULT_RATER = RATERS[0]
#: the trueskill environment, written out because it decides the numbers (docs/standings.md)
TRUESKILL_ENVIRONMENT = {"mu": 25.0, "sigma": 25 / 3, "beta": 25 / 6, "tau": 25 / 300, "draw_probability": 0.10}
#: openskill's Plackett-Luce model with the same prior as TrueSkill
OPENSKILL_ENVIRONMENT = {"mu": 25.0, "sigma": 25 / 3, "beta": 25 / 6, "tau": 25 / 300}
Z95 = 1.959963984540054
PRIOR_MU, PRIOR_SIGMA = 25.0, 25 / 3

#: one game to rate: the bots of its seats and their placings (1 = first), seat by seat
SeatedGame = tuple[Sequence[str], Sequence[int]]


@dataclass(frozen=True)
class Rating:
    """A bot's skill estimate: ``mu`` and its uncertainty ``sigma`` (one standard deviation)."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``: the skill the bot has with about 99.9% confidence."""
        return self.mu - 3 * self.sigma

    @property
    def low(self) -> float:
        """The lower end of the 95% interval, ``mu - 1.96 sigma``."""
        return self.mu - Z95 * self.sigma

    @property
    def high(self) -> float:
        """The upper end of the 95% interval, ``mu + 1.96 sigma``."""
        return self.mu + Z95 * self.sigma


@dataclass(frozen=True)
class RaterInfo:
    """What the leaderboard says about the rater it used."""

    name: str
    title: str
    environment: dict[str, Any]


def describe(name: str) -> RaterInfo:
    """The :class:`RaterInfo` of rater ``name`` (one of :data:`RATERS`)."""
    if name == "trueskill":
        return RaterInfo(name, "TrueSkill", dict(TRUESKILL_ENVIRONMENT))
    if name == "openskill":
        return RaterInfo(name, "OpenSkill (Plackett-Luce)", dict(OPENSKILL_ENVIRONMENT))
    raise ValueError(f"unknown rater {name!r} (expected one of: {', '.join(RATERS)})")


class Rater:
    """Ratings built one game at a time, in the order the games are given (the leaderboard's and a live run's).

    TrueSkill goes through :mod:`arena.standings.trueskill_ffa`, the library's
    free-for-all update on plain floats (the library's numbers in a tenth of
    its time), OpenSkill through its library. Either way the rating loop is
    one call per game with nothing between the calls but a dictionary look-up
    per seat (``benchmarks/ratings.py`` times the update against the library's).
    """

    def __init__(self, name: str) -> None:
        if name == "trueskill":
            self._add: Callable[[Sequence[str], Sequence[int]], None] = self._add_trueskill
            # a bot's rating: the (mu, sigma) a trueskill.Rating reports (all the library reads of one)
            self._prior = trueskill_ffa.rating_values(PRIOR_MU, PRIOR_SIGMA)
        elif name == "openskill":
            from openskill.models import PlackettLuce

            model = PlackettLuce(mu=OPENSKILL_ENVIRONMENT["mu"], sigma=OPENSKILL_ENVIRONMENT["sigma"],
                                 beta=OPENSKILL_ENVIRONMENT["beta"], tau=OPENSKILL_ENVIRONMENT["tau"])
            self._update: Callable[..., Any] = model.rate
            self._make: Callable[[float, float], Any] = lambda mu, sigma: model.rating(mu=mu, sigma=sigma)
            self._add = self._add_library
        else:
            raise ValueError(f"unknown rater {name!r} (expected one of: {', '.join(RATERS)})")
        self.name = name
        self.games = 0
        self._current: dict[str, Any] = {}

    def add(self, bots: Sequence[str], ranks: Sequence[int]) -> None:
        """Rate one more game: the bots of its seats and their placings (1 = first)."""
        self._add(bots, ranks)
        self.games += 1

    def add_games(self, games: Sequence[SeatedGame]) -> None:
        """Rate ``games`` in the order given: :meth:`add` of each, TrueSkill's in one loop (the run's store
        writer rates each batch it stores this way: a call and a look-up less a game)."""
        if self.name != "trueskill":
            for bots, ranks in games:
                self._add(bots, ranks)
            self.games += len(games)
            return
        current, prior, rate = self._current, self._prior, trueskill_ffa.rate_values
        get = current.get
        for bots, ranks in games:
            # the new ratings come back as a trueskill.Rating made from them reports them: what the next game reads
            updated = rate([get(bot, prior) for bot in bots], ranks, True)
            if len(set(bots)) == len(bots):
                current.update(zip(bots, updated))
            else:
                _merge_values(current, bots, updated)
        self.games += len(games)

    def _add_trueskill(self, bots: Sequence[str], ranks: Sequence[int]) -> None:
        current, prior = self._current, self._prior
        # the new ratings come back as a trueskill.Rating made from them reports them: what the next game reads
        updated = trueskill_ffa.rate_values([current.get(bot, prior) for bot in bots], ranks, read=True)
        if len(set(bots)) == len(bots):
            current.update(zip(bots, updated))
            return
        _merge_values(current, bots, updated)

    def _add_library(self, bots: Sequence[str], ranks: Sequence[int]) -> None:
        current = self._current
        for bot in bots:
            if bot not in current:
                current[bot] = self._make(PRIOR_MU, PRIOR_SIGMA)  # its own object: a shared prior would be one player
        updated = self._update([[current[bot]] for bot in bots], ranks=list(ranks))
        if len(set(bots)) == len(bots):
            for bot, (rating,) in zip(bots, updated):
                current[bot] = rating
        else:
            _merge_seats(current, bots, updated, self._make)

    def rating(self, bot: str) -> Rating:
        """``bot``'s rating now (it must have played)."""
        return self._public(self._current[bot])

    def ratings(self) -> dict[str, Rating]:
        """Every rated bot's rating now."""
        public = self._public
        return {bot: public(rating) for bot, rating in self._current.items()}

    @staticmethod
    def _public(rating: Any) -> Rating:
        return Rating(*rating) if isinstance(rating, tuple) else Rating(rating.mu, rating.sigma)


def rate(name: str, games: Iterable[SeatedGame],
         after_each: Callable[[int, dict[str, Rating]], None] | None = None) -> dict[str, Rating]:
    """Rate ``games`` in the order given with rater ``name``; each bot's final :class:`Rating`.

    ``after_each(position, ratings)``, when given, is called after every game
    with its position (from 0) and the new ratings of its bots (the report
    plots ratings over games).
    """
    rater = Rater(name)
    for position, (bots, ranks) in enumerate(games):
        rater.add(bots, ranks)
        if after_each is not None:
            after_each(position, {bot: rater.rating(bot) for bot in dict.fromkeys(bots)})
    return rater.ratings()


def _merge_values(current: dict[str, Any], bots: Sequence[str], updated: list[trueskill_ffa.MuSigma]) -> None:
    """A bot holding several seats takes the mean of its seats' updated mu and sigma (TrueSkill's values, read
    as a ``trueskill.Rating`` reports them)."""
    read = trueskill_ffa.rating_values
    for bot in dict.fromkeys(bots):
        mine = [rating for other, rating in zip(bots, updated) if other == bot]
        current[bot] = read(sum(mu for mu, _ in mine) / len(mine), sum(sigma for _, sigma in mine) / len(mine))


def _merge_seats(current: dict[str, Any], bots: Sequence[str], updated: list[list[Any]],
                 make: Callable[[float, float], Any]) -> None:
    """A bot holding several seats takes the mean of its seats' updated mu and sigma."""
    for bot in dict.fromkeys(bots):
        mine = [rating for other, (rating,) in zip(bots, updated) if other == bot]
        current[bot] = make(sum(r.mu for r in mine) / len(mine), sum(r.sigma for r in mine) / len(mine))
