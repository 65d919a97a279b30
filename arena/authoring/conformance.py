"""The conformance check of one bot: games against ``random``, faults, decision times, determinism.

For each game the bot plays, it plays ``games`` games at every player count in
turn, sitting in every seat in turn, against ``random`` (or against copies of
itself in a game ``random`` does not play). The first games are played a
second time with the same setup and seeds: a bot that draws its randomness
from its seed and does not depend on the clock makes the same moves again.
``arena check-bot`` prints the :class:`BotReport`; ``arena.testing.check_bot``
asserts on it.
"""

from __future__ import annotations

import math
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable

from tabulate import tabulate

from arena.entrants import Entrant, check_entrants_play, parse_spec
from arena.errors import BadBotSpec
from arena.games.base import Game
from arena.match import InProcessBot, Limits, Seat, derive_seed, play_game
from arena.plugins import Plugins
from arena.safetext import escape
from arena.sandbox.own_files import with_neighbours
from arena.seating import SeatPool
from arena.trace import StderrCursor, captured_output

#: How many of each game's games are played twice to compare the moves.
REPEATED_GAMES = 2
#: How many faults of each kind the report quotes.
EXAMPLES_PER_KIND = 3


@dataclass
class GameCheck:
    """What one game's check found."""

    game: str
    opponent: str
    move_ms: int
    bank_ms: int
    games: int = 0
    player_counts: list[int] = field(default_factory=list)
    faults: list[dict[str, Any]] = field(default_factory=list)
    #: per answered decision: the time charged against the limits (on the seat's clock), CPU and wall time
    times_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    wall_ms: list[float] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    repeated: int = 0
    #: the first move a repeated game differed at, or None when every repeat matched
    difference: str | None = None

    @property
    def faults_by_kind(self) -> Counter[str]:
        return Counter(fault["kind"] for fault in self.faults)

    @property
    def deterministic(self) -> bool:
        return self.difference is None

    def examples(self) -> list[dict[str, Any]]:
        """The first faults of each kind, in the order they happened."""
        seen: Counter[str] = Counter()
        chosen = []
        for fault in self.faults:
            seen[fault["kind"]] += 1
            if seen[fault["kind"]] <= EXAMPLES_PER_KIND:
                chosen.append(fault)
        return chosen

    def percentile(self, share: float, times: list[float] | None = None) -> float:
        """The decision time (ms) that ``share`` of the decisions did not exceed (nearest rank).

        ``times``: which times (default: the time charged, :attr:`times_ms`).
        """
        times = self.times_ms if times is None else times
        if not times:
            return 0.0
        ordered = sorted(times)
        return ordered[max(0, math.ceil(share * len(ordered)) - 1)]

    def spread(self, times: list[float]) -> dict[str, Any]:
        return {key: self.percentile(share, times) for key, share in
                (("p50", 0.5), ("p90", 0.9), ("p99", 0.99), ("max", 1.0))}

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "opponent": self.opponent,
            "games": self.games,
            "players": sorted(set(self.player_counts)),
            "faults": dict(self.faults_by_kind),
            "fault_examples": self.examples(),
            "decisions": len(self.times_ms),
            "time_ms": self.spread(self.times_ms),
            "cpu_ms": self.spread(self.cpu_ms) if self.cpu_ms else None,
            "wall_ms": self.spread(self.wall_ms),
            "limits_ms": {"move": self.move_ms, "bank": self.bank_ms},
            "over_move_limit": sum(1 for used in self.times_ms if used > self.move_ms),
            "mean_rank": sum(self.ranks) / len(self.ranks) if self.ranks else None,
            "first_places": self.ranks.count(1),
            "repeated_games": self.repeated,
            "deterministic": self.deterministic,
            "difference": self.difference,
        }


