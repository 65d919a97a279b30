"""Versions: one string naming everything that decides a game, so stored games are reused only for the same code.

Every entrant gets a version (protocol.md section 6, a game record's ``versions``):

- a registered bot: its distribution's name and version, and a hash of every
  file of the top-level package that defines the bot, data included
  (``arena-bots 0.1.0 sha256:3f2a9b0c1d2e``); for a distribution installed
  normally (not in editable mode), the file hashes its ``RECORD`` lists
  for that package, which pip checked when it installed it;
- a ``py:`` bot: a hash of every file of its top-level package, data included,
  or for a module that is a single file, of its folder when the sandbox shows
  the bot that folder (:func:`_own_folder`), else of the file alone
  (``py sha256:...``);
- a ``cmd:`` bot: a hash of the command line, of every file the command line
  names, and of the bot's own files (``cmd sha256:...``): the files its
  ``[[bots]]`` entry names (``files = ["bot/**"]``), or by default the
  program's folder (see :func:`cmd_files`);

followed by `` options=`` and the entry's options as canonical JSON when it
has any. Every game gets one too (:func:`game_versions`, a record's
``game_version``): its plugin's distribution and version, and a hash of the
game's package (as a registered bot's) and of arena's own modules that decide
a game (:data:`ENGINE_FILES`: the game loop, the seat adapters, the protocol's
host and the rest of the sandbox but its reports). A hash covers each file's path (relative to its package's or the
tournament's folder) and content, in sorted order, so moving a tournament
folder keeps the versions and editing any file changes them.
:func:`version_changes` says why two versions differ, for messages like
``bot mine changed (code)``.

Never hashed (:func:`_skipped`): hidden files and folders (``.git``, ``.venv``,
``.pytest_cache``, ...), ``__pycache__``, ``node_modules``, compiled Python
(``*.pyc``, ``*.pyo``), logs and results stores (``*.sqlite*``, ``*.log``, and
any folder holding a ``results.sqlite``).

Cheap enough for a hundred entrants: a file is read again only when its size
or modification time changed, and a package is hashed once per call of
:func:`entrant_versions`. A package of more than ``MAX_FOLDER_FILES`` files or
``MAX_FOLDER_BYTES`` bytes (or a single-file module's folder that big) has
its non-Python files known by their size and modification time instead of
their content (said once in the log).
"""

from __future__ import annotations

import fnmatch
import glob
import hashlib
import importlib.metadata
import json
import logging
import os
import re
import shutil
import sys
from typing import Any, Callable, Iterable

from arena.entrants import Entrant, find_module
from arena.errors import UnknownBot
from arena.plugins import Plugins

__all__ = ["entrant_version", "entrant_versions", "game_version", "game_versions", "game_key", "version_changes",
           "version_change", "cmd_files", "module_importable", "module_roots", "private_entry",
           "ENGINE_FILES"]

log = logging.getLogger("arena.versions")

