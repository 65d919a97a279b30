"""What of the disk a bot may read as its own: allow-listed paths, never a folder that holds someone else's.

A bot's private root shows the runtime and these paths (read-only):

- a ``cmd:`` bot: every file its command line names, one by one; its
  program's folder (the program is the first file or folder named outside
  the runtime: ``bot/main.py`` in ``python3 bot/main.py``) and a folder named
  as a word of its own (``node bot/``) only when :func:`refusal` finds
  nothing in them, below their top too; the virtual environment whose
  interpreter it names (``botenv/bin/python bot/main.py``), checked at its
  top; and the files its ``[[bots]]`` entry lists (``files = ["bot/**"]``);
- a ``py:`` or registered bot: the package its module lies in directly
  (``submissions/alice/`` for ``py:submissions.alice.bot:Bot``) when
  :func:`refusal` finds nothing in it, else the module's file alone, and the
  ``__init__.py`` files of the packages above it, never those packages whole:
  a parent package or namespace package may hold other entrants;
- every bot: the folders Python imports from outside its prefix
  (:func:`import_paths`: ``PYTHONPATH``, ``pip install --target``, the user
  site, path lines of ``.pth`` files), each when :func:`refusal` finds
  nothing in it.

:func:`refusal` is the one check: a folder is refused when it is or holds the
runner's folder, its home, ``/`` or a tournament's folder, holds or lies in
another entrant's files (``Entrant.neighbours``, set by :func:`with_neighbours`
for every entrant of a run), or holds anywhere below it a tournament file, a
results folder or store, a log, a ``.env`` or a ``.git``
(:data:`arena.versions.PRIVATE_MARKS`; a ``.toml`` file counts when it holds a
tournament file's table, so a bot's own ``pyproject.toml`` or settings do
not), or more entries than can be checked.
"""

from __future__ import annotations

import functools
import glob
import os
import site
import sys
from dataclasses import replace
from typing import Iterable, Sequence

from arena.entrants import Entrant, find_module
from arena.sandbox.jail import SYSTEM_PATHS
from arena.sandbox.probe import python_paths
from arena.versions import private_entry

#: a folder with more entries than this below it is not checked through, so never shown whole
MAX_CHECKED = 5000
#: a ``files = [...]`` entry shows at most this many files (each is a mount)
MAX_LISTED_FILES = 2000