@dataclass
class BotReport:
    """The check of one bot over every game it was checked in."""

    bot: str
    sandbox: str
    checks: list[GameCheck]

    @property
    def faulted(self) -> bool:
        return any(check.faults for check in self.checks)

    @property
    def games_played(self) -> int:
        return sum(check.games for check in self.checks)

    def check(self, game: str) -> GameCheck:
        """The check of ``game``."""
        return next(check for check in self.checks if check.game == game)

    def as_dict(self) -> dict[str, Any]:
        return {"bot": self.bot, "sandbox": self.sandbox, "faulted": self.faulted,
                "games": [check.as_dict() for check in self.checks]}

    def format(self) -> str:
        """The readable report ``arena check-bot`` prints."""
        rows = []
        for check in self.checks:
            facts = check.as_dict()
            kinds = ", ".join(f"{kind} {count}" for kind, count in sorted(facts["faults"].items()))
            rows.append([
                check.game, f"{check.games} vs {check.opponent}",
                ", ".join(map(str, facts["players"])), kinds or "none", facts["decisions"],
                _spread(facts["cpu_ms"]), _spread(facts["wall_ms"]),
                f"{check.move_ms} + {check.bank_ms}", facts["over_move_limit"],
                "-" if facts["mean_rank"] is None else f"{facts['mean_rank']:.2f}",
                "yes" if check.deterministic else "NO",
            ])
        lines = [f"Bot {self.bot}, sandbox {self.sandbox}", "", tabulate(rows, headers=[
            "game", "games", "players", "faults", "decisions", "CPU ms p50/p90/max", "wall ms p50/p90/max",
            "limit ms (move + bank)", "over move", "mean rank", "deterministic"], disable_numparse=True),
            "", "Per decision: CPU time the bot used, and wall time from the request sent to the answer read "
            "(a sandboxed bot is charged its CPU time where the kernel measures it, else wall time)."]
        for check in self.checks:
            for fault in check.examples():
                move = "start" if fault["move"] is None else f"move {fault['move']}"
                lines.append(f"{check.game}: {fault['kind']} in {fault['game_id']}, {move} "
                             f"({fault['decision']}): {fault['detail']}")
                if fault.get("stderr"):
                    lines.append("  the bot's stderr, last lines:")
                    lines.extend(f"  | {line}" for line in fault["stderr"])
            if check.difference:
                lines.append(f"{check.game}: not deterministic: {check.difference}")
        lines.append("")
        lines.append("FAULTS: the bot faulted (see above)" if self.faulted else
                     f"OK: {self.games_played} games without a fault")
        return "\n".join(lines)


def _spread(times: dict[str, Any] | None) -> str:
    if not times:
        return "-"
    return " / ".join(f"{times[key]:.2f}" for key in ("p50", "p90", "max"))


#: lines of the bot's stderr shown with a fault
STDERR_LINES = 10


class TimedSeat:
    """A seat adapter that passes everything through and keeps each answered decision's times and stderr.

    Times: the one charged against the limits (``used``, on the seat's clock),
    the CPU time the bot used (a process seat's ``cpu_ns()``, this thread's CPU
    time for an in-process bot) and the wall time of the exchange.
    """

    def __init__(self, seat: Seat, check: "GameCheck | None") -> None:
        self.seat = seat
        self.check = check
        self.cursor = StderrCursor(seat)
        self.written = ""  # the bot's stderr during this game

    @property
    def clock(self) -> str:
        return getattr(self.seat, "clock", "wall")

    def _cpu_ns(self) -> int | None:
        if isinstance(self.seat, InProcessBot):
            return time.thread_time_ns()
        cpu_ns = getattr(self.seat, "cpu_ns", None)
        try:
            return cpu_ns() if callable(cpu_ns) else None
        except Exception:
            return None

    def _look(self) -> None:
        self.written += self.cursor.fresh()

    def start(self, info: dict[str, Any], limit_ms: float) -> None:
        try:
            with captured_output(self.seat, self.cursor.captured):
                self.seat.start(info, limit_ms)
        finally:
            self._look()

    def decide(self, request: dict[str, Any], limit_ms: float) -> tuple[Any, float]:
        cpu_before, began = self._cpu_ns(), time.perf_counter()
        try:
            with captured_output(self.seat, self.cursor.captured):
                action, used = self.seat.decide(request, limit_ms)
        finally:
            self._look()
        wall = (time.perf_counter() - began) * 1000
        cpu_after = self._cpu_ns()
        if self.check is not None:
            self.check.times_ms.append(used)
            self.check.wall_ms.append(wall)
            if cpu_before is not None and cpu_after is not None and cpu_after >= cpu_before:
                self.check.cpu_ms.append((cpu_after - cpu_before) / 1e6)
        return action, used

    def end(self, info: dict[str, Any]) -> None:
        with captured_output(self.seat, self.cursor.captured):
            self.seat.end(info)
        self._look()

    def close(self) -> None:
        self.seat.close()

    def stderr_lines(self) -> list[str]:
        """The last lines the bot wrote on stderr (or printed) this game, escaped for a terminal."""
        self._look()
        lines = [escape(line.rstrip()) for line in self.written.splitlines() if line.strip()]
        return lines[-STDERR_LINES:]


@dataclass(frozen=True)
class ObjectEntrant(Entrant):
    """An entrant made from a Python object (a class or factory) rather than a spec; in-process only."""

    make: Callable[[], Any] | None = field(default=None, compare=False)

    def factory(self, plugins: Plugins) -> Callable[[], Any]:
        if self.make is None:
            raise BadBotSpec(f"bot {self.name} was made without a factory")
        return self.make


