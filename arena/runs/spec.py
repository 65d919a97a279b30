"""What to play and what came of it: the values that cross from schedules to pools to the store.

A :class:`GameSpec` is a plain, picklable description of one game: everything
that decides it (game, options, setup, seats, seeds, limits), where it sits in
its schedule, and the version of the code each seat runs. Its :attr:`key`
hashes all of that, so a stored game is reused exactly when the game it
would be now is the same game (protocol.md section 6: "a stored game is
reused only while these match").

A :class:`FinishedGame` is a spec's record with how long it took and where.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Iterable, NamedTuple, Protocol, runtime_checkable

from arena.entrants import Entrant
from arena.match import Limits
from arena.runs.packed import PackedGame


@dataclass(frozen=True)
class GameSpec:
    """One scheduled game: where it sits in the schedule and everything needed to play it."""

    order: int  # position in the schedule: ratings and statistics follow it
    id: str
    game: str
    table: str  # the table's label within its game (its entrants, or "candidate"/"baseline")
    deal: int
    rotation: int
    options: dict[str, Any]
    setup: dict[str, Any]
    entrants: tuple[Entrant, ...]  # by seat
    seed: int  # the deal's seed: the record's ``seed``
    bot_seeds: tuple[int, ...]  # by seat
    limits: Limits
    sandbox: str
    versions: tuple[str, ...] = ()  # by seat: the code each seat runs (arena.versions)
    game_version: str = ""  # the game's rules and arena's game loop (arena.versions.game_versions)

    @classmethod
    def made(cls, fields: dict[str, Any]) -> GameSpec:
        """A spec of ``fields`` (every field, by name), made the fast way.

        A schedule's specs are made by the thousand in the main process before
        its first game, one after another (Amdahl's serial part of a run of
        many workers). A frozen dataclass's ``__init__`` sets its 15 fields one
        ``object.__setattr__`` at a time (about 3-5 µs a spec); here they go
        into the new instance's dict in one update (about 1). Equal fields give
        an equal spec either way (tests/test_tournament_schedule.py).
        """
        spec = object.__new__(cls)
        spec.__dict__.update(fields)
        return spec

    @property
    def names(self) -> list[str]:
        return [entrant.name for entrant in self.entrants]

    @cached_property
    def key(self) -> str:
        """A hash of everything that decides this game's record; equal keys give equal records.

        The hashed text is ``json.dumps`` of the dict below with sorted keys
        (:func:`key_text`), written here member by member in that order: the
        setup's and options' text is made once for the specs that share them
        (a deal's rotations, a schedule's games), a third of the time a key took.
        """
        parts = ['{"bot_seeds":', _list_text(self.bot_seeds), ',"game":', _string(self.game)]
        if self.game_version:  # a spec made without one keeps the key it had before games had versions
            parts += [',"game_version":', _string(self.game_version)]
        parts += [',"id":', _string(self.id), ',"limits":', _limits_text(self.limits), ',"options":',
                  _shared_text(self.options), ',"players":', _list_text(self.names), ',"seed":',
                  _list_text((self.seed,))[1:-1], ',"setup":', _shared_text(self.setup), ',"versions":',
                  _list_text(self.versions), "}"]
        return hashlib.sha256("".join(parts).encode()).hexdigest()


def key_text(spec: GameSpec) -> str:
    """The text :attr:`GameSpec.key` hashes, made the plain way (the tests hold the key to it)."""
    decided = {
        "id": spec.id, "game": spec.game, "options": spec.options, "setup": spec.setup,
        "players": spec.names, "versions": list(spec.versions), "seed": spec.seed,
        "bot_seeds": list(spec.bot_seeds), "limits": _limits_dict(spec.limits),
    }
    if spec.game_version:
        decided["game_version"] = spec.game_version
    return json.dumps(decided, sort_keys=True, separators=(",", ":"))


_ENCODER = json.JSONEncoder(sort_keys=True, separators=(",", ":"))
_text = _ENCODER.encode
_string: Callable[[str], str] = json.encoder.encode_basestring_ascii


def _list_text(values: Iterable[Any]) -> str:
    """``_text(list(values))`` for strings and ints (what JSON writes of them), without an encoder's set-up."""
    items = []
    for value in values:
        kind = type(value)
        if kind is str:
            items.append(_string(value))
        elif kind is int:
            items.append(int.__repr__(value))
        else:
            items.append(_text(value))
    return "[" + ",".join(items) + "]"


