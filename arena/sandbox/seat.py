"""Opening a sandboxed seat: the command that runs an entrant, external program or hosted Python bot."""

from __future__ import annotations

import importlib.machinery
import os
import sys
from typing import Any

import orjson

import arena
from arena.entrants import Entrant
from arena.errors import BadBotSpec, UnknownBot
from arena.match import Limits
from arena.sandbox.process import ProcessBot


def open_process_bot(entrant: Entrant, limits: Limits, plugins: Any, isolate: bool = True) -> ProcessBot:
    """The seat adapter running ``entrant`` in a process (sandboxed unless ``isolate`` is false).

    The process starts at once, so that several seats boot in parallel; a
    program that cannot be started is reported as a crash by ``start``.
    """
    if entrant.kind == "cmd":
        try:
            argv = entrant.command
        except ValueError as error:
            raise BadBotSpec(f"bot {entrant.name}: cannot split the command {entrant.target!r}: {error}") from None
        if not argv:
            raise BadBotSpec(f"bot {entrant.name}: empty command")
        return ProcessBot(entrant.name, argv, limits, isolate=isolate, cwd=os.getcwd())
    return ProcessBot(entrant.name, host_command(entrant, plugins), limits, isolate=isolate,
                      env={"PYTHONPATH": os.path.dirname(os.path.dirname(arena.__file__))})


def host_command(entrant: Entrant, plugins: Any) -> list[str]:
    """The command line of the host process for a plugin or ``py:`` bot."""
    path = [os.path.abspath(entry) for entry in sys.path] + [os.getcwd()]
    if entrant.kind == "py":
        module = entrant.target.partition(":")[0]
        if importlib.machinery.PathFinder.find_spec(module.partition(".")[0], path) is None:
            raise UnknownBot(f"cannot find module {module!r} for py:{entrant.target}")
        spec = {"factory": entrant.target, "options": entrant.options}
    else:
        info = plugins.bot(entrant.target)
        spec = {"factory": importable_name(info.factory), "bot": info.name,
                "options": {**info.options, **entrant.options}}
    spec["path"] = path
    return [sys.executable, "-m", "arena.sandbox.host", orjson.dumps(spec).decode()]


def importable_name(factory: Any) -> str | None:
    """``"MODULE:QUALNAME"`` when importing that gives back ``factory`` itself, else None."""
    module_name = getattr(factory, "__module__", None)
    qualname = getattr(factory, "__qualname__", None)
    if not module_name or not qualname or "<" in qualname or module_name not in sys.modules:
        return None
    target: Any = sys.modules[module_name]
    for part in qualname.split("."):
        target = getattr(target, part, None)
    return f"{module_name}:{qualname}" if target is factory else None