def entrant_for(bot: str | Callable[..., Any], plugins: Plugins, sandbox: str) -> Entrant:
    """The entrant of a bot spec, or of a Python class or factory (see ``arena.testing.check_bot``)."""
    if isinstance(bot, str):
        return parse_spec(bot, plugins)
    if not callable(bot):
        raise BadBotSpec(f"expected a bot spec or a bot class, got {bot!r}")
    name = getattr(bot, "__name__", "bot")
    where = f"{getattr(bot, '__module__', '')}:{getattr(bot, '__qualname__', '')}"
    if sandbox == "none":
        return ObjectEntrant(name, "py", where, {}, f"{name}=py:{where}", make=bot)
    if "<" in where or where.startswith(":") or where.endswith(":"):
        raise BadBotSpec(f"bot {name} is not importable as MODULE:CLASS; check it with sandbox='none' "
                         f"or give its spec")
    return parse_spec(f"{name}=py:{where}")


def games_of(entrant: Entrant, plugins: Plugins, game: str | None) -> list[str]:
    """The games to check: ``game`` alone, else every game the bot plays."""
    if game is not None:
        check_entrants_play(plugins.game(game), [entrant], plugins)
        return [game]
    return [name for name in sorted(plugins.games) if entrant.plays(name, plugins)]


def check_bot_games(entrant: Entrant, plugins: Plugins, *, game: str | None = None, games: int = 6,
                    sandbox: str = "process", limits: Limits = Limits(), seed: int = 1) -> BotReport:
    """Play ``entrant`` against ``random`` in each of its games and report what happened."""
    pool = SeatPool(plugins, sandbox, limits)
    try:
        checks = [_check_one_game(entrant, plugins.game(name), plugins, pool, games, limits, seed)
                  for name in games_of(entrant, plugins, game)]
    finally:
        pool.close()
    return BotReport(entrant.name, sandbox, checks)


def _check_one_game(entrant: Entrant, game: Game, plugins: Plugins, pool: SeatPool, games: int,
                    limits: Limits, seed: int) -> GameCheck:
    opponent = parse_spec("random", plugins)
    if not opponent.plays(game.name, plugins):
        opponent = entrant
    # as in a run: neither is shown a folder holding the other's files (``random`` claims none, self-play none)
    entrant, opponent = with_neighbours([entrant, opponent])
    check = GameCheck(game.name, opponent.name, limits.move_ms, limits.bank_ms)
    counts = list(range(game.min_players, game.max_players + 1))
    for index in range(games):
        players = counts[index % len(counts)]
        seat = index % players
        game_seed = derive_seed(seed, "check", game.name, index)
        entrants = [entrant if place == seat else opponent for place in range(players)]
        record, stderr = _play(game, entrants, seat, game_seed, f"check/{game.name}/{index}", pool, limits,
                               plugins, check)
        check.games += 1
        check.player_counts.append(players)
        check.ranks.append(record["result"]["ranks"][seat])
        check.faults.extend({**fault, "game_id": record["id"], "stderr": stderr} for fault in record["faults"]
                            if fault["seat"] == seat)
        if index < REPEATED_GAMES:
            again, _ = _play(game, entrants, seat, game_seed, f"check/{game.name}/{index}/again", pool,
                             limits, plugins, None)
            check.repeated += 1
            if check.difference is None:
                check.difference = _first_difference(record, again)
    return check


def _play(game: Game, entrants: list[Entrant], seat: int, seed: int, game_id: str, pool: SeatPool,
          limits: Limits, plugins: Plugins, check: GameCheck | None) -> tuple[dict[str, Any], list[str]]:
    """Play one game with the checked bot in ``seat``; its record and the bot's last stderr lines.

    ``check`` (None for a repeat) gets the checked seat's decision times.
    """
    options = game.check_options(len(entrants), {})
    setup = game.random_setup(len(entrants), options, random.Random(seed))
    seats = pool.seats(entrants)
    playing = list(seats)
    timed = playing[seat] = TimedSeat(seats[seat], check)
    try:
        record = play_game(game, options, setup, playing, [e.name for e in entrants], game_id=game_id,
                           seed=seed, bot_seeds=[derive_seed(seed, "bot", place) for place in range(len(seats))],
                           limits=limits)
        return record, timed.stderr_lines()
    finally:
        pool.release(seats)


def _first_difference(first: dict[str, Any], second: dict[str, Any]) -> str | None:
    """Where two plays of the same game first differ (None when they do not)."""
    for index, (one, two) in enumerate(zip(first["moves"], second["moves"])):
        if one != two:
            return (f"game {first['id']}, move {index} ({one['decision']}): "
                    f"{one['action']} the first time, {two['action']} the second")
    if len(first["moves"]) != len(second["moves"]):
        return f"game {first['id']}: {len(first['moves'])} moves the first time, {len(second['moves'])} the second"
    return None
