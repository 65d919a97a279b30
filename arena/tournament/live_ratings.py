"""Rating games while they are played: the main process rates them in schedule order as they arrive.

The leaderboard's rating pass (TrueSkill: more than half a millisecond a
four-player game, about as long as a random game takes to play) used to start
only after the last game. :class:`LiveRatings` keeps one
:class:`~arena.standings.raters.Rater` per game and rates each game of the
schedule as soon as every game before it in schedule order is in hand (a game
that arrives early waits), starting with the reused games, so the ratings are
exactly those of a rating pass after the run, for any ``-j``. When every game
of a game is rated, the ratings go into the store's figure cache, where the
leaderboard finds them.
"""

from __future__ import annotations

from typing import Sequence

from arena.runs.spec import FinishedGame, GameSpec
from arena.runs.store import Store
from arena.standings.raters import Rater, SeatedGame


class _GameStream:
    """One game's seats, rated in schedule order as soon as they are contiguous."""

    def __init__(self, rater: str, orders: list[int]) -> None:
        self.orders = orders
        self.position = 0
        self.early: dict[int, SeatedGame] = {}
        self.rater = Rater(rater)

    def add(self, order: int, game: SeatedGame) -> None:
        self.early[order] = game
        while self.position < len(self.orders) and self.orders[self.position] in self.early:
            self.rater.add(*self.early.pop(self.orders[self.position]))
            self.position += 1

    @property
    def complete(self) -> bool:
        """Whether every game of the schedule was rated (not so when a game failed or the run stopped)."""
        return self.position == len(self.orders)


class LiveRatings:
    """Rates the games of a schedule per game, in schedule order, while they are played."""

    def __init__(self, specs: Sequence[GameSpec], store: Store, rater: str) -> None:
        self.store = store
        self.rater = rater
        self.streams: dict[str, _GameStream] = {}
        by_game: dict[str, list[int]] = {}
        for spec in specs:
            by_game.setdefault(spec.game, []).append(spec.order)
        for game, orders in by_game.items():
            self.streams[game] = _GameStream(rater, orders)
        stored = store.placings_by_key()
        for spec in specs:
            seats = stored.get(spec.key)
            if seats is not None:
                self.streams[spec.game].add(spec.order, ([bot for bot, _ in seats], [rank for _, rank in seats]))

    def game_done(self, finished: FinishedGame) -> None:
        """An observer of the run loop: one game played now."""
        record = finished.record
        self.streams[finished.spec.game].add(finished.spec.order, (record["players"], record["result"]["ranks"]))

    def finish(self) -> None:
        """Cache the ratings of every fully rated game where the leaderboard finds them."""
        for game, stream in self.streams.items():
            if stream.complete:
                self.store.cache_figures(game, len(stream.orders), {
                    "rater": self.rater,
                    "ratings": {bot: [r.mu, r.sigma] for bot, r in stream.rater.ratings().items()}})
