"""Ratings of stored games, per game: the rater's pass in schedule order, cached in the store.

Per game (modern-art, silk-road), every stored game is one free-for-all
match rated in SCHEDULE order (never in the order games finished), so the
ratings are the same for any ``-j`` and after a resume. The rater is the
tournament's ``rating`` key: TrueSkill (the default) or OpenSkill's
Plackett-Luce (:mod:`arena.standings.raters`, where the environments are
written out). A bot holding several seats of one game takes the mean of its
seats' updated mu and sigma.

Ratings of different games are never combined: the overall standing is the
mean of a bot's per-game ranks (:data:`OVERALL_RULE`, :mod:`arena.standings.board`).
The leaderboard caches each game's ratings in the store, keyed by the number
of games they cover and the rater, so each new set of results costs one pass.
"""

from __future__ import annotations

from itertools import groupby
from operator import itemgetter
from typing import Iterable

from arena.standings.raters import DEFAULT_RATER, TRUESKILL_ENVIRONMENT, Rating, rate
from arena.standings.seats import GameSeats
from arena.runs.store import Store

__all__ = ["ENVIRONMENT", "OVERALL_RULE", "Rating", "rate_games", "cached_ratings"]

ENVIRONMENT = TRUESKILL_ENVIRONMENT
OVERALL_RULE = ("overall rank = by the mean of the bot's ranks in the games it plays (each game weighs the same); "
                "ratings of different games are not combined")


def rate_games(placings: Iterable[tuple[int, str, int]], history: list[tuple[int, dict[str, Rating]]] | None = None,
               rater: str = DEFAULT_RATER) -> dict[str, Rating]:
    """Rate games given as ``(game key, bot, rank)`` per seat, grouped by game, in the order to rate them.

    When ``history`` is a list, ``(game key, {bot: Rating})`` of the bots each
    game rated is appended after that game (the report plots ratings over games).
    """
    keys: list[int] = []
    games: list[tuple[list[str], list[int]]] = []
    for key, group in groupby(placings, key=itemgetter(0)):
        seats = list(group)
        keys.append(key)
        games.append(([bot for _, bot, _ in seats], [rank for _, _, rank in seats]))
    after_each = None if history is None else (lambda position, ratings: history.append((keys[position], ratings)))
    return rate(rater, games, after_each)


def cached_ratings(store: Store, game: str, rater: str, seats: GameSeats) -> dict[str, Rating]:
    """``game``'s ratings over its stored ``seats`` with ``rater``, from the store's cache or rated and cached."""
    cached = store.cached_figures(game, seats.games)
    if isinstance(cached, dict) and cached.get("rater") == rater:
        return {bot: Rating(mu, sigma) for bot, (mu, sigma) in cached["ratings"].items()}
    ratings = rate(rater, seats.rated_games())
    store.cache_figures(game, seats.games, {"rater": rater,
                                            "ratings": {bot: [r.mu, r.sigma] for bot, r in ratings.items()}})
    return ratings
