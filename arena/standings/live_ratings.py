"""Rating games while they are played: the run's store writer rates them in schedule order as it stores them.

The leaderboard's rating pass (TrueSkill: about 40 µs a four-player game
with :mod:`arena.standings.trueskill_ffa`) used to start only after the last
game. :class:`LiveRatings` gives the run's store writer (the process that
inserts every game's rows, :mod:`arena.runs.writer`) a task: rate each
batch's games from the rows it has just stored (their seats' bots and ranks),
keeping one :class:`~arena.standings.raters.Rater` per game and rating each
game of the schedule as soon as every game before it in schedule order is in
hand (a game that arrives early waits), starting with the reused games. So
the ratings are exactly those of a rating pass after the run, for any ``-j``.
When every game of a game is rated, the ratings go into the store's figure
cache, where the leaderboard finds them.

Why in the writer: on two cores every process that is not a worker takes
from the workers at ``-j 2``. The rating was a process of its own, fed by
the main process a message per 64 games: 40 µs of rating, about 10 µs of
receiving in the rating process and 14 µs of sending in the main process a
game. The writer already holds each game's seats, so the main process now
sends nothing for the ratings and one process and one pipe are gone. If the
rating fails, or the run stores in-process (``-j 0``) or has nothing to
play, the run goes on and the leaderboard rates the games itself afterwards.

The writer keeps the seats it stores too (:class:`~arena.standings.seats.SeatCollector`:
a few integer columns, about 2 us a game), and sends them with the ratings.
When they are exactly a game's schedule (every game played in this run,
none reused, none twice), the run's leaderboard takes them as they are
(:attr:`LiveRatings.seats`) instead of reading every seat back from the
store after the last game: 6-8 us a game that no worker plays beside, at any
``-j``. Otherwise (games reused, the rating done beside the writer, a run
stopped) the leaderboard reads the store as before.
"""

from __future__ import annotations

from typing import Any, Iterable, NamedTuple, Sequence

from arena.runs.deals import orders_by_game
from arena.runs.spec import FinishedGame, GameSpec
from arena.runs.store import GameRows, Store, StoredGame
from arena.runs.writer import Placing
from arena.standings.raters import Rater, SeatedGame
from arena.standings.seats import GameSeats, SeatCollector, SeatColumns, from_columns

#: reused games rated after each batch the writer stores
REUSED_SLICE = 2048
#: where :func:`arena.runs.store.game_rows` puts a game's name and its order in the schedule
_GAME, _ORDER = 2, 6


class _GameStream:
    """One game's seats, rated in schedule order as soon as they are contiguous."""

    def __init__(self, rater: str, orders: list[int]) -> None:
        self.orders = orders
        self.position = 0
        self.early: dict[int, SeatedGame] = {}
        self.rater = Rater(rater)

    def add(self, order: int, game: SeatedGame) -> None:
        orders, early = self.orders, self.early
        if not early and self.position < len(orders) and orders[self.position] == order:  # the next one: rated now
            self.rater.add(*game)
            self.position += 1
            return
        early[order] = game
        while self.position < len(orders) and orders[self.position] in early:
            self.rater.add(*early.pop(orders[self.position]))
            self.position += 1

    def add_many(self, games: list[tuple[int, SeatedGame]]) -> None:
        """:meth:`add` of each of ``games`` (order, seats) in the order they came, the games ready to rate
        rated in one call (:meth:`~arena.standings.raters.Rater.add_games`)."""
        orders, early, position = self.orders, self.early, self.position
        end = len(orders)
        ready: list[SeatedGame] = []
        for order, game in games:
            if not early and position < end and orders[position] == order:  # the next one: rated with this batch
                ready.append(game)
                position += 1
                continue
            early[order] = game
            while position < end and orders[position] in early:
                ready.append(early.pop(orders[position]))
                position += 1
        self.position = position
        self.rater.add_games(ready)

    @property
    def complete(self) -> bool:
        """Whether every game of the schedule was rated (not so when a game failed or the run stopped)."""
        return self.position == len(self.orders)


