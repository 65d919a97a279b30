"""Playing one game spec in the process that holds it (a worker, a Dask worker, or the main process).

:func:`play_spec` depends only on the spec and returns an :class:`Outcome`,
so specs can be shipped to any worker unchanged. A process keeps one
:class:`~arena.seating.SeatPool` per thread, sandbox and limits; whether it
reuses bot processes between games is the pool's choice (``Limits.reuse``).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any

from arena.match import Limits, play_game
from arena.plugins import Plugins, get_plugins
from arena.runs.logs import game_context
from arena.runs.packed import pack
from arena.runs.spec import SUMMARY_KEYS, GameSpec, Outcome
from arena.seating import SeatPool, close_seats

log = logging.getLogger("arena.runs")

#: this process's seat pools, by (process id, thread, sandbox, limits); a forked worker starts its own, and
#: each thread of a multi-threaded worker (a Dask worker's) its own, since a pool is not shared between games
_pools: dict[tuple[int, int, str, Limits], SeatPool] = {}


def seat_pool(plugins: Plugins, sandbox: str, limits: Limits) -> SeatPool:
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


def play_record(spec: GameSpec) -> dict[str, Any]:
    """Play ``spec``'s game and return its record (protocol.md section 6), with the seats' versions.

    Bots come from this process's seat pool and go back to it afterwards; if
    the game is cut short (an error, or a stop request), its bots are closed
    instead, since they may be in the middle of a decision.
    """
    plugins = get_plugins()
    game = plugins.game(spec.game)
    pool = seat_pool(plugins, spec.sandbox, spec.limits)
    with game_context(spec.id):
        seats = pool.seats(list(spec.entrants))
        try:
            record = play_game(game, spec.options, spec.setup, seats, spec.names, game_id=spec.id, seed=spec.seed,
                               bot_seeds=list(spec.bot_seeds), limits=spec.limits)
        except BaseException:
            close_seats(seats)
            raise
        pool.release(seats)
    if spec.versions:
        record["versions"] = list(spec.versions)
    if spec.game_version:
        record["game_version"] = spec.game_version
    return record


def play_spec(spec: GameSpec, worker: str = "") -> Outcome:
    """Play one spec; its record, or why it failed (logged with the game's id).

    The record is packed here for the store (:func:`arena.runs.packed.pack`:
    compressed, with its rows and its "finished" log line, which the process
    that receives it writes): a log record sent from a worker, or the
    record's JSON sent whole, costs more than a fast game's bookkeeping.
    """
    began = time.perf_counter()
    try:
        record = play_record(spec)
    except Exception as error:
        with game_context(spec.id):
            log.exception("game failed")
        return Outcome(spec.order, None, f"{type(error).__name__}: {error}", time.perf_counter() - began, worker)
    seconds = time.perf_counter() - began
    summary = {key: record[key] for key in SUMMARY_KEYS}
    return Outcome(spec.order, summary, "", seconds, worker, pack(spec.id, record, spec.versions, seconds, worker))
