"""Bots checked before play: each entrant is started once, the way its games will start it.

A tournament, a comparison or ``arena play`` calls :func:`check_entrants`
before the first game. Every entrant is opened with
:func:`arena.seating.open_seat` (the same sandbox, working folder and
environment as its games), sent a real ``start`` message for a game it plays,
and must answer ``ready`` (a Python bot: return from ``start``) within
``start_ms``; then it is closed. A bot that cannot (a missing program or
module, an import error, an answer that is not the protocol, a start too slow)
is refused with one :class:`arena.errors.BotCheckFailed` line naming the bot
and the cause, before any game is played or stored. An organiser who would
rather go on without it asks :func:`broken_entrants` instead, which names
every entrant that cannot play and why, and leaves the decision to the caller
(``arena run --disqualify-broken``).

The seats are opened one after another (starting a process is quick, and the
processes boot in parallel), then all are sent ``start`` at once from threads,
so thirty entrants take about as long as the slowest one.
"""

from __future__ import annotations

import json
import os
import random
import re
import threading
import time
from dataclasses import dataclass
from typing import Any, Iterable

from arena.entrants import Entrant, find_module
from arena.errors import ArenaError, BotCheckFailed, BotCrashed, BotFault, BotMalformed, BotTimeout
from arena.games.base import Game
from arena.match import Limits, Seat, derive_seed
from arena.plugins import Plugins
from arena.seating import close_seats, open_seat
from arena.versions import module_importable

__all__ = ["broken_entrants", "check_entrants"]

#: the interpreter a hint suggests for a script without its execute bit, by extension
INTERPRETERS = {".py": "python3", ".js": "node", ".sh": "sh", ".rb": "ruby", ".pl": "perl", ".lua": "lua"}

#: the wall-clock time a check may take beyond three times ``start_ms`` (booting processes on a busy machine)
SLACK_S = 10.0


@dataclass(frozen=True)
class _Table:
    """The game an entrant is checked on: its seats and options."""

    game: Game
    players: int
    options: dict[str, Any]


def check_entrants(entrants: Iterable[Entrant], game: Any, plugins: Plugins, sandbox: str, limits: Limits,
                   base_dir: str | None = None) -> None:
    """Start every entrant once and refuse the first that cannot play (:class:`BotCheckFailed`, exit 2).

    The arguments are :func:`broken_entrants`'s.
    """
    broken = broken_entrants(entrants, game, plugins, sandbox, limits, base_dir)
    if broken:
        (first, cause), *others = broken.items()
        message = f"bot {first} cannot play: {cause}"
        if others:
            message += f" (also failing: {', '.join(name for name, _ in others)})"
        raise BotCheckFailed(" ".join(message.split()))


def broken_entrants(entrants: Iterable[Entrant], game: Any, plugins: Plugins, sandbox: str, limits: Limits,
                    base_dir: str | None = None) -> dict[str, str]:
    """Start every entrant once; each that cannot play, by name (in the order given), with the cause in one line.

    :param entrants: the entries (an entrant listed twice, or one bot under several names, is started once;
        each name is answered for).
    :param game: what they will play: a game object or name, an entry with
        ``name``, ``players`` and ``options`` (a tournament's ``[[games]]``),
        or a list of these; each entrant is checked on the first it plays.
    :param sandbox: ``"process"`` or ``"none"``, as the games will run.
    :param limits: the games' limits; ``start_ms`` bounds the answer to ``start``.
    :param base_dir: the folder relative paths resolved against, named in the
        message when a program is missing (default: each entrant's own).
    """
    named = list({entrant.key: entrant for entrant in entrants}.values())
    # entries of one bot under several names (random and b2=random) start the same process: started once
    first = {_process(entrant): entrant for entrant in reversed(named)}
    unique = [entrant for entrant in named if first[_process(entrant)] is entrant]
    tables = _tables(game, plugins)
    causes: dict[str, str] = {}
    seats: dict[str, Any] = {}
    try:
        for entrant in unique:
            try:
                seats[entrant.key] = open_seat(entrant, sandbox, limits, plugins)
            except ArenaError as error:
                causes[entrant.key] = str(error)
        threads = []
        for entrant in unique:
            if entrant.key not in seats:
                continue
            info = _start_message(entrant, tables, plugins, limits)
            thread = threading.Thread(target=_start, args=(seats[entrant.key], info, limits, entrant.key, causes),
                                      name=f"arena-check-{entrant.name}", daemon=True)
            thread.start()
            threads.append((entrant, thread))
        deadline = time.monotonic() + 3 * limits.start_ms / 1000 + SLACK_S
        for entrant, thread in threads:
            thread.join(max(deadline - time.monotonic(), 0))
            if thread.is_alive():
                causes.setdefault(entrant.key, f"too slow to start: no answer to start within "
                                               f"{3 * limits.start_ms / 1000 + SLACK_S:.0f} s")
    finally:
        close_seats(list(seats.values()))
    return {entrant.name: " ".join(_cause(entrant, causes[key], base_dir, sandbox).split())
            for entrant in named if (key := first[_process(entrant)].key) in causes}


