"""Rating games while they are played: a process of its own rates them in schedule order as they arrive.

The leaderboard's rating pass (TrueSkill: half a millisecond or more a
four-player game, about as long as a random game takes to play) used to start
only after the last game. :class:`LiveRatings` hands each game's seats and
placings, as the game arrives, to a rating process forked for the run, which
keeps one :class:`~arena.standings.raters.Rater` per game and rates each game
of the schedule as soon as every game before it in schedule order is in hand
(a game that arrives early waits), starting with the reused games. So the
ratings are exactly those of a rating pass after the run, for any ``-j``.
When every game of a game is rated, the ratings go into the store's figure
cache, where the leaderboard finds them.

Why a process: the main process also receives, stores and logs every game.
Rating in its thread made it the slowest link of a run of fast games (about
0.9 ms of work a random Modern Art game, more than the worker's 0.7 ms of
play), and one thread cannot use a second core; as a process of its own,
the rating takes whatever core is free. If the rating process is lost, the
run goes on and the leaderboard rates the games itself afterwards.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.process
import signal
from typing import Any, Sequence

from arena.runs.process import die_with_parent
from arena.runs.spec import FinishedGame, GameSpec
from arena.runs.store import Store, StoredGame
from arena.standings.raters import Rater, SeatedGame

#: games sent to the rating process together (a message a game cost the main process more than the game's bookkeeping)
BATCH_GAMES = 64


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


def _rate(conn: multiprocessing.connection.Connection, rater: str, orders: dict[str, list[int]]) -> None:
    """The rating process: rate what comes down ``conn`` until ``None``, then send back the complete games' ratings."""
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's: it stops the run, then asks
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # held back while this process was forked
    streams = {game: _GameStream(rater, game_orders) for game, game_orders in orders.items()}
    while (batch := conn.recv()) is not None:
        for game, order, bots, ranks in batch:
            streams[game].add(order, (bots, ranks))
    conn.send({game: {bot: (rating.mu, rating.sigma) for bot, rating in stream.rater.ratings().items()}
               for game, stream in streams.items() if stream.complete})
    conn.close()


class LiveRatings:
    """Rates the games of a schedule per game, in schedule order, in a process of its own while they are played."""

    def __init__(self, specs: Sequence[GameSpec], store: Store, rater: str, stored: dict[str, StoredGame]) -> None:
        """Start rating ``specs``' stored games; ``stored`` is the store's :meth:`Store.stored_games` now."""
        self.store = store
        self.rater = rater
        by_game: dict[str, list[GameSpec]] = {}
        for spec in specs:
            by_game.setdefault(spec.game, []).append(spec)
        self.orders = {game: [spec.order for spec in game_specs] for game, game_specs in by_game.items()}
        self.settled = {game: ratings for game, game_specs in by_game.items()
                        if (ratings := self._settled_ratings(game, game_specs, stored))}
        self.waiting: list[tuple[str, int, Any, Any]] = []
        to_rate = {game: orders for game, orders in self.orders.items() if game not in self.settled}
        self.process: multiprocessing.process.BaseProcess | None = None
        if not to_rate:
            return
        context = multiprocessing.get_context("fork")
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_rate, args=(theirs, rater, to_rate), name="ratings", daemon=True)
        # Ctrl-C held back while forking: in the new process before its handler is set, it printed a traceback
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
        theirs.close()
        placings = store.placings_by_key()
        for spec in specs:
            seats = placings.get(spec.key)
            if seats is not None and spec.game in to_rate:
                self._add(spec.game, spec.order, [bot for bot, _ in seats], [rank for _, rank in seats])

    def _settled_ratings(self, game: str, specs: list[GameSpec], stored: dict[str, StoredGame]) -> Any:
        """The cached ratings of ``game`` when its schedule is stored and current as it was rated, else None.

        Such a game has nothing to play and its ratings still hold (a rerun
        with nothing new rates nothing: 100,000 games took a minute).
        """
        if not all((found := stored.get(spec.key)) is not None and found.current == spec.order for spec in specs):
            return None
        cached = self.store.cached_figures(game, len(specs))
        return cached if isinstance(cached, dict) and cached.get("rater") == self.rater else None

    def _add(self, game: str, order: int, bots: Any, ranks: Any) -> None:
        self.waiting.append((game, order, bots, ranks))
        if len(self.waiting) >= BATCH_GAMES:
            self._send()

    def _send(self) -> None:
        if self.waiting and self.process is not None:
            with contextlib.suppress(OSError):  # the rating process is gone: the leaderboard rates afterwards
                self.conn.send(self.waiting)
            self.waiting = []

    def game_done(self, finished: FinishedGame) -> None:
        """An observer of the run loop: one game played now."""
        record = finished.record
        self._add(finished.spec.game, finished.spec.order, record["players"], record["result"]["ranks"])

    def finish(self) -> None:
        """Wait for the ratings; cache those of every fully rated game where the leaderboard finds them."""
        ratings: dict[str, dict[str, tuple[float, float]]] = {}
        if self.process is not None:
            self._send()
            try:
                self.conn.send(None)
                ratings = self.conn.recv()
            except (OSError, EOFError):
                pass
            finally:
                self.conn.close()
                self.process.join()
        for game, by_bot in ratings.items():
            self.store.cache_figures(game, len(self.orders[game]), {
                "rater": self.rater, "ratings": {bot: [mu, sigma] for bot, (mu, sigma) in by_bot.items()}})
        for game, payload in self.settled.items():  # marking the schedule current may have moved the stamp
            self.store.cache_figures(game, len(self.orders[game]), payload)