#: hex digits of the hash shown in a version
HASH_HEX = 12
#: folders never hashed: caches, version control, dependencies, hidden folders (any name starting with '.')
SKIP_FOLDERS = frozenset({"__pycache__", "node_modules"})
#: files never hashed: compiled Python, results stores and logs
SKIP_SUFFIXES = (".pyc", ".pyo", ".sqlite", ".sqlite-wal", ".sqlite-shm", ".sqlite-journal", ".log")
#: a program folder holding more than this many files or bytes is too big to be the bot's own:
#: the bot is known by the files its command line names alone (name the rest with ``files``)
MAX_FOLDER_FILES = 1000
MAX_FOLDER_BYTES = 64 << 20
#: a file bigger than this is known by its size and modification time, not its content
MAX_FILE_BYTES = 64 << 20
#: a folder holding any of these (a ``.toml`` only when it is a tournament file: :func:`private_entry`) is not
#: shown whole to a bot (the sandbox shows only the files its command names, or a single-file module alone),
#: nor hashed whole as the bot's own
PRIVATE_MARKS = ("*.toml", "*.sqlite", "*.sqlite-*", ".env", ".git", "results", "*.log")
#: a folder holding more entries than this (at any depth) is never shown whole to a bot
MAX_SHOWN_ENTRIES = 5000
#: the sandbox's modules that only report on it (what is on here, audits, the command): not deciding a game
SANDBOX_REPORTS = ("__init__.py", "audit.py", "commands.py", "probe.py")
_SANDBOX = os.path.join(os.path.dirname(__file__), "sandbox")
#: arena's own modules that decide a game besides the game's rules (relative to arena's parent folder): the game
#: loop, the game interface, the seat adapters in and out of process, playing one spec, how fault details are
#: cut, and every sandbox module that decides what a bot may do and when it faults (the host speaking the
#: protocol for Python bots, the clock, the freezer, the filter, the limits, the jail: a call refused or a limit
#: changed can change a bot's moves); a change to any of them changes every game's version
ENGINE_FILES = ("arena/match.py", "arena/games/base.py", "arena/seating.py", "arena/runs/play.py", "arena/safetext.py",
                *sorted(f"arena/sandbox/{name}" for name in os.listdir(_SANDBOX)
                        if name.endswith(".py") and name not in SANDBOX_REPORTS))
#: the key of a game's version among a run's versions (bots' names never hold ':' without '=')
GAME_KEY_PREFIX = "game:"

_VERSION = re.compile(r"^(?P<label>.+?) sha256:(?P<hash>[0-9a-f]+)(?: options=(?P<options>.*))?$")
#: (path, size, mtime_ns, inode) -> the file's sha256, so an unchanged file is read once per process
_file_digests: dict[tuple[str, int, int, int], str] = {}
#: folders already said to be too big (once per process)
_warned: set[Any] = set()


def entrant_version(entrant: Entrant, plugins: Plugins, base_dir: str | None = None) -> str:
    """The version string of ``entrant`` (see the module docstring).

    :param base_dir: for an entrant made without a ``base_dir`` of its own, the
        folder its ``cmd:`` paths are taken relative to (default: the current folder).
    """
    return entrant_versions([entrant], plugins, base_dir)[0]


def entrant_versions(entrants: Iterable[Entrant], plugins: Plugins, base_dir: str | None = None) -> list[str]:
    """The versions of ``entrants``, in order; a package shared by several is hashed once."""
    packages: dict[tuple[str, ...], str] = {}
    versions = []
    for entrant in entrants:
        if entrant.kind == "plugin":
            label, roots, distribution = _plugin_package(entrant, plugins)
            head = f"{label} sha256:{_cached_package_hash(roots, packages, distribution)}"
        elif entrant.kind == "py":
            roots = module_roots(entrant.target.partition(":")[0], entrant.target, entrant.base_dir or None)
            head = f"py sha256:{_cached_package_hash(roots, packages)}"
        elif entrant.kind == "cmd":
            head = f"cmd sha256:{_cmd_hash(entrant, entrant.base_dir or base_dir or os.getcwd())}"
        else:
            raise UnknownBot(f"bot {entrant.name}: unknown kind {entrant.kind!r}")
        versions.append(head + _options_suffix(entrant.options))
    return versions


def game_key(game: str) -> str:
    """Where a game's version sits among a run's versions (``game:silk-road``), beside its bots' by name."""
    return GAME_KEY_PREFIX + game


def game_version(game: str, plugins: Plugins) -> str:
    """The version of ``game`` as played here (see the module docstring)."""
    return game_versions([game], plugins)[game_key(game)]


