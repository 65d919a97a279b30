"""A game task: a plain, picklable description of one scheduled game, and the function that plays it.

``play_task(task)`` depends only on the task (the game, options, setup, bots,
limits and seeds) and returns the game record, so tasks can be shipped to any
worker, here a local process, later a cluster, unchanged. The one thing a
worker keeps between tasks is its :class:`SeatPool`, so that sandboxed bot
processes are reused across its games instead of started for each.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from typing import Any

from arena.entrants import Entrant
from arena.match import Limits, play_game
from arena.plugins import get_plugins
from arena.seating import SeatPool, close_seats
from arena.tournament.logs import game_context


@dataclass(frozen=True)
class GameTask:
    """One scheduled game: where it sits in the schedule and everything needed to play it."""

    order: int  # position in the schedule: ratings follow it
    game_id: str
    game: str
    table: int
    deal: int
    rotation: int
    options: dict
    setup: dict
    entrants: tuple[Entrant, ...]  # by seat
    seed: int
    bot_seeds: tuple[int, ...]  # by seat
    limits: Limits
    sandbox: str


#: this process's seat pools, by (process id, thread, sandbox, limits); a forked worker starts its own, and
#: each thread of a multi-threaded worker (a Dask worker's) its own, since a pool is not shared between games
_pools: dict[tuple, SeatPool] = {}


def seat_pool(plugins: Any, sandbox: str, limits: Limits) -> SeatPool:
    """The seat pool of this process and thread for ``sandbox`` and ``limits``."""
    key = (os.getpid(), threading.get_ident(), sandbox, limits)
    pool = _pools.get(key)
    if pool is None:
        pool = _pools[key] = SeatPool(plugins, sandbox, limits)
    return pool


def close_pools() -> None:
    """Stop every bot process this process's pools hold."""
    pid = os.getpid()
    for key in [key for key in _pools if key[0] == pid]:
        _pools.pop(key).close()


def play_task(task: GameTask) -> dict:
    """Play ``task``'s game and return its record (protocol.md section 6).

    Bots come from this process's seat pool and go back to it afterwards; if
    the game is cut short (an error, or a stop request), its bots are closed
    instead, since they may be in the middle of a decision.
    """
    plugins = get_plugins()
    game = plugins.game(task.game)
    pool = seat_pool(plugins, task.sandbox, task.limits)
    with game_context(task.game_id):
        seats = pool.seats(list(task.entrants))
        try:
            record = play_game(
                game, task.options, task.setup, seats, [entrant.name for entrant in task.entrants],
                game_id=task.game_id, seed=task.seed, bot_seeds=list(task.bot_seeds), limits=task.limits,
            )
        except BaseException:
            close_seats(seats)
            raise
        pool.release(seats)
    return record
