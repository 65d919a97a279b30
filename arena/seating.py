"""Turning entrants into seat adapters: in-process (``--sandbox none``) or sandboxed processes.

The jail's modules (:mod:`arena.sandbox.seat` and what it pulls in: the
launcher, the probe, the filters; about 30 ms) are imported when the first
process seat is opened, not with this module: every command imports it, and
``--sandbox none`` never opens one (tests/test_import_cost.py keeps it so).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
from typing import Any, Iterator, Sequence

from arena.entrants import Entrant
from arena.match import InProcessBot, Limits, Seat
from arena.plugins import Plugins

SANDBOX_MODES = ("process", "none")


def open_seat(entrant: Entrant, sandbox: str, limits: Limits, plugins: Plugins) -> Seat:
    """An adapter that plays ``entrant`` in one seat, under ``sandbox``.

    ``none`` runs Python bots in this process (trusted code only); an external
    program (``cmd:``) is always a process of its own, sandboxed only under
    ``process``.
    """
    if sandbox == "none" and entrant.kind != "cmd":
        return InProcessBot(entrant.factory(plugins))
    from arena.sandbox.seat import open_process_bot  # the jail's modules, only once a process seat is opened

    return open_process_bot(entrant, limits, plugins, isolate=(sandbox == "process"))


@contextlib.contextmanager
def bot_prints_to_stderr() -> Iterator[None]:
    """While games are played: what an in-process bot (``--sandbox none``) prints goes to stderr.

    Such a bot shares this process's stdout (and forked workers inherit it), so
    its ``print`` would land in the middle of what the command prints: a game
    record, a leaderboard, JSON that a pipe reads.
    """
    with contextlib.redirect_stdout(sys.stderr):
        yield


def close_seats(seats: Sequence[Seat]) -> None:
    """Stop every seat's process (if any)."""
    for seat in seats:
        try:
            seat.close()
        except Exception:
            pass


def die_with_parent_worker() -> None:
    """In a worker process (multiprocessing) on Linux: have the kernel kill it when its parent dies.

    Its bots die with it (each bot's keeper has ``PR_SET_PDEATHSIG``), so
    SIGKILL of the runner leaves nothing of a bot running, not even the game
    an orphaned worker would otherwise finish first.
    """
    if multiprocessing.parent_process() is None or not hasattr(os, "getppid"):
        return
    try:
        from arena.sandbox.limits import die_with_parent

        die_with_parent()
    except (ImportError, OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the request was made
        os.kill(os.getpid(), signal.SIGKILL)


class SeatPool:
    """Keeps seat adapters across the games of one worker, and restarts broken ones.

    ``seats(entrants)`` hands out one adapter per seat (reusing idle ones of
    the same entrant); ``release(seats)`` takes them back after the game.
    Unless ``limits.reuse``, every bot process ends with its game (a Python
    bot's template stays, and forks the next game's bot afresh), so nothing
    survives from one game to the next; with ``reuse``, healthy processes play
    on and broken ones (died, timed out) are closed. ``close()`` stops them all.
    """

    def __init__(self, plugins: Plugins, sandbox: str, limits: Limits) -> None:
        self.plugins = plugins
        self.sandbox = sandbox
        self.limits = limits
        self.idle: dict[str, list[Any]] = {}
        if sandbox == "process":
            die_with_parent_worker()

    def seats(self, entrants: list[Entrant]) -> list[Any]:
        seats = []
        for entrant in entrants:
            idle = self.idle.get(entrant.key)
            # Any: the pool tags each adapter with the entrant it plays (read back in release)
            seat: Any = idle.pop() if idle else open_seat(entrant, self.sandbox, self.limits, self.plugins)
            seat.entrant = entrant
            seats.append(seat)
        return seats

    def release(self, seats: list[Any]) -> None:
        for seat in seats:
            if not self.limits.reuse and hasattr(seat, "finish_game"):
                try:
                    seat.finish_game()
                except Exception:  # a seat that cannot be made ready again is closed, never a failed game
                    close_seats([seat])
                    continue
                self.idle.setdefault(seat.entrant.key, []).append(seat)
            elif getattr(seat, "healthy", True):
                self.idle.setdefault(seat.entrant.key, []).append(seat)
            else:
                close_seats([seat])

    def close(self) -> None:
        for seats in self.idle.values():
            close_seats(seats)
        self.idle.clear()