def game_versions(games: Iterable[str], plugins: Plugins) -> dict[str, str]:
    """The versions of ``games``, by :func:`game_key`: ``arena 0.1.0 sha256:...`` for a built-in game.

    A game's hash covers its package (a built-in game's folder under
    ``arena/games/``; a plugin's top-level package, or its distribution's
    ``RECORD``) and :data:`ENGINE_FILES`, so a changed rule or game loop
    changes it.
    """
    arena_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    engine = [(relative, os.path.join(arena_parent, relative)) for relative in ENGINE_FILES]
    found: dict[str, str] = {}
    for game in games:
        plugin_name = plugins.game_plugin(game)
        plugin = plugins.infos.get(plugin_name)
        distribution = plugin.distribution if plugin else plugin_name
        label = f"{_word(distribution)} {_word(plugin.version if plugin else '-')}"
        module_name = type(plugins.game(game)).__module__
        parts = module_name.split(".")
        if parts[0] == "arena" and len(parts) > 2 and parts[1] == "games":  # a built-in game: its own folder
            package = sys.modules.get(".".join(parts[:3]))
            roots = tuple(getattr(package, "__path__", None) or ())
            own = _package_hash(tuple(os.path.abspath(root) for root in roots))
        else:
            own = _package_hash(module_roots(module_name, f"game {game}"), None if plugin is None else distribution)
        found[game_key(game)] = f"{label} sha256:{_hash_entries(engine, header=own)}"
    return found


def version_changes(old: str, new: str) -> tuple[str, ...]:
    """Why ``new`` differs from ``old``: some of ``"version"`` (distribution, its version, or the
    kind of bot), ``"code"`` (the hashed files or command line) and ``"options"``; empty when equal."""
    if old == new:
        return ()
    before, after = _VERSION.match(old or ""), _VERSION.match(new or "")
    if before is None or after is None:
        return ("version",)
    return tuple(reason for reason, part in (("version", "label"), ("code", "hash"), ("options", "options"))
                 if before[part] != after[part])


def version_change(old: str, new: str) -> str:
    """:func:`version_changes` as text for a message (``"code"``, ``"code, options"``; ``""`` when equal)."""
    return ", ".join(version_changes(old, new))