class LiveResult(NamedTuple):
    """What the writer's task sends back: per game, the ratings of its whole schedule and the seats it stored."""

    ratings: dict[str, dict[str, tuple[float, float]]]
    seats: dict[str, SeatColumns]


class _Rating:
    """The writer's task (:class:`arena.runs.writer.WriterTask`): rate stored games per game, in schedule order.

    Made in the main process with the reused games' placings; forked with the
    writer, which calls :meth:`begin`, :meth:`add` and :meth:`result`; the
    main process then gets the result in :meth:`received`.
    """

    def __init__(self, rater: str, orders: dict[str, list[int]], reused: list[tuple[str, int, Any, Any]]) -> None:
        self.rater = rater
        self.orders = orders
        self.reused = reused
        self.streams: dict[str, _GameStream] = {}
        self.seats: dict[str, SeatCollector] = {}
        self.ratings: dict[str, dict[str, tuple[float, float]]] = {}
        self.columns: dict[str, SeatColumns] = {}

    def begin(self) -> None:
        """In the writer, before its first batch."""
        self.streams = {game: _GameStream(self.rater, game_orders) for game, game_orders in self.orders.items()}
        reused = {game for game, *_ in self.reused}  # such a game's seats are the store's to give
        self.seats = {game: SeatCollector() for game in self.orders if game not in reused}
        self.reused.reverse()  # taken from the end, a slice with each batch

    def add(self, rows: list[GameRows]) -> None:
        """In the writer: a batch of games just stored, then a slice of the reused games.

        The reused games go in slices (at most :data:`REUSED_SLICE` a batch) so
        that a rerun of a large store does not keep the writer from the batches
        of the games played now; a game's stream rates them in schedule order whatever the order they come in.
        The games' seats are kept as they come (:class:`~arena.standings.seats.SeatCollector`).
        """
        seats, streams = self.seats, self.streams
        by_game: dict[str, list[tuple[int, SeatedGame]]] = {}
        for fields, game_seats, _ in rows:
            game = fields[_GAME]
            collector = seats.get(game)
            if collector is not None:
                collector.add(fields, game_seats)
            if game in streams:  # a game whose ratings were settled before the run is not rated again
                bots, _, _, ranks, _ = zip(*game_seats)  # the seats' rows: bot, version, money, rank, faults
                found = by_game.get(game)
                if found is None:
                    found = by_game[game] = []
                found.append((fields[_ORDER], (bots, ranks)))
        for game, games in by_game.items():
            streams[game].add_many(games)
        self._reused(REUSED_SLICE)

    def add_placings(self, games: Iterable[Placing]) -> None:
        """:meth:`add` from each game's name, order and seats' bots and ranks (what a writer that rates in a
        process beside it sends there)."""
        streams = self.streams
        by_game: dict[str, list[tuple[int, SeatedGame]]] = {}
        for game, order, bots, ranks in games:
            if game in streams:
                by_game.setdefault(game, []).append((order, (bots, ranks)))
        for game, games_of in by_game.items():
            streams[game].add_many(games_of)
        self._reused(REUSED_SLICE)

    def _reused(self, most: int) -> None:
        reused = self.reused
        for _ in range(min(most, len(reused))):
            game, order, bots, ranks = reused.pop()
            self.streams[game].add(order, (bots, ranks))

    def result(self) -> LiveResult:
        """In the writer, after the last batch: the ratings of every game whose schedule was rated whole, and
        the seats of every game it stored (beside the writer, :meth:`add` is not called: none)."""
        self._reused(len(self.reused))
        return LiveResult({game: {bot: (rating.mu, rating.sigma) for bot, rating in stream.rater.ratings().items()}
                           for game, stream in self.streams.items() if stream.complete},
                          {game: collector.columns for game, collector in self.seats.items()
                           if len(collector.columns.order)})

    def received(self, result: Any) -> None:
        """In the main process: what :meth:`result` gave (nothing when the rating failed)."""
        if isinstance(result, LiveResult):
            self.ratings, self.columns = result.ratings, result.seats
        else:
            self.ratings, self.columns = {}, {}


