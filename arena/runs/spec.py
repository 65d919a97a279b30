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
from typing import Any, Iterable, Protocol

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

    @property
    def names(self) -> list[str]:
        return [entrant.name for entrant in self.entrants]

    @cached_property
    def key(self) -> str:
        """A hash of everything that decides this game's record; equal keys give equal records."""
        decided = {
            "id": self.id, "game": self.game, "options": self.options, "setup": self.setup,
            "players": self.names, "versions": list(self.versions), "seed": self.seed,
            "bot_seeds": list(self.bot_seeds), "limits": _limits_dict(self.limits),
        }
        if self.game_version:  # a spec made without one keeps the key it had before games had versions
            decided["game_version"] = self.game_version
        text = json.dumps(decided, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


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