def _inside(path: str, folder: str) -> bool:
    """Whether ``path`` is ``folder`` or lies below it."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def runtime_paths() -> list[str]:
    """What every bot reads anyway: the system's folders and the runner's Python."""
    return [*SYSTEM_PATHS, *python_paths()]


def in_runtime(path: str) -> bool:
    return any(_inside(path, shared) for shared in runtime_paths())


def refusal(folder: str, neighbours: Iterable[str] = (), guarded: Iterable[str] = (), deep: bool = True,
            marks: bool = True) -> str | None:
    """Why ``folder`` cannot be shown to a bot whole (what it holds that is not the bot's), or None.

    :param neighbours: other entrants' files and folders (a folder holding one, or lying in one, is refused).
    :param guarded: folders that are never the bot's, nor may lie in what it is shown (a tournament's folder);
        the runner's working folder, its home and ``/`` always are.
    :param deep: look for private marks below the folder's top too (false: at its top only, for the folders
        the runner's own Python set-up names, whose installed packages may ship any file).
    :param marks: look for private marks at all (false: only where the folder lies and what it holds of others).
    """
    folder = os.path.abspath(folder)
    for place in ("/", os.getcwd(), os.path.expanduser("~"), *guarded):
        if place and _inside(os.path.abspath(place), folder):
            return f"it holds {os.path.abspath(place)} (the runner's, not the bot's)"
    for other in neighbours:
        if _inside(other, folder) or _inside(folder, other):
            return f"another entrant's {other} is there"
    if not marks:
        return None
    seen = 0
    for top, folders, files in os.walk(folder):  # symbolic links are not followed (in the jail they lead nowhere)
        names = folders + files
        if not deep:
            del folders[:]  # its top only
        for name in names:
            seen += 1
            if seen > MAX_CHECKED:
                return f"more than {MAX_CHECKED} entries to check"
            path = os.path.join(top, name)
            if private_entry(path):
                return f"it holds {path}"
    return None


def _own_folder(folder: str, entrant: Entrant, deep: bool = True) -> bool:
    """Whether ``entrant`` may be shown ``folder`` whole (the runtime's folders every bot sees anyway)."""
    return in_runtime(folder) or refusal(folder, entrant.neighbours, [entrant.base_dir], deep) is None


# -- cmd: bots --


def named_paths(argv: Sequence[str], cwd: str) -> tuple[list[str], list[str]]:
    """``argv`` with paths made absolute (against ``cwd``), and the existing paths it names, in order.

    The program counts when written as a path; an argument when it names an
    existing file or folder, also as ``--key=PATH``.
    """
    command: list[str] = []
    named: list[str] = []
    for number, word in enumerate(argv):
        key, equals, value = word.partition("=")
        prefix, candidate = (key + "=", value) if equals and key.startswith("-") and number else ("", word)
        path = candidate if os.path.isabs(candidate) else os.path.join(cwd, candidate)
        if candidate and (number > 0 or os.sep in candidate) and os.path.exists(path):
            path = os.path.abspath(path)
            command.append(prefix + path)
            named.append(path)
        else:
            command.append(word)
    return command, named


def program_files(entrant: Entrant, argv: Sequence[str], cwd: str) -> tuple[list[str], list[str]]:
    """A ``cmd:`` bot's command line (paths absolute) and what it may read of its own (see the module)."""
    command, named = named_paths(argv, cwd)
    own = [path for path in named if os.path.isfile(path)]
    environments = [_environment_of(path) for path in named]  # a bot run by its own venv's interpreter
    own += [folder for folder in environments if folder and _own_folder(folder, entrant, deep=False)]
    program = next((path for path, venv in zip(named, environments) if not venv and not in_runtime(path)), None)
    for path in named:
        if os.path.isdir(path) and not in_runtime(path) and _own_folder(path, entrant):
            own.append(path)  # a bot given as its folder (``node bot/``)
    if program is not None and os.path.isfile(program) and _own_folder(os.path.dirname(program), entrant):
        own.append(os.path.dirname(program))
    base = os.path.abspath(entrant.base_dir or cwd)
    listed: list[str] = []
    for pattern in entrant.files:
        listed += [path for path in glob.glob(os.path.join(base, pattern), recursive=True) if os.path.isfile(path)]
    return command, own + list(dict.fromkeys(listed))[:MAX_LISTED_FILES]


def _environment_of(path: str) -> str | None:
    """The virtual environment ``path`` is the interpreter of (``VENV/bin/python3``), else None."""
    folder = os.path.dirname(os.path.dirname(path))
    is_interpreter = os.path.basename(os.path.dirname(path)) == "bin" and os.path.basename(path).startswith("python")
    return folder if is_interpreter and os.path.isfile(os.path.join(folder, "pyvenv.cfg")) else None


# -- py: and registered bots --


def module_files(module: str, entrant: Entrant) -> list[str]:
    """What a bot whose class lives in ``module`` may read: the package the module lies in directly (or the
    module's file alone) and the ``__init__.py`` files above it (a ``py:`` module searched in the entrant's
    ``base_dir`` first, as it is imported). Nothing is imported to find them."""
    parts = module.split(".")
    base_dir = (entrant.base_dir or None) if entrant.kind == "py" else None
    loaded = sys.modules.get(parts[0])
    spec = getattr(loaded, "__spec__", None) or find_module(parts[0], base_dir)
    if spec is None:
        return []
    if not spec.submodule_search_locations:  # a module of one file
        origin = os.path.abspath(spec.origin or "")
        if not os.path.isfile(origin):
            return []
        return [os.path.dirname(origin)] if _own_folder(os.path.dirname(origin), entrant) else [origin]
    folders = [os.path.abspath(folder) for folder in spec.submodule_search_locations]
    inits: list[str] = []
    module_file = None
    for part in parts[1:]:
        inner = [os.path.join(folder, part) for folder in folders if os.path.isdir(os.path.join(folder, part))]
        if inner:
            inits += [os.path.join(folder, "__init__.py") for folder in folders]
            folders = inner
            continue
        module_file = next((path for folder in folders for path in glob.glob(
            os.path.join(glob.escape(folder), glob.escape(part) + ".*")) if os.path.isfile(path)), None)
        break
    own: list[str] = []
    for folder in folders:
        if _own_folder(folder, entrant):
            own.append(folder)
        else:
            own.append(os.path.join(folder, "__init__.py"))
            if module_file is not None and os.path.dirname(module_file) == folder:
                own.append(module_file)
    return [path for path in inits + own if os.path.exists(path)]


# -- what every Python bot imports from --


@functools.cache
def _site_dirs() -> tuple[str, ...]:
    """Every site folder of this interpreter (the user's included) that exists."""
    dirs = [*site.getsitepackages(), site.getusersitepackages() if site.ENABLE_USER_SITE else "",
            *(path for path in sys.path if path.endswith(("site-packages", "dist-packages")))]
    return tuple(path for path in dict.fromkeys(dirs) if path and os.path.isdir(path))


@functools.cache
def import_paths() -> tuple[str, ...]:
    """The folders Python imports from that lie outside its prefix: ``PYTHONPATH`` (as this interpreter
    took it: ``pip install --target`` folders too), the user site, and the folders ``.pth`` files name
    (a ``setup.py develop`` or src-layout editable install); those on this interpreter's ``sys.path``."""
    found: list[str] = []
    if not sys.flags.ignore_environment:
        found += [entry for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep) if entry]
    for folder in _site_dirs():
        found.append(folder)
        for pth in glob.glob(os.path.join(glob.escape(folder), "*.pth")):
            try:
                with open(pth, encoding="utf-8", errors="replace") as handle:
                    lines = handle.read().splitlines()
            except OSError:
                continue
            found += [os.path.join(folder, line.strip()) for line in lines
                      if line.strip() and not line.startswith(("#", "import ", "import\t"))]
    on_path = {os.path.abspath(entry) for entry in sys.path if entry}
    return tuple(path for path in dict.fromkeys(os.path.abspath(entry) for entry in found)
                 if path in on_path and os.path.isdir(path) and not in_runtime(path))


