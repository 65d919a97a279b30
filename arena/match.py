"""Playing one game: the loop that asks bots, enforces time, records faults and moves.

``play_game`` is a pure function of the game, its options, setup, bots,
limits and seeds (bots allowing), and returns the game record of protocol.md
section 6. It never raises because of a bot: every misbehaviour becomes a
fault and the decision's default action is applied.
"""

from __future__ import annotations

import hashlib
import logging
from time import perf_counter
from dataclasses import dataclass, asdict
from typing import Any, Callable, Literal, Protocol, Sequence

from arena.errors import ActionError, BotCrashed, BotFault, BotTimeout, MalformedAction
from arena.games.base import Game, GameState, LogEntry
from arena.safetext import cap_detail

log = logging.getLogger("arena.match")

#: what a jailed bot's ``/proc`` may show (:attr:`Limits.proc`)
ProcView = Literal["full", "processes"]
PROC_VIEWS: tuple[ProcView, ...] = ("full", "processes")


@dataclass(frozen=True)
class Limits:
    """Time and resource limits per bot (the tournament file's ``[limits]``)."""

    start_ms: int = 5000
    move_ms: int = 1000
    bank_ms: int = 10000
    memory_mb: int = 512
    max_faults: int = 3
    #: a bot process may play several games in a row (faster, but it can remember); default: fresh per game
    reuse: bool = False
    #: threads numeric libraries start in a bot process (``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``,
    #: ``MKL_NUM_THREADS``): one core's worth by default, so they start under any memory limit
    threads: int = 1
    #: what a jailed bot's ``/proc`` shows (the tournament file's ``[sandbox] proc``): ``full`` (its processes and
    #: the machine's counters, which honest libraries read) or ``processes`` (its processes only: none of the
    #: machine's counters another bot moves; ``import psutil`` fails)
    proc: ProcView = "full"

    def time_message(self) -> dict[str, Any]:
        return {"start_ms": self.start_ms, "move_ms": self.move_ms, "bank_ms": self.bank_ms}

    def as_dict(self) -> dict[str, Any]:
        """The limits as plain JSON (``reuse``, ``threads`` and ``proc`` only when not the default, so older
        definitions keep their digests)."""
        values = asdict(self)
        if not self.reuse:
            del values["reuse"]
        if self.threads == 1:
            del values["threads"]
        if self.proc == "full":
            del values["proc"]
        return values


