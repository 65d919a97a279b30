"""Opening a sandboxed seat: the command that runs an entrant, and what of the machine it may read."""

from __future__ import annotations

import glob
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
from arena.sandbox.probe import python_paths
from arena.sandbox.process import ProcessBot

#: a folder holding any of these is not shown whole to a bot, only the files its command names
PRIVATE_MARKS = ("*.toml", "*.sqlite", "*.sqlite-*", ".env", ".git", "results", "*.log")


def open_process_bot(entrant: Entrant, limits: Limits, plugins: Plugins, isolate: bool = True) -> ProcessBot:
    """The seat adapter running ``entrant`` in a process (sandboxed unless ``isolate`` is false).

    The process starts at once, so that several seats boot in parallel; a
    program that cannot be started is reported as a crash by ``start``.
    Python bots are forked per game from a template unless ``limits.reuse``.
    """
    if entrant.kind == "cmd":
        try:
            argv = entrant.command
        except ValueError as error:
            raise BadBotSpec(f"bot {entrant.name}: cannot split the command {entrant.target!r}: {error}") from None
        if not argv:
            raise BadBotSpec(f"bot {entrant.name}: empty command")
        argv, own = program_files(argv, os.getcwd())
        return ProcessBot(entrant.name, argv, limits, isolate=isolate, cwd=os.getcwd(),
                          readable=readable_paths(own + python_paths()))
    command, own = host_command(entrant, plugins, template=not limits.reuse)
    return ProcessBot(entrant.name, command, limits, isolate=isolate,
                      env={"PYTHONPATH": os.path.dirname(os.path.dirname(arena.__file__))},
                      readable=readable_paths(own + python_paths()), template=not limits.reuse)


def shows_private(folder: str) -> bool:
    """Whether ``folder`` holds what a bot must not see (a tournament file, a store, a log, secrets)."""
    folder = os.path.abspath(folder)
    if folder in ("/", os.path.abspath(os.getcwd()), os.path.expanduser("~")):
        return True
    return any(glob.glob(os.path.join(glob.escape(folder), mark)) for mark in PRIVATE_MARKS)


def program_files(argv: list[str], cwd: str) -> tuple[list[str], list[str]]:
    """``argv`` with paths made absolute, and what the bot may read: the folders of the files it names.

    A folder that also holds private things (:func:`shows_private`) is not
    shown: only the files named in it are (a private folder named is not shown at all).
    """
    command: list[str] = []
    own: list[str] = []
    for number, part in enumerate(argv):
        path = part if os.path.isabs(part) else os.path.join(cwd, part)
        if (number > 0 or os.sep in part) and os.path.exists(path):
            path = os.path.abspath(path)
            command.append(path)
            folder = path if os.path.isdir(path) else os.path.dirname(path)
            if not shows_private(folder):
                own.append(folder)
            elif folder != path:
                own.append(path)  # a file in a private folder: that file alone
        else:
            command.append(part)
    return command, own


def module_files(module: str, base_dir: str | None = None) -> list[str]:
    """What a bot in ``module`` may read: its top-level package, or its module's folder
    (a ``py:`` module searched in ``base_dir``, its tournament file's folder, first)."""
    top = module.partition(".")[0]
    loaded = sys.modules.get(top)
    spec = getattr(loaded, "__spec__", None) or find_module(top, base_dir)
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return list(spec.submodule_search_locations)
    origin = spec.origin or ""
    folder = os.path.dirname(origin)
    return [origin] if shows_private(folder) else [folder]


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
    own = module_files(module, base_dir if entrant.kind == "py" else None) if module else []
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