def _options_suffix(options: dict[str, Any]) -> str:
    if not options:
        return ""
    return " options=" + json.dumps(options, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# -- registered and py: bots: a Python package's files --


def _plugin_package(entrant: Entrant, plugins: Plugins) -> tuple[str, tuple[str, ...], str | None]:
    """The label (distribution and version), package folders and distribution's name of a registered bot."""
    info = plugins.bot(entrant.target)
    plugin = plugins.infos.get(info.plugin)
    distribution = plugin.distribution if plugin else info.plugin
    version = plugin.version if plugin else "-"
    factory = info.factory
    module_name = getattr(factory, "__module__", None) or getattr(getattr(factory, "func", None), "__module__", None)
    if not module_name or module_name == "__main__":
        module_name = getattr(getattr(plugin, "module", None), "__name__", None) or ""
    return (f"{_word(distribution)} {_word(version)}", module_roots(module_name, entrant.target),
            distribution if plugin else None)


def _word(text: str) -> str:
    return "".join(text.split()) or "-"


def module_roots(module_name: str, what: str, base_dir: str | None = None) -> tuple[str, ...]:
    """The files or folders to hash for a module: its top-level package's folders, or for a module that
    is one file, that file's folder when it is the module's own (:func:`_own_folder`), else the file alone
    (a ``py:`` module searched in ``base_dir`` first, as it is imported)."""
    top = module_name.partition(".")[0]
    module = sys.modules.get(top)
    if module is not None:
        folders = list(getattr(module, "__path__", None) or [])
        origin = getattr(module, "__file__", None)
    else:
        spec = find_module(top, base_dir)
        if spec is None:
            raise UnknownBot(f"cannot find module {module_name!r} for {what}")
        folders = list(spec.submodule_search_locations or [])
        origin = spec.origin
    if folders:
        return tuple(sorted(os.path.abspath(folder) for folder in folders))
    if origin and os.path.isfile(origin):
        origin = os.path.abspath(origin)
        folder = os.path.dirname(origin)
        return (folder,) if _own_folder(folder) else (origin,)
    return ()  # built in, frozen or made at run time: known by its name alone


def _own_folder(folder: str) -> bool:
    """Whether a single-file module's folder is the module's own, as the sandbox decides what to show a bot
    (``arena.sandbox.own_files``): not when it is or holds the current folder, the home folder or ``/``,
    holds anywhere below a private entry (:func:`private_entry`: a tournament file, results, a log, a
    ``.env``, a ``.git``), or more than :data:`MAX_SHOWN_ENTRIES` entries (then the sandbox shows the file
    alone, and the version hashes it alone); nor when it is part of Python's installation (the runtime
    every bot sees, shared by everything installed there)."""
    folder = os.path.abspath(folder)
    if folder.endswith(("site-packages", "dist-packages")):
        return False
    if any(os.path.commonpath([folder, os.path.abspath(place)]) == folder
           for place in ("/", os.getcwd(), os.path.expanduser("~"))):
        return False
    if any(folder == prefix or folder.startswith(prefix.rstrip(os.sep) + os.sep)
           for prefix in {sys.prefix, sys.base_prefix}):
        return False
    seen = 0
    for top, folders, files in os.walk(folder):
        for name in folders + files:
            seen += 1
            if seen > MAX_SHOWN_ENTRIES or private_entry(os.path.join(top, name)):
                return False
    return True


#: the tables of a tournament file: a ``.toml`` holding one is the tournament's (a bot's own config is not)
_TOURNAMENT_TABLE = re.compile(rb"^\s*\[\[?\s*(tournament|bots|games|limits|sandbox)\s*\]", re.M)


def private_entry(path: str) -> bool:
    """Whether the file or folder at ``path`` is one a bot must not see (:data:`PRIVATE_MARKS`); a ``.toml``
    file only when it holds a tournament file's table (a bot's own ``pyproject.toml`` is its own), or
    cannot be read. The sandbox's rule (``arena.sandbox.own_files.refusal``), so a version covers what the
    bot is shown."""
    name = os.path.basename(path)
    if not any(fnmatch.fnmatch(name, mark) for mark in PRIVATE_MARKS):
        return False
    if not name.endswith(".toml") or os.path.isdir(path):
        return True
    try:
        with open(path, "rb") as handle:
            return bool(_TOURNAMENT_TABLE.search(handle.read(1 << 16)))
    except OSError:
        return True


def module_importable(module_name: str, base_dir: str | None = None) -> bool:
    """Whether this process finds ``module_name``'s top-level package (asking every import finder;
    ``base_dir`` first)."""
    return find_module(module_name, base_dir) is not None


def _cached_package_hash(roots: tuple[str, ...], cache: dict[tuple[str, ...], str],
                         distribution: str | None = None) -> str:
    if roots not in cache:
        cache[roots] = _package_hash(roots, distribution)
    return cache[roots]


def _package_hash(roots: tuple[str, ...], distribution: str | None = None) -> str:
    """The hash of every file under ``roots`` (data included), named relative to each root's parent folder.

    With ``distribution`` installed normally, the hashes its ``RECORD`` lists
    for those files instead (:func:`_record_hash`). In a package of more than
    ``MAX_FOLDER_FILES`` files or ``MAX_FOLDER_BYTES`` bytes, the files other
    than Python's are known by their size and modification time.
    """
    if distribution is not None:
        recorded = _record_hash(distribution, roots)
        if recorded is not None:
            return recorded
    entries = []
    for root in roots:
        parent = os.path.dirname(root)
        paths = [root] if os.path.isfile(root) else _walk(root, lambda name: True)
        entries += [(os.path.relpath(path, parent), path) for path in paths]
    too_big = len(entries) > MAX_FOLDER_FILES or sum(_size(path) for _, path in entries) > MAX_FOLDER_BYTES
    if too_big and roots not in _warned:
        _warned.add(roots)
        log.warning("%s: more than %d files or %d MB: its files other than .py are known by their size and "
                    "modification time", ", ".join(roots), MAX_FOLDER_FILES, MAX_FOLDER_BYTES >> 20)
    return _hash_entries(entries, by_stat=(lambda path: not path.endswith(".py")) if too_big else None)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _record_hash(distribution: str, roots: tuple[str, ...]) -> str | None:
    """The hash of the ``RECORD`` lines of ``distribution`` for the files under ``roots``, when it is
    installed normally and holds them; None for an editable install (its files are hashed instead)."""
    try:
        dist = importlib.metadata.distribution(distribution)
        direct = dist.read_text("direct_url.json")
        if direct and json.loads(direct).get("dir_info", {}).get("editable"):
            return None
        record = dist.read_text("RECORD")
        base = os.path.abspath(str(dist.locate_file("")))
    except (importlib.metadata.PackageNotFoundError, ValueError, OSError):
        return None
    if not record or not roots:
        return None
    prefixes = []
    for root in roots:
        relative = os.path.relpath(root, base)
        if relative.startswith(".."):
            return None  # the code runs from elsewhere than where the distribution was installed
        prefixes.append(relative.replace(os.sep, "/"))
    lines = sorted(line for line in record.splitlines()
                   if any(line.startswith((prefix + "/", prefix + ",")) for prefix in prefixes)
                   and not _skipped(line.partition(",")[0].replace("/", os.sep)))
    if not lines:
        return None
    return hashlib.sha256(("record\n" + "\n".join(lines)).encode()).hexdigest()[:HASH_HEX]


# -- cmd: bots: the command line and the bot's files --


def cmd_files(entrant: Entrant, base_dir: str | None = None) -> list[str]:
    """The files a ``cmd:`` entrant's version covers (absolute paths, sorted, no repeats).

    Always every existing file its command line names (relative paths were made
    absolute when the spec was parsed), and every file in a folder it names
    (``node bot/``; not ``base_dir`` itself, nor a folder over the limits below).
    Then, with ``files`` in its
    ``[[bots]]`` entry, every file those patterns match under ``base_dir``;
    without, the program's folder, recursively, when the program has a folder
    of its own: not when it sits directly in ``base_dir`` (shared with the
    tournament file, results and other bots: there the files named on the
    command line alone count), and not when that folder holds
    more than ``MAX_FOLDER_FILES`` files or ``MAX_FOLDER_BYTES`` bytes. The
    program is the first file named whose folder is not on PATH (so in
    ``python3 bot/main.py`` it is ``bot/main.py``), else the command itself
    found on PATH. Hidden entries, ``__pycache__``, ``node_modules``, compiled
    Python, logs and results stores are never hashed.
    """
    base_dir = os.path.abspath(entrant.base_dir or base_dir or os.getcwd())
    argv = entrant.command
    named = [path for path in _named_paths(argv) if os.path.isfile(path)]
    files = set(named)
    for folder in _named_paths(argv):
        if os.path.isdir(folder) and folder != base_dir:  # a bot given as its folder (``node bot/``)
            files.update(_program_folder(folder))
    if entrant.files:
        for pattern in entrant.files:
            files.update(path for path in glob.glob(os.path.join(base_dir, pattern), recursive=True)
                         if os.path.isfile(path) and not _skipped(os.path.relpath(path, base_dir)))
        return sorted(files)
    path_dirs = {os.path.abspath(folder) for folder in os.environ.get("PATH", os.defpath).split(os.pathsep) if folder}
    program = next((path for path in named if os.path.dirname(path) not in path_dirs), None)
    if program is None:
        found = shutil.which(argv[0]) if argv else None
        if found:
            files.add(os.path.abspath(found))
        return sorted(files)
    folder = os.path.dirname(program)
    if folder != base_dir:
        files.update(_program_folder(folder))
    return sorted(files)


def _program_folder(folder: str) -> list[str]:
    """Every file of a ``cmd:`` bot's folder, or none when it holds more than ``MAX_FOLDER_FILES`` files or
    ``MAX_FOLDER_BYTES`` bytes (then only the files its command line names count; said once in the log)."""
    found = _walk(folder, lambda name: True, MAX_FOLDER_FILES, MAX_FOLDER_BYTES)
    try:
        capped = not found and any(True for _ in os.scandir(folder))
    except OSError:
        capped = False
    if capped and folder not in _warned:
        _warned.add(folder)
        log.warning("%s holds more than %d files or %d MB: too big to be a cmd: bot's own folder, its version "
                    "covers the files its command line names (list the others with files = [...] in its entry)",
                    folder, MAX_FOLDER_FILES, MAX_FOLDER_BYTES >> 20)
    return found


def _named_paths(argv: list[str]) -> list[str]:
    """The absolute paths a command line names: whole words, and the values of ``--key=PATH``."""
    paths = []
    for word in argv:
        key, equals, value = word.partition("=")
        candidate = value if equals and key.startswith("-") else word
        if os.path.isabs(candidate):
            paths.append(os.path.normpath(candidate))
    return paths


def _cmd_hash(entrant: Entrant, base_dir: str) -> str:
    base_dir = os.path.abspath(base_dir)

    def shown(path: str) -> str:
        relative = os.path.relpath(path, base_dir)
        return path if relative.startswith("..") else relative

    argv = [shown(word) if os.path.isabs(word) else word for word in entrant.command]
    entries = [(shown(path), path) for path in cmd_files(entrant, base_dir)]
    return _hash_entries(entries, header=json.dumps(argv))


# -- files --


def _skipped(relative: str) -> bool:
    parts = relative.split(os.sep)
    return (any(part.startswith(".") or part in SKIP_FOLDERS for part in parts)
            or relative.endswith(SKIP_SUFFIXES))


def _walk(root: str, wanted: Callable[[str], bool], max_files: int | None = None,
          max_bytes: int | None = None) -> list[str]:
    """The files under ``root`` that ``wanted(name)`` accepts, skipping what is never hashed.

    With limits, an empty list when the folder holds more than ``max_files``
    files or ``max_bytes`` bytes. A folder holding a results store
    (``results.sqlite``) is skipped with everything in it.
    """
    found: list[str] = []
    size = 0
    for folder, folders, names in os.walk(root):
        if folder != root and "results.sqlite" in names:
            folders[:] = []
            continue
        folders[:] = [name for name in folders if not name.startswith(".") and name not in SKIP_FOLDERS]
        for name in names:
            if name.startswith(".") or name.endswith(SKIP_SUFFIXES) or not wanted(name):
                continue
            path = os.path.join(folder, name)
            if not os.path.isfile(path):
                continue
            found.append(path)
            if max_bytes is not None:
                size += os.path.getsize(path)
            if (max_files is not None and len(found) > max_files) or (max_bytes is not None and size > max_bytes):
                return []
    return found


def _hash_entries(entries: list[tuple[str, str]], header: str = "",
                  by_stat: Callable[[str], bool] | None = None) -> str:
    """The short hash of (shown name, path) pairs: each name and its file's hash, in name order
    (of its size and time for the paths ``by_stat`` accepts)."""
    digest = hashlib.sha256(header.encode() + b"\n")
    for shown, path in sorted(entries):
        digest.update(f"{shown.replace(os.sep, '/')}\0{_file_digest(path, bool(by_stat and by_stat(path)))}\n"
                      .encode())
    return digest.hexdigest()[:HASH_HEX]


def _file_digest(path: str, by_stat: bool = False) -> str:
    """The sha256 of a file's content (of its size and time when it is over ``MAX_FILE_BYTES``, or asked)."""
    try:
        stat = os.stat(path)
    except OSError:
        return "missing"
    if by_stat:
        return f"size {stat.st_size} mtime {stat.st_mtime_ns}"
    key = (path, stat.st_size, stat.st_mtime_ns, stat.st_ino)
    digest = _file_digests.get(key)
    if digest is None:
        if stat.st_size > MAX_FILE_BYTES:
            digest = f"size {stat.st_size} mtime {stat.st_mtime_ns}"
        else:
            try:
                with open(path, "rb") as handle:
                    digest = hashlib.file_digest(handle, "sha256").hexdigest()
            except OSError:
                digest = "unreadable"
        _file_digests[key] = digest
    return digest