class LiveRatings:
    """Rates the games of a schedule per game, in schedule order, in the run's store writer while they are played."""

    #: the run's main process need not show it each game (:class:`arena.runs.run.Observer`): the writer rates
    sees_games = False

    def __init__(self, specs: Sequence[GameSpec], store: Store, rater: str, stored: dict[str, StoredGame]) -> None:
        """The rating of ``specs`` for the run's writer, reused games first (``stored``: the stored games now)."""
        self.store = store
        self.rater = rater
        self.orders = orders_by_game(specs)  # with nothing stored, nothing is settled: no spec is looked at
        by_game: dict[str, list[GameSpec]] = {}
        for spec in specs if stored else ():
            by_game.setdefault(spec.game, []).append(spec)
        self.settled = {game: ratings for game, game_specs in by_game.items()
                        if (ratings := self._settled_ratings(game, game_specs, stored))}
        #: per game whose every game was played in this run, its seats in schedule order (set by :meth:`finish`)
        self.seats: dict[str, GameSeats] = {}
        to_rate = {game: orders for game, orders in self.orders.items() if game not in self.settled}
        #: what the run's store writer does besides storing (run_schedule hands it over); None: nothing to rate
        self.writer_task: _Rating | None = None
        if not to_rate:
            return
        reused: list[tuple[str, int, Any, Any]] = []
        placings_by_key = store.placings_by_key() if stored else {}
        if placings_by_key:
            for spec in specs:
                seats = placings_by_key.get(spec.key)
                if seats is not None and spec.game in to_rate:
                    reused.append((spec.game, spec.order, [bot for bot, _ in seats], [rank for _, rank in seats]))
        self.writer_task = _Rating(rater, to_rate, reused)

    def _settled_ratings(self, game: str, specs: list[GameSpec], stored: dict[str, StoredGame]) -> Any:
        """The cached ratings of ``game`` when its schedule is stored and current as it was rated, else None.

        Such a game has nothing to play and its ratings still hold (a rerun
        with nothing new rates nothing: 100,000 games took a minute).
        """
        if not all((found := stored.get(spec.key)) is not None and found.current == spec.order for spec in specs):
            return None
        cached = self.store.cached_figures(game, len(specs))
        return cached if isinstance(cached, dict) and cached.get("rater") == self.rater else None

    def game_done(self, finished: FinishedGame) -> None:
        """An observer of the run loop: one game played now (never called: :attr:`sees_games`)."""

    def finish(self) -> None:
        """Cache the ratings of every fully rated game where the leaderboard finds them; keep the seats of
        every game the writer stored exactly as scheduled (:attr:`seats`)."""
        ratings = {} if self.writer_task is None else self.writer_task.ratings
        columns = {} if self.writer_task is None else self.writer_task.columns
        for game, game_columns in columns.items():
            if game in ratings and _same_orders(game_columns, self.orders[game]):
                self.seats[game] = from_columns(game_columns)
        for game, by_bot in ratings.items():
            self.store.cache_figures(game, len(self.orders[game]), {
                "rater": self.rater, "ratings": {bot: [mu, sigma] for bot, (mu, sigma) in by_bot.items()}})
        for game, payload in self.settled.items():  # marking the schedule current may have moved the stamp
            self.store.cache_figures(game, len(self.orders[game]), payload)


def _same_orders(columns: SeatColumns, orders: list[int]) -> bool:
    """Whether ``columns`` hold each game of ``orders`` once, and no other."""
    import numpy as np  # after the games (the run starts them without numpy: arena.standings.seats)

    got = np.frombuffer(columns.order, dtype=np.int64)
    return len(got) == len(orders) and bool(np.array_equal(np.sort(got), np.sort(np.asarray(orders, dtype=np.int64))))
