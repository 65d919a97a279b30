"""Rating games while they are played: the main process rates them in schedule order as they arrive.

The main process of a run mostly waits for its workers, and the leaderboard's
rating pass (TrueSkill: milliseconds a game, about as long as a random game
takes to play) used to start only after the last game. :class:`LiveRatings`
rates each game's stream in a thread of the main process, in schedule order
(a game that arrives early waits for the ones before it), starting with the
reused games, so the ratings are exactly those of a rating pass after the run,
for any ``-j``. When every game of a game is rated, the ratings go into the
store's figure cache, where the leaderboard finds them.
"""

from __future__ import annotations

import queue
import threading
from typing import Iterator, Sequence

from arena.runs.spec import FinishedGame, GameSpec
from arena.runs.store import Store
from arena.standings.raters import Rating, SeatedGame, rate

_END = None


class _GameStream:
    """One game's seats in schedule order, fed to a rating thread as soon as they are contiguous."""

    def __init__(self, rater: str, orders: list[int]) -> None:
        self.orders = orders
        self.position = 0
        self.early: dict[int, SeatedGame] = {}
        self.queue: queue.SimpleQueue[SeatedGame | None] = queue.SimpleQueue()
        self.ratings: dict[str, Rating] = {}
        self.thread = threading.Thread(target=self._rate, args=(rater,), name="arena-live-ratings", daemon=True)
        self.thread.start()

    def _games(self) -> Iterator[SeatedGame]:
        while (game := self.queue.get()) is not _END:
            yield game

    def _rate(self, rater: str) -> None:
        self.ratings = rate(rater, self._games())

    def add(self, order: int, game: SeatedGame) -> None:
        self.early[order] = game
        while self.position < len(self.orders) and self.orders[self.position] in self.early:
            self.queue.put(self.early.pop(self.orders[self.position]))
            self.position += 1

    def finish(self) -> dict[str, Rating] | None:
        """The ratings when every game was rated, else None (a game failed or the run stopped)."""
        self.queue.put(_END)
        self.thread.join()
        return self.ratings if self.position == len(self.orders) else None


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
        """Wait for the ratings; cache those of every fully rated game where the leaderboard finds them."""
        for game, stream in self.streams.items():
            ratings = stream.finish()
            if ratings is not None:
                self.store.cache_figures(game, len(stream.orders), {
                    "rater": self.rater, "ratings": {bot: [r.mu, r.sigma] for bot, r in ratings.items()}})