def shown_import_paths(entrant: Entrant) -> list[str]:
    """Those of :func:`import_paths` this entrant may see (each passes :func:`refusal`, at its top: these
    folders are the runner's set-up, not an entrant's choice, and installed packages ship files of any name).

    A folder refused only for a private mark at its top (a project's checkout named by a ``.pth`` file of a
    ``setup.py develop`` install, with its ``.git``) shows its Python packages and modules, each checked so.
    """
    shown: list[str] = []
    for path in import_paths():
        if _own_folder(path, entrant, deep=False):
            shown.append(path)
        elif refusal(path, entrant.neighbours, [entrant.base_dir], marks=False) is None:
            shown += [child for child in _python_entries(path) if _own_folder(child, entrant, deep=False)]
    return shown


def _python_entries(folder: str) -> list[str]:
    """What Python imports in ``folder``: packages (folders with an ``__init__.py``), modules, distributions'
    metadata (``*.dist-info``, ``*.egg-info``: entry points)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    found = []
    for name in names:
        path = os.path.join(folder, name)
        if name.startswith(".") or name == "__pycache__":
            continue
        if os.path.isdir(path) and (os.path.isfile(os.path.join(path, "__init__.py"))
                                    or name.endswith((".dist-info", ".egg-info"))):
            found.append(path)
        elif os.path.isfile(path) and name.endswith((".py", ".so", ".pth")):
            found.append(path)
    return found


# -- the entrants of a run --


def claimed_paths(entrant: Entrant) -> list[str]:
    """The files and folders that are ``entrant``'s own on this disk (outside the runtime): what another
    entrant must not be shown. A registered bot's code is installed, so shared: none."""
    if entrant.kind == "cmd":
        try:
            _, named = named_paths(entrant.command, entrant.base_dir or os.getcwd())
        except ValueError:
            return []
        base = os.path.abspath(entrant.base_dir or os.getcwd())
        listed = [path for pattern in entrant.files
                  for path in glob.glob(os.path.join(base, pattern), recursive=True)]
        return [path for path in named + listed if not in_runtime(path)]
    if entrant.kind == "py":
        plain = replace(entrant, neighbours=())
        return [path for path in module_files(entrant.target.partition(":")[0], plain)
                if not in_runtime(path) and not path.endswith("__init__.py")]
    return []


def with_neighbours(entrants: Sequence[Entrant]) -> list[Entrant]:
    """``entrants`` each knowing the others' files (``Entrant.neighbours``): no bot of the run is shown a
    folder holding, or lying in, another's. An entrant running the same files (self-play) is no neighbour."""
    claims = [set(claimed_paths(entrant)) for entrant in entrants]
    found = []
    for number, entrant in enumerate(entrants):
        others = set().union(*(claim for index, claim in enumerate(claims) if index != number)) - claims[number]
        found.append(replace(entrant, neighbours=tuple(sorted(others))))
    return found