def _process(entrant: Entrant) -> str:
    """What makes an entrant's process: all of it but the name (which only its ``start`` message carries)."""
    return json.dumps([entrant.kind, entrant.target, entrant.options, entrant.base_dir, list(entrant.files),
                       list(entrant.neighbours)], sort_keys=True)


def _start(seat: Seat, info: dict[str, Any], limits: Limits, key: str, causes: dict[str, str]) -> None:
    """Send ``start`` and keep what went wrong, if anything (runs in a thread of its own)."""
    try:
        seat.start(info, limits.start_ms)
    except BotTimeout as error:
        causes[key] = f"too slow to start: {error}"
    except BotMalformed as error:
        causes[key] = f"does not answer start in the protocol: {error}"
    except BotCrashed as error:
        causes[key] = f"{error}"
    except BotFault as error:
        causes[key] = f"{error.kind}: {error}"
    except Exception as error:  # an adapter's own failure must not go unreported
        causes[key] = f"{error!r}"


def _cause(entrant: Entrant, cause: str, base_dir: str | None, sandbox: str) -> str:
    """The cause, with a hint where the mistake is a common one."""
    folder = base_dir or entrant.base_dir
    if entrant.kind == "cmd" and "No such file" in cause and folder:
        cause += f" (relative paths resolve against {folder})"
    if entrant.kind == "cmd" and "Permission denied" in cause and entrant.command:
        program = entrant.command[0]
        if os.path.isdir(program):
            cause += " (it is a folder: name the program in it)"
        elif os.path.isfile(program) and not os.access(program, os.X_OK):
            interpreter = INTERPRETERS.get(os.path.splitext(program)[1], "INTERPRETER")
            cause += (f" (it is not executable: chmod +x it, or name its interpreter first, e.g. "
                      f"cmd:{interpreter} {os.path.basename(program)})")
    module = entrant.target.partition(":")[0]
    sibling = _sibling_import(entrant, cause) if entrant.kind == "py" and sandbox != "none" else None
    if sibling:
        hint = _package_hint(module, entrant.target.partition(":")[2], sibling)
        return cause[:600 - len(hint)] + hint
    if (entrant.kind == "py" and sandbox != "none" and ("find module" in cause or "No module named" in cause)
            and module_importable(module, entrant.base_dir or None)):
        cause += (" (it imports in this process but not in the sandbox: a module installed in editable mode, "
                  "or one the sandboxed bot cannot read?)")
    return cause[:600]


def _sibling_import(entrant: Entrant, cause: str) -> str | None:
    """The module a single-file ``py:`` bot failed to import from beside it in the sandbox, if that is the cause.

    The sandbox shows a single-file module alone when its folder holds private
    things (a tournament file, results): a module beside it cannot be imported.
    """
    missing = re.search(r"No module named '([A-Za-z_][\w.]*)'", cause)
    module = entrant.target.partition(":")[0]
    if missing is None or "." in module:
        return None
    spec = find_module(module, entrant.base_dir or None)
    if spec is None or spec.submodule_search_locations or not spec.origin:
        return None
    name = missing[1].partition(".")[0]
    folder = os.path.dirname(spec.origin)
    beside = os.path.isfile(os.path.join(folder, f"{name}.py")) or os.path.isdir(os.path.join(folder, name))
    return name if beside and name != module else None


def _package_hint(module: str, cls: str, sibling: str) -> str:
    """How to fix a single-file bot importing a module beside it: make the two a package."""
    return (f" (a single-file py: bot runs alone in the sandbox, without {sibling} beside it: make a package, "
            f"a folder with an __init__.py holding {module}.py and {sibling}.py, import it as "
            f"'from . import {sibling}', and enter py:FOLDER.{module}:{cls})")


def _tables(game: Any, plugins: Plugins) -> list[_Table]:
    """The games to check on, from whatever :func:`check_entrants` was given."""
    items = list(game) if isinstance(game, (list, tuple)) else [game]
    tables = []
    for item in items:
        if isinstance(item, str):
            item = plugins.game(item)
        if hasattr(item, "players") and hasattr(item, "options") and isinstance(item.players, int):
            tables.append(_Table(plugins.game(item.name), item.players, dict(item.options)))
        else:
            tables.append(_Table(item, item.min_players, item.check_options(item.min_players, {})))
    return tables


def _start_message(entrant: Entrant, tables: list[_Table], plugins: Plugins, limits: Limits) -> dict[str, Any]:
    """A real ``start`` message (protocol.md section 1) for the first game ``entrant`` plays."""
    table = next((table for table in tables if entrant.plays(table.game.name, plugins)), tables[0])
    setup = table.game.random_setup(table.players, table.options, random.Random(0))
    state = table.game.new_state(setup, table.options)
    names = [entrant.name] + [f"opponent-{seat}" for seat in range(1, table.players)]
    return {
        "type": "start",
        "game": table.game.name,
        "seat": 0,
        "players": names,
        "options": table.options,
        "time": limits.time_message(),
        "setup_public": {"money": state.money(), "first": setup.get("first", 0)},
        "seed": derive_seed("check", entrant.name),
    }
