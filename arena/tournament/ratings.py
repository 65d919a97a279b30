"""TrueSkill ratings of stored games, per game and overall.

Per game (modern-art, silk-road), every stored game is one free-for-all
match, rated with the trueskill package in SCHEDULE order (never in the order
games finished), so the ratings are the same for any ``-j`` and after a
resume. Each seat is a one-player team placed by its rank; equal ranks (equal
money) are draws. A bot holding several seats of one game (a table with
fewer entries than seats) takes the mean of its seats' updated mu and sigma.

The environment is trueskill's standard one, written out because it decides
the numbers:

- ``mu = 25``: a new bot's estimated skill;
- ``sigma = 25/3``: the uncertainty of that estimate;
- ``beta = 25/6``: the skill gap that makes the better bot finish above the
  other about 76% of the time;
- ``tau = 25/300``: how much uncertainty each game adds back (skills may drift);
- ``draw_probability = 0.10``: the prior chance that two seats tie on money.

Overall rule: a bot's overall mu is the mean of its mu over the games it
plays, and its overall sigma the uncertainty of that mean,
``sqrt(sum of sigma^2) / number of games``; a bot playing one game keeps that
game's rating. Each game weighs the same, whatever its number of games or
its scale of money, and a bot is not punished for skipping a game it does not play.

The leaderboard caches them in the store, keyed by the number of games they
cover, so each new set of results costs one TrueSkill pass per game.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import groupby
from operator import itemgetter
from typing import Any, Iterable

import trueskill

ENVIRONMENT = {"mu": 25.0, "sigma": 25 / 3, "beta": 25 / 6, "tau": 25 / 300, "draw_probability": 0.10}
OVERALL_RULE = ("overall mu = mean of the bot's mu over the games it plays; "
                "overall sigma = sqrt(sum of sigma^2) / number of those games")


@dataclass(frozen=True)
class Rating:
    """A bot's TrueSkill estimate."""

    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``: the skill the bot has with about 99.9% confidence; the ranking key."""
        return self.mu - 3 * self.sigma


def rate_games(placings: Iterable[tuple[int, str, int]], history: list | None = None) -> dict[str, Rating]:
    """Rate games given as ``(game key, bot, rank)`` per seat, grouped by game, in the order to rate them.

    When ``history`` is a list, ``(game key, {bot: Rating})`` of the bots each
    game rated is appended after that game (the report plots ratings over games).
    """
    env = trueskill.TrueSkill(**ENVIRONMENT)
    start = env.create_rating()
    current: dict[str, Any] = {}
    rate = env.rate
    for key, seats in groupby(placings, key=itemgetter(0)):
        seats = list(seats)
        bots = [bot for _, bot, _ in seats]
        updated = rate([(current.get(bot, start),) for bot in bots], ranks=[rank for _, _, rank in seats])
        if len(set(bots)) == len(bots):
            for bot, (rating,) in zip(bots, updated):
                current[bot] = rating
        else:
            for bot in set(bots):
                mine = [rating for other, (rating,) in zip(bots, updated) if other == bot]
                current[bot] = env.create_rating(sum(r.mu for r in mine) / len(mine),
                                                 sum(r.sigma for r in mine) / len(mine))
        if history is not None:
            history.append((key, {bot: Rating(current[bot].mu, current[bot].sigma) for bot in set(bots)}))
    return {bot: Rating(rating.mu, rating.sigma) for bot, rating in current.items()}


def game_ratings(store: Any, game: str) -> dict[str, Rating]:
    """The ratings of every bot in ``game``, rated afresh from ``store`` (the leaderboard caches its own)."""
    return rate_games(store.placings(game))


def combine(per_game: Iterable[dict[str, Rating]]) -> dict[str, Rating]:
    """The overall ratings from each game's (the rule in :data:`OVERALL_RULE`)."""
    collected: dict[str, list[Rating]] = {}
    for ratings in per_game:
        for bot, rating in ratings.items():
            collected.setdefault(bot, []).append(rating)
    return {
        bot: Rating(sum(r.mu for r in mine) / len(mine),
                    math.sqrt(sum(r.sigma ** 2 for r in mine)) / len(mine))
        for bot, mine in collected.items()
    }