#: the text of the last few setups and options keyed, by identity (the object is kept, so its id stays its own)
_shared: dict[int, tuple[Any, str]] = {}
_SHARED_MOST = 64


def _shared_text(value: Any) -> str:
    """``_text(value)`` for a value many specs share (not changed once in a spec): made once while it is recent."""
    found = _shared.get(id(value))
    if found is not None and found[0] is value:
        return found[1]
    if len(_shared) >= _SHARED_MOST:
        _shared.clear()
    text = _text(value)
    _shared[id(value)] = (value, text)
    return text


@functools.lru_cache(maxsize=64)
def _limits_text(limits: Limits) -> str:
    return _text(_limits_dict(limits))


@functools.lru_cache(maxsize=64)
def _limits_dict(limits: Limits) -> dict[str, Any]:
    """``limits.as_dict()``, made once per limits: a schedule's specs share a few (dataclasses' asdict is slow)."""
    return limits.as_dict()


@dataclass(frozen=True)
class FinishedGame:
    """A played game: its spec, its record (protocol.md section 6), seconds of play and the worker's name.

    A worker sends the record packed for the store (``packed``: compressed,
    with its rows and log line, made once where the game was played; see
    :mod:`arena.runs.packed`) and ``record`` holds only what the main process
    reads of it (``players``, ``result``, ``faults``): the main process of a
    run only inserts, counts and logs. Without ``packed``, ``record`` is the whole record.
    """

    spec: GameSpec
    record: dict[str, Any]
    seconds: float = 0.0
    worker: str = ""
    packed: PackedGame | None = None


@dataclass(frozen=True)
class Outcome:
    """What a worker sends back for one spec, found again by its ``order``: a record, or why it failed.

    ``record`` is the record's summary (:data:`SUMMARY_KEYS`) and ``packed`` the whole record packed for the store.
    """

    order: int
    record: dict[str, Any] | None
    failure: str = ""
    seconds: float = 0.0
    worker: str = ""
    packed: PackedGame | None = None

    def finished(self, spec: GameSpec) -> FinishedGame:
        """The finished game of ``spec`` (whose outcome this is, with a record)."""
        assert self.record is not None
        return FinishedGame(spec, self.record, self.seconds, self.worker, self.packed)


#: what the main process reads of a record: the rest travels packed, straight to the store
SUMMARY_KEYS = ("id", "players", "result", "faults")


class Sink(Protocol):
    """Where a pool hands over what it played (in the main process, one call at a time)."""

    def done(self, finished: FinishedGame) -> None: ...

    def failed(self, spec: GameSpec, reason: str) -> None: ...

    def idle(self) -> None: ...


@runtime_checkable
class PackedSink(Sink, Protocol):
    """A sink that also takes a chunk's games with their store rows pickled in one piece (a local worker's chunk)."""

    def done_packed(self, finished: list[FinishedGame], rows: bytes, lines: str) -> None: ...


@runtime_checkable
class BriefSink(Sink, Protocol):
    """A sink that, when ``brief``, needs no game's record: a local worker's chunk comes as how many games it
    played, their seats and first places per bot, their store rows and log lines (:class:`BriefChunk`)."""

    brief: bool

    def done_brief(self, games: int, tally: dict[str, tuple[int, int]], rows: bytes, lines: str) -> None: ...


class BriefChunk(NamedTuple):
    """A local worker's chunk for a brief sink (:class:`BriefSink`): no record nor outcome a game.

    Per chunk the main process then unpickles a few lists, not an outcome
    and a record's summary a game (2-3 us a game of its CPU, and as much
    again handing them on), and counts the progress from one small tally.
    """

    orders: list[int]  # the games played, by their order in the schedule
    failures: list[tuple[int, str]]  # the games that failed: their order and why
    seconds: float  # the play time of all of them
    tally: dict[str, tuple[int, int]]  # per bot, over the games played: seats held and first places
    rows: bytes  # the store's rows of the games played, pickled in one piece
    lines: str  # their log lines


class PackedChunk(NamedTuple):
    """A local worker's chunk for a :class:`PackedSink`: outcomes without their packed games, whose store rows
    (:func:`arena.runs.store.game_rows`) come pickled in one piece, and whose log lines come in one string."""

    outcomes: list[Outcome]
    rows: bytes
    lines: str


@dataclass
class Schedule:
    """Games to play, in schedule order, with a summary of the plan kept in the store.

    ``specs`` may be a generator that stops early (a comparison stops once its
    test decides); ``total`` is the most it can give.
    """

    name: str
    specs: Iterable[GameSpec]
    total: int
    plan: dict[str, Any] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