def derive_seed(*parts: Any) -> int:
    """A 63-bit seed that follows only from ``parts`` (same on every machine and run)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


class Request(dict[str, Any]):
    """A ``decide`` message whose ``view`` and ``events`` are built only when read.

    Building a view costs more than most bots' whole decision, and many bots
    never read it; so ``request["view"]`` (and ``.get``/``in``) builds it on first
    use. :meth:`full` gives a plain dict for sending over a pipe.
    """

    __slots__ = ("_state", "_seat", "_first", "_last")
    _state: GameState
    _seat: int
    _first: int
    _last: int | None
    #: the keys built on first read
    LAZY: tuple[str, ...] = ("view", "events")

    def __missing__(self, key: str) -> Any:
        if key not in self.LAZY:
            raise KeyError(key)
        value: dict[str, Any] | list[dict[str, Any]]
        if key == "view":
            value = self._state.view(self._seat)
        else:
            value = events_for(self._state.log, self._seat, self._first, self._last)
        self[key] = value
        return value

    def get(self, key: str, default: Any = None) -> Any:
        if key in self.LAZY:
            return self[key]
        return dict.get(self, key, default)

    def __contains__(self, key: object) -> bool:
        return key in self.LAZY or dict.__contains__(self, key)

    def full(self) -> dict[str, Any]:
        """A plain dict with the lazy keys built."""
        for key in self.LAZY:
            self[key]  # noqa: B018 - builds it
        return dict(self)


class EndMessage(Request):
    """An ``end`` message whose ``events`` (those since the seat's last decision) are built only when read:
    in-process bots seldom read them, and an engine may then never build its events at all."""

    __slots__ = ()
    LAZY = ("events",)


def events_for(log_: list[LogEntry], seat: int, first: int, last: int | None = None) -> list[dict[str, Any]]:
    """The events of ``log_[first:last]`` that ``seat`` may see."""
    return [event for audience, event in log_[first:last] if audience is None or audience == seat]


class Seat(Protocol):
    """A seat adapter: how the game loop talks to one seat's bot, wherever it runs (:class:`InProcessBot`,
    the sandbox's process adapters). ``decide`` returns the bot's answer (anything: the loop checks it) and
    the milliseconds charged against the limits; a misbehaving bot raises :class:`arena.errors.BotFault`."""

    @property
    def clock(self) -> str: ...

    def start(self, info: dict[str, Any], limit_ms: float) -> None: ...

    def decide(self, request: dict[str, Any], limit_ms: float) -> tuple[Any, float]: ...

    def end(self, info: dict[str, Any]) -> None: ...

    def close(self) -> None: ...


#: what ``bot.decide`` is before a bot starts (``None``): calling it fails as calling ``None.decide`` would
_NO_BOT: Any = None


def _unstarted(request: dict[str, Any]) -> Any:
    """The ``decide`` of a seat with no bot (before its start, after its end): fails as ``None.decide`` does."""
    return _NO_BOT.decide(request)


def _decide_of(bot: Any) -> Callable[[dict[str, Any]], Any]:
    """``bot.decide``, looked up once; without one (or before a bot starts, ``bot`` None) a stand-in
    that fails exactly as calling ``bot.decide`` would, so the fault reads the same."""
    if bot is None:
        return _unstarted
    decide = getattr(bot, "decide", None)
    if decide is not None:
        return decide  # type: ignore[no-any-return]

    def missing(request: dict[str, Any]) -> Any:
        return bot.decide(request)

    return missing


def _crashed(error: Exception) -> BotCrashed:
    """The fault of an in-process bot whose ``decide`` raised ``error``."""
    return BotCrashed(f"decide raised {error!r}")


def _unserved(what: str, error: Exception) -> BotCrashed:
    """The fault of a seat whose adapter raised ``error`` (not a fault) while serving it: whatever a bot or
    its process sent, the game goes on (the error is logged with its traceback, it may be the runner's)."""
    log.error("a seat's adapter raised in %s", what, exc_info=error)
    return BotCrashed(f"{what}: the runner could not serve this seat: {error!r}")


def _late(used: float, limit_ms: float) -> BotTimeout:
    """The fault of an in-process bot that answered after ``used`` ms, over ``limit_ms``."""
    return BotTimeout(f"answered after {used:.0f} ms, limit {limit_ms:.0f} ms (wall clock)")


class InProcessBot:
    """Runs a Python bot in this process (``--sandbox none``): trusted code only.

    Time is measured on the wall clock after the fact; a late answer is a
    timeout fault, but a bot that never returns cannot be stopped here.
    """

    clock = "wall"

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.factory = factory
        self.bot: Any = None
        #: the bot's ``decide``, looked up once, after the bot's own ``start`` (which may set it)
        self._decide: Callable[[dict[str, Any]], Any] = _unstarted

    def start(self, info: dict[str, Any], limit_ms: float) -> None:
        began = perf_counter()
        try:
            self.bot = self.factory()
            start = getattr(self.bot, "start", None)
            if start is not None:
                start(info)
            self._decide = _decide_of(self.bot)
        except Exception as error:
            raise BotCrashed(f"start raised {error!r}") from None
        used = (perf_counter() - began) * 1000
        if used > limit_ms:
            raise BotTimeout(f"start took {used:.0f} ms, limit {limit_ms:.0f} ms (wall clock)")

    def decide(self, request: dict[str, Any], limit_ms: float) -> tuple[Any, float]:
        """The bot's answer and the wall milliseconds it took (``play_game`` inlines this for speed)."""
        began = perf_counter()
        try:
            action = self._decide(request)
        except Exception as error:
            raise _crashed(error) from None
        used = (perf_counter() - began) * 1000
        if used > limit_ms:
            raise _late(used, limit_ms)
        return action, used

    def end(self, info: dict[str, Any]) -> None:
        end = getattr(self.bot, "end", None)
        if end is not None:
            full = getattr(info, "full", None)  # an EndMessage: a bot with an ``end`` gets its events built
            try:
                end(full() if full is not None else info)
            except Exception:
                pass
        self.bot = None
        self._decide = _unstarted

    def close(self) -> None:
        self.bot = None
        self._decide = _unstarted


def play_game(
    game: Game,
    options: dict[str, Any],
    setup: dict[str, Any],
    bots: Sequence[Seat],
    names: list[str],
    *,
    game_id: str,
    seed: int,
    bot_seeds: list[int],
    limits: Limits = Limits(),
    keep_state: list[GameState] | None = None,
) -> dict[str, Any]:
    """Play one game to its end and return its record.

    :param bots: one adapter per seat (``start``/``decide``/``end``, see
        :class:`InProcessBot`; the sandbox's process adapters behave the same).
    :param keep_state: when a list is given, the final state is appended to it
        (``arena play`` narrates from the state's full log).
    """
    players = len(bots)
    state = game.new_state(setup, options)
    #: the record's move objects, made as each move is applied (a tuple now and a dict at the end cost more)
    moves: list[dict[str, Any]] = []
    faults: list[dict[str, Any]] = []
    fault_count = [0] * players
    stopped = [False] * players
    bank = [float(limits.bank_ms)] * players
    cursors = [0] * players
    move_ms = limits.move_ms
    setup_public = {"money": state.money(), "first": setup.get("first", 0)}
    #: an InProcessBot's own bot's ``decide`` by seat, called directly (one call less per decision), else None
    #: (another adapter, or a seat stopped after its faults: the loop's slower path serves those)
    direct: list[Callable[[dict[str, Any]], Any] | None] = [None] * players

    def fault(seat: int, decision: str | None, kind: str, detail: str, move: int | None, **extra: Any) -> None:
        entry = {"seat": seat, "move": move, "decision": decision, "kind": kind, "detail": cap_detail(detail)}
        entry.update(extra)
        faults.append(entry)
        fault_count[seat] += 1
        if fault_count[seat] >= limits.max_faults:
            stopped[seat] = True
            direct[seat] = None
        log.warning("game %s: seat %d (%s) %s fault in %s: %s", game_id, seat, names[seat], kind, decision,
                    entry["detail"])

    seat: int | None
    start_ms, bank_ms, game_name, players_named = limits.start_ms, limits.bank_ms, game.name, list(names)
    for seat, bot in enumerate(bots):
        info = {
            "type": "start",
            "game": game_name,
            "seat": seat,
            "players": players_named[:],
            "options": options,
            "time": {"start_ms": start_ms, "move_ms": move_ms, "bank_ms": bank_ms},
            "setup_public": setup_public,
            "seed": bot_seeds[seat],
        }
        try:
            try:
                bot.start(info, start_ms)
            except BotFault:
                raise
            except Exception as error:  # never a failed game: see _unserved
                raise _unserved("start", error) from None
        except BotFault as error:
            fault(seat, "start", error.kind, str(error), None, clock=getattr(bot, "clock", "wall"))
            stopped[seat] = True
        else:
            if type(bot) is InProcessBot:
                direct[seat] = bot._decide

    # the hot loop: one pass per decision, so what does not change between decisions is looked up once
    # a state that is not a GameState subclass (duck-typed) has no log_counter: its log list's length serves
    counter = getattr(state, "log_counter", None)
    log_length = counter() if counter is not None else state.log.__len__
    apply = state.apply
    decides = [bot.decide for bot in bots]
    #: each seat's time for its next decision (move time plus bank), recomputed only when its bank shrinks
    allowed = [move_ms + banked for banked in bank]
    time_left = [int(ms) for ms in allowed]
    #: an in-process answer within this many ms needs no look at the seat's bank: none is over its move time,
    #: nor its allowance (a bank never goes below zero, nor below the limits' own when that is negative)
    quick_ms = move_ms + min(0, bank_ms)
    # one request object for the whole game, its keys overwritten in place (same keys, same order): a bot
    # that keeps a request past its decision copies it
    request = Request()
    request["type"] = "decide"
    request["decision"] = request["legal"] = None
    #: every seat has the same time left until a bank first shrinks: until then the request keeps that value
    request["time_left_ms"] = time_left[0] if time_left else None
    times_differ = False
    request._state = state
    fixed_keys = len(request)
    record_move = moves.append
    # one clock read per decision: an in-process bot's time runs from the previous read (the engine's few
    # microseconds of apply between them count, as they would on the bot's own clock); every other path
    # reads the clock again before the next in-process decision
    last = perf_counter()
    while (seat := state.seat) is not None:
        decision = state.decision
        bot_decide = direct[seat]
        if bot_decide is not None:  # an in-process bot: what InProcessBot.decide does, inlined
            if len(request) != fixed_keys:  # a lazy key built for the previous decision
                request.pop("view", None)
                request.pop("events", None)
            request["decision"] = decision
            request["legal"] = state.legal
            if times_differ:
                request["time_left_ms"] = time_left[seat]
            request._seat = seat
            request._first = cursors[seat]
            request._last = cursors[seat] = log_length()
            try:
                try:
                    action = bot_decide(request)
                except Exception as error:
                    raise _crashed(error) from None
                now = perf_counter()
                used = (now - last) * 1000
                last = now
                if used > quick_ms:
                    if used > allowed[seat]:
                        raise _late(used, allowed[seat])
                    if used > move_ms:
                        bank[seat] -= used - move_ms
                        allowed[seat] = move_ms + bank[seat]
                        time_left[seat] = int(allowed[seat])
                        times_differ = True
                if type(action) is not dict:
                    raise MalformedAction(f"{decision}: expected a JSON object, got {action!r}")
                apply(action)
                record_move({"seat": seat, "decision": decision, "action": action})
                continue
            except BotFault as error:
                failure: BotFault | ActionError = error
            except ActionError as error:
                failure = error
        elif stopped[seat]:
            action = state.default_action()
            record_move({"seat": seat, "decision": decision, "action": action})
            apply(action)
            last = perf_counter()
            continue
        else:  # another adapter (a process)
            if len(request) != fixed_keys:
                request.pop("view", None)
                request.pop("events", None)
            request["decision"] = decision
            request["legal"] = state.legal
            request["time_left_ms"] = time_left[seat]
            request._seat = seat
            request._first = cursors[seat]
            request._last = cursors[seat] = log_length()
            try:
                try:
                    action, used = decides[seat](request, allowed[seat])
                except BotFault:
                    raise
                except Exception as error:
                    raise _unserved(str(decision), error) from None
                last = perf_counter()
                if used > move_ms:
                    bank[seat] -= used - move_ms
                    allowed[seat] = move_ms + bank[seat]
                    time_left[seat] = int(allowed[seat])
                    times_differ = True
                if type(action) is not dict:
                    raise MalformedAction(f"{decision}: expected a JSON object, got {action!r}")
                apply(action)
                record_move({"seat": seat, "decision": decision, "action": action})
                continue
            except BotFault as error:
                failure = error
            except ActionError as error:
                failure = error
        # a fault: the decision's default action is applied
        if isinstance(failure, BotFault):
            if failure.stops_seat:
                stopped[seat] = True
                direct[seat] = None
            action = state.default_action()
            fault(seat, decision, failure.kind, str(failure), len(moves),
                  **({"clock": getattr(failure, "clock", None) or bots[seat].clock}
                     if failure.kind == "timeout" else {}))
        else:
            action = state.default_action()
            fault(seat, decision, failure.fault_kind, str(failure), len(moves))
        record_move({"seat": seat, "decision": decision, "action": action})
        apply(action)
        last = perf_counter()

    result = state.result()
    # a crashed or timed-out bot is not spoken to again this game
    silenced = {f["seat"] for f in faults if f["kind"] in ("crash", "timeout")} if faults else ()
    for seat, bot in enumerate(bots):
        if seat in silenced:
            continue
        if type(bot) is InProcessBot and getattr(bot.bot, "end", None) is None:
            bot.bot = None  # what InProcessBot.end does for a bot without an ``end``: no message to build
            bot._decide = _unstarted
            continue
        message = EndMessage()
        message["type"] = "end"
        message["result"] = result
        message._state, message._seat, message._first, message._last = state, seat, cursors[seat], None
        try:
            # an in-process bot without an ``end`` never needs the events; any other seat is sent them
            bot.end(message if isinstance(bot, InProcessBot) else message.full())
        except BotFault:
            pass
        except Exception as error:
            fault(seat, "end", "crash", str(_unserved("end", error)), None)
    if keep_state is not None:
        keep_state.append(state)
    return {
        "id": game_id,
        "game": game.name,
        "options": options,
        "seed": seed,
        "players": list(names),
        "setup": setup,
        "moves": moves,
        "result": result,
        "faults": faults,
    }

