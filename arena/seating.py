"""Turning entrants into seat adapters: in-process (``--sandbox none``) or sandboxed processes."""

from __future__ import annotations

from typing import Any

from arena.entrants import Entrant
from arena.errors import BadBotSpec
from arena.match import InProcessBot, Limits

SANDBOX_MODES = ("process", "none")


def open_seat(entrant: Entrant, sandbox: str, limits: Limits, plugins: Any) -> Any:
    """An adapter that plays ``entrant`` in one seat, under ``sandbox``."""
    if sandbox == "none" and entrant.kind != "cmd":
        return InProcessBot(entrant.factory(plugins))
    if sandbox == "none" and entrant.kind == "cmd":
        pass  # an external program is always a process of its own
    try:
        from arena.sandbox import open_process_bot
    except ModuleNotFoundError:
        raise BadBotSpec(
            f"bot {entrant.name} needs the process sandbox, which this build lacks; use --sandbox none"
        ) from None
    return open_process_bot(entrant, limits, plugins, isolate=(sandbox == "process"))


def close_seats(seats: list[Any]) -> None:
    """Stop every seat's process (if any)."""
    for seat in seats:
        try:
            seat.close()
        except Exception:
            pass


class SeatPool:
    """Keeps seat adapters across the games of one worker, and restarts broken ones.

    ``seats(entrants)`` hands out one adapter per seat (reusing idle healthy
    ones of the same entrant); ``release(seats)`` takes them back after the game,
    closing any whose ``healthy`` attribute is false (a process that died or
    timed out); ``close()`` stops them all.
    """

    def __init__(self, plugins: Any, sandbox: str, limits: Limits) -> None:
        self.plugins = plugins
        self.sandbox = sandbox
        self.limits = limits
        self.idle: dict[str, list[Any]] = {}

    def seats(self, entrants: list[Entrant]) -> list[Any]:
        seats = []
        for entrant in entrants:
            idle = self.idle.get(entrant.key)
            seat = idle.pop() if idle else open_seat(entrant, self.sandbox, self.limits, self.plugins)
            seat.entrant = entrant
            seats.append(seat)
        return seats

    def release(self, seats: list[Any]) -> None:
        for seat in seats:
            if getattr(seat, "healthy", True):
                self.idle.setdefault(seat.entrant.key, []).append(seat)
            else:
                close_seats([seat])

    def close(self) -> None:
        for seats in self.idle.values():
            close_seats(seats)
        self.idle.clear()
