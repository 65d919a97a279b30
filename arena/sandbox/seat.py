"""Opening a sandboxed seat: the command that runs an entrant, and what of the machine it may read."""

from __future__ import annotations

import os
import sys
from typing import Any

import orjson

import arena
from arena.entrants import Entrant, find_module
from arena.errors import BadBotSpec, UnknownBot
from arena.match import Limits
from arena.plugins import Plugins
from arena.sandbox.jail import readable_paths
from arena.sandbox.own_files import module_files, program_files, shown_import_paths
from arena.sandbox.probe import python_paths
from arena.sandbox.process import ProcessBot


def open_process_bot(entrant: Entrant, limits: Limits, plugins: Plugins, isolate: bool = True) -> ProcessBot:
    """The seat adapter running ``entrant`` in a process (sandboxed unless ``isolate`` is false).

    The process starts at once, so that several seats boot in parallel; a
    program that cannot be started is reported as a crash by ``start``.
    Python bots are forked per game from a template unless ``limits.reuse``.
    What the bot may read of its own: :mod:`arena.sandbox.own_files`.
    """
    if entrant.kind == "cmd":
        try:
            argv = entrant.command
        except ValueError as error:
            raise BadBotSpec(f"bot {entrant.name}: cannot split the command {entrant.target!r}: {error}") from None
        if not argv:
            raise BadBotSpec(f"bot {entrant.name}: empty command")
        argv, own = program_files(entrant, argv, os.getcwd())
        return ProcessBot(entrant.name, argv, limits, isolate=isolate, cwd=os.getcwd(), env=thread_environment(limits),
                          readable=readable_paths(own + python_paths() + shown_import_paths(entrant)))
    command, own = host_command(entrant, plugins, template=not limits.reuse)
    return ProcessBot(entrant.name, command, limits, isolate=isolate,
                      env={"PYTHONPATH": os.path.dirname(os.path.dirname(arena.__file__)),
                           **thread_environment(limits)},
                      readable=readable_paths(own + python_paths() + shown_import_paths(entrant)),
                      template=not limits.reuse)


#: what numeric libraries read for the number of threads they start (OpenMP, OpenBLAS, MKL, and numexpr)
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def thread_environment(limits: Limits) -> dict[str, str]:
    """The variables telling numeric libraries to start ``limits.threads`` threads (one by default): sized for
    every core of the machine, their buffers fail under a bot's memory limit (OpenBLAS at import)."""
    return {name: str(limits.threads) for name in THREAD_VARIABLES}


def host_command(entrant: Entrant, plugins: Plugins, template: bool = False) -> tuple[list[str], list[str]]:
    """The command line of the host process for a plugin or ``py:`` bot, and the files the bot may read."""
    path = [os.path.abspath(entry) for entry in sys.path] + [os.getcwd()]
    base_dir = entrant.base_dir or None
    if entrant.kind == "py":
        module = entrant.target.partition(":")[0]
        path.insert(0, os.path.abspath(base_dir or os.getcwd()))  # searched first, as in this process
        if find_module(module, base_dir) is None:  # every import finder: an editable install is found by its own
            raise UnknownBot(f"cannot find module {module!r} for py:{entrant.target}")
        spec: dict[str, Any] = {"factory": entrant.target, "options": entrant.options}
    else:
        info = plugins.bot(entrant.target)
        module = getattr(info.factory, "__module__", "") or ""
        spec = {"factory": importable_name(info.factory), "bot": info.name,
                "options": {**info.options, **entrant.options}}
    own = module_files(module, entrant) if module else []
    spec["path"] = path
    spec["template"] = template
    return [sys.executable, "-m", "arena.sandbox.host", orjson.dumps(spec).decode()], own


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
