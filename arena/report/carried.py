"""Ratings carried forward as a store grows: what lets the live site rate 100,000 games once, not once a second.

The leaderboard rates a game's stored games in schedule order, and the report
plots each bot's rating after each of its games (:func:`arena.report.site.rating_histories`).
Done from scratch, both cost a pass over every game at each change. While a
run plays, games arrive roughly in schedule order: every game before the
first order not stored yet (the *gap*) is final, and so is its place in the
pass. :class:`CarriedRatings` keeps the pass over that settled prefix and, at
each change, rates only the games after it (a few, at ``-j N``) on a copy.
The result is exactly the from-scratch pass over the same games (a test holds
the two equal); a store whose settled games changed (a resumed run marking
other games current) starts the pass again.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from typing import Any

from arena.standings.raters import Rater
from arena.standings.ratings import ENVIRONMENT

#: a bot's points: (games played, mu, sigma), from 0 games (the prior) on
Series = dict[str, list[tuple[int, float, float]]]


@dataclass
class RatingPass:
    """A rating pass over games in schedule order, with each bot's history."""

    rater: Rater
    series: Series = field(default_factory=dict)
    orders: list[int] = field(default_factory=list)

    def add(self, order: int, bots: list[str], ranks: list[int]) -> None:
        self.rater.add(bots, ranks)
        self.orders.append(order)
        for bot in sorted(set(bots)):
            rating = self.rater.rating(bot)
            points = self.series.setdefault(bot, [(0, ENVIRONMENT["mu"], ENVIRONMENT["sigma"])])
            points.append((len(points), rating.mu, rating.sigma))

    def fork(self) -> RatingPass:
        """A copy to rate more games on, this one unchanged (the lists are copied, their points shared)."""
        return RatingPass(copy.deepcopy(self.rater), {bot: list(points) for bot, points in self.series.items()},
                     list(self.orders))


def group(placings: list[tuple[int, str, int]]) -> list[tuple[int, list[str], list[int]]]:
    """``(order, bot, rank)`` seat rows (schedule then seat order) as ``(order, bots, ranks)`` per game."""
    games: list[tuple[int, list[str], list[int]]] = []
    for order, bot, rank in placings:
        if not games or games[-1][0] != order:
            games.append((order, [], []))
        games[-1][1].append(bot)
        games[-1][2].append(rank)
    return games


class CarriedRatings:
    """One game's rating pass, carried forward from one state of the store to the next."""

    def __init__(self, rater: str) -> None:
        self.rater = rater
        self.settled = RatingPass(Rater(rater))
        self.mark: tuple[Any, ...] = ()
        self.last: tuple[tuple[Any, ...], RatingPass] | None = None
        self.lock = threading.Lock()  # a page build and a chart may ask at once

    def rated(self, placings: list[tuple[int, str, int]], gap: int, mark: Any = None) -> RatingPass:
        """The pass over ``placings`` (the store's ``placings(game)``); games before order ``gap`` are final.

        ``mark`` names what would invalidate the settled games (the store's identity and generation).
        """
        with self.lock:
            return self._rated(group(placings), gap, mark)

    def _rated(self, games: list[tuple[int, list[str], list[int]]], gap: int, mark: Any) -> RatingPass:
        key = (mark, len(games), games[-1][0] if games else None, gap)
        if self.last is not None and self.last[0] == key:
            return self.last[1]
        settled = self.settled
        done = len(settled.orders)
        if (mark,) != self.mark or done > len(games) or [order for order, _, _ in games[:done]] != settled.orders:
            settled = self.settled = RatingPass(Rater(self.rater))  # the settled games changed: start again
            self.mark = (mark,)
            done = 0
        position = done
        while position < len(games) and games[position][0] < gap:
            settled.add(*games[position])
            position += 1
        result = settled
        if position < len(games):
            result = settled.fork()
            for game in games[position:]:
                result.add(*game)
        self.last = (key, result)
        return result

    @staticmethod
    def payload(rated: RatingPass) -> dict[str, Any]:
        """The leaderboard's cached-figures payload of a pass (what :func:`arena.standings.ratings.cached_ratings`
        reads)."""
        return {"rater": rated.rater.name,
                "ratings": {bot: [rating.mu, rating.sigma] for bot, rating in rated.rater.ratings().items()}}
