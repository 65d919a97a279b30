"""Bot specs: the strings that name a bot, parsed into entrants.

A spec is one of (cli.md):
- ``NAME`` or ``NAME:key=value,...``: a bot registered by a plugin, with options;
- ``NAME=BOT`` (``BOT`` as above): a registered bot entered under another name,
  so that one bot can be entered twice (self-play, two option sets);
- ``NAME=cmd:COMMAND``: an external program speaking the JSON-lines protocol;
- ``NAME=py:MODULE:CLASS``: a Python class not (yet) packaged as a plugin.

A relative path in a ``cmd:`` command is made absolute when the spec is parsed,
against ``base_dir`` (a tournament file's folder; on the command line, the
current folder), so the command means the same whatever folder the bot runs in.
A ``py:`` module is searched in ``base_dir`` first, by the same rule.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import json
import os
import re
import shlex
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from arena.errors import BadBotSpec, OptionError, PlayerCountError, UnknownBot
from arena.games.base import Game
from arena.plugins import Plugins

#: what an entry's name may be, in ``NAME=...`` specs (it names the entry in records and tables)
NAME_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


@dataclass(frozen=True)
class Entrant:
    """One entry in a game or tournament: its display name and how to start it."""

    name: str
    kind: str  # "plugin", "cmd" or "py"
    target: str  # the bot name, the command line (relative paths made absolute), or "MODULE:CLASS"
    options: dict[str, Any] = field(default_factory=dict)
    spec: str = ""
    #: the folder relative paths were resolved against (a tournament file's, or the current one)
    base_dir: str = ""
    #: a ``cmd:`` entry's own files: glob patterns relative to ``base_dir`` (a ``[[bots]]`` entry's ``files``)
    files: tuple[str, ...] = ()
    #: the other entrants' files of the same run: the sandbox never shows this bot a folder holding one
    #: (set by :func:`arena.sandbox.own_files.with_neighbours`; not part of :attr:`key`)
    neighbours: tuple[str, ...] = field(default=(), compare=False)

    @functools.cached_property
    def key(self) -> str:
        """A hashable identity: entrants with equal keys play identically (made once: the seat pool asks it
        several times a game)."""
        return json.dumps([self.name, self.kind, self.target, self.options], sort_keys=True)

    @property
    def command(self) -> list[str]:
        """The argv of a ``cmd:`` entrant."""
        return shlex.split(self.target)

    def plays(self, game: str, plugins: Plugins) -> bool:
        """Whether this entrant plays ``game`` (external and py: bots are taken at their word)."""
        if self.kind != "plugin":
            return True
        return game in plugins.bot(self.target).games

    def factory(self, plugins: Plugins) -> Callable[[], Any]:
        """A zero-argument callable giving a fresh in-process bot (plugin and py: entrants)."""
        if self.kind == "plugin":
            info = plugins.bot(self.target)
            options = {**info.options, **self.options}
            return lambda: info.factory(**options)
        if self.kind == "py":
            cls = load_py_class(self.target, self.base_dir)
            return functools.partial(cls, **self.options) if self.options else cls
        raise BadBotSpec(f"bot {self.name} is an external program; it cannot run in-process")


def parse_value(raw: str) -> Any:
    """An option value: JSON when it parses (``5``, ``true``, ``"x"``), else the string itself."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def parse_options(text: str, where: str) -> dict[str, Any]:
    """``key=value,key=value`` into a dict; values read by :func:`parse_value`."""
    options: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, raw = part.partition("=")
        if not sep or not key:
            raise BadBotSpec(f"{where}: option {part!r} is not key=value")
        if key.strip() in options:
            raise BadBotSpec(f"{where}: option {key.strip()!r} is given twice; give it once")
        options[key.strip()] = parse_value(raw.strip())
    return options


def parse_spec(spec: str, plugins: Plugins | None = None, options: dict[str, Any] | None = None,
               base_dir: str | None = None) -> Entrant:
    """Parse a bot spec; with ``plugins``, check that a plugin bot exists and takes its options.

    :param options: options from a tournament file's ``options = {...}`` (a spec's own win).
    :param base_dir: the folder relative ``cmd:`` paths resolve against (default: the current one).
    """
    spec = spec.strip()
    if not spec:
        raise BadBotSpec("empty bot spec (expected NAME, NAME=BOT, NAME=cmd:COMMAND or NAME=py:MODULE:CLASS)")
    base_dir = os.path.abspath(base_dir or os.getcwd())
    name, sep, rest = spec.partition("=")
    if ":" in name:  # NAME:key=value,...: the '=' belongs to an option
        sep = ""
    if sep:
        name = name.strip()
        if not NAME_WORD.fullmatch(name):
            raise BadBotSpec(f"bot spec {spec!r}: the name before '=' must be a plain word "
                             f"(letters, digits, '.', '_', '-'), got {name!r}")
        rest = rest.strip()
    if sep and (rest.startswith("cmd:") or rest.startswith("py:")):
        kind, _, target = rest.partition(":")
        target = target.strip()
        if not target:
            raise BadBotSpec(f"bot spec {spec!r}: nothing after {kind}:")
        if kind == "py" and target.count(":") != 1:
            raise BadBotSpec(f"bot spec {spec!r}: expected {name}=py:MODULE:CLASS")
        if kind == "cmd":
            target = resolve_command(target, base_dir, f"bot spec {spec!r}")
        return Entrant(name, kind, target, dict(options or {}), spec, base_dir)
    bot_spec = rest if sep else spec
    bot, _, option_text = bot_spec.partition(":")
    if sep:
        expected = (f"bot spec {spec!r}: after '=' expected cmd:COMMAND or py:MODULE:CLASS, "
                    f"or a registered bot (BOT or BOT:key=value,...)")
        if not NAME_WORD.fullmatch(bot):
            raise BadBotSpec(f"{expected}, got {bot_spec!r}")
        if plugins is not None and bot not in plugins.bots:
            raise BadBotSpec(f"{expected}; {bot!r} is none of these (bots: {', '.join(sorted(plugins.bots))})")
        try:
            parse_options(option_text, "")
        except BadBotSpec as error:
            raise BadBotSpec(f"{expected}, got {bot_spec!r} ({str(error).lstrip(': ')})") from None
    bot_options = {**(options or {}), **parse_options(option_text, f"bot spec {spec!r}")}
    display = bot if not bot_options else bot + ":" + ",".join(
        f"{key}={json.dumps(value) if not isinstance(value, str) else value}"
        for key, value in sorted(bot_options.items())
    )
    entrant = Entrant(name if sep else display, "plugin", bot, bot_options, spec, base_dir)
    if plugins is not None and sep and name != bot and name in plugins.bots:
        raise BadBotSpec(f"bot spec {spec!r}: {name!r} is the name of another registered bot; "
                         f"enter {bot} under a name of its own")
    if plugins is not None:
        info = plugins.bot(bot)
        unknown = set(bot_options) - set(info.options)
        if unknown:
            known = ", ".join(sorted(info.options)) or "none"
            raise OptionError(
                f"bot {bot} has no option {sorted(unknown)[0]!r} (options: {known})"
            )
        for key, value in sorted(bot_options.items()):
            option_kind = option_type(info.options[key])
            if option_kind is not None and not fits_option(value, option_kind):
                raise OptionError(
                    f"option {key} of bot {bot} takes a value of type {option_kind.__name__} "
                    f"(default {info.options[key]!r}), got {value!r}"
                )
    return entrant


def resolve_command(command: str, base_dir: str, where: str) -> str:
    """``command`` with each relative path to an existing file made absolute against ``base_dir``.

    The program (the first word) counts as a path only when written as one
    (``./bot``, ``bin/bot``): a bare word is looked up on PATH. An argument
    counts when it names an existing file (``my_bot.py``), or an existing
    folder written with a '/' (``lib/``) or as ``.`` (``node .``);
    ``--key=FILE`` is resolved likewise.
    """
    try:
        words = shlex.split(command)
    except ValueError as error:
        raise BadBotSpec(f"{where}: cannot split the command: {error}") from None
    if not words:
        raise BadBotSpec(f"{where}: empty command")
    resolved = [_resolve_word(words[0], base_dir, program=True)]
    for word in words[1:]:
        key, equals, value = word.partition("=")
        if equals and key.startswith("-") and value:
            resolved.append(f"{key}={_resolve_word(value, base_dir)}")
        else:
            resolved.append(_resolve_word(word, base_dir))
    return shlex.join(resolved)


def _resolve_word(word: str, base_dir: str, program: bool = False) -> str:
    if not word or os.path.isabs(word) or word.startswith(("-", "~")):
        return word
    path = os.path.normpath(os.path.join(base_dir, word))
    if program:
        return path if "/" in word else word
    if os.path.isfile(path) or (("/" in word or word in (".", "..")) and os.path.isdir(path)):
        return path
    return word


def option_type(default: Any) -> type | None:
    """The type a bot option takes, judged from its default (None: any value)."""
    return None if default is None else type(default)


def fits_option(value: Any, expected: type) -> bool:
    """Whether ``value`` suits an option of type ``expected`` (an int is a float; a bool is no number)."""
    if isinstance(value, bool) or expected is bool:
        return isinstance(value, bool) and expected is bool
    if expected is float:
        return isinstance(value, (int, float))
    return isinstance(value, expected)


def load_py_class(target: str, base_dir: str | None = None) -> Callable[[], Any]:
    """Import ``MODULE:CLASS`` and return the class (a bot factory).

    ``MODULE`` is searched in ``base_dir`` first (the tournament file's folder;
    default and on the command line: the current one), then where Python looks.
    """
    module_name, _, class_name = target.partition(":")
    folder = os.path.abspath(base_dir or os.getcwd())
    if folder not in sys.path and not ("" in sys.path and folder == os.getcwd()):
        sys.path.insert(0, folder)  # like `python -m` in that folder: a module beside the file is found
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise UnknownBot(f"cannot import module {module_name!r} for py:{target}: {error}") from None
    try:
        cls: Callable[[], Any] = getattr(module, class_name)
    except AttributeError:
        raise UnknownBot(f"module {module_name!r} has no class {class_name!r}") from None
    return cls


def find_module(module_name: str, base_dir: str | None = None) -> importlib.machinery.ModuleSpec | None:
    """The import spec of ``module_name``'s top-level package, found as a ``py:`` bot is, or None.

    ``base_dir`` (default: the current folder) is searched first (as
    :func:`load_py_class` does), and every import finder is asked, not only
    ``sys.path``: a package installed in editable mode is found by a finder of
    its own, not by a path entry.
    """
    top = module_name.partition(".")[0]
    folder = os.path.abspath(base_dir or os.getcwd())
    added = folder not in sys.path and not ("" in sys.path and folder == os.getcwd())
    if added:
        sys.path.insert(0, folder)
    try:
        return importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    finally:
        if added:
            sys.path.remove(folder)


def check_entrants_play(game: Game, entrants: list[Entrant], plugins: Plugins) -> None:
    """Refuse entrants that do not play ``game``."""
    for entrant in entrants:
        if not entrant.plays(game.name, plugins):
            games = ", ".join(plugins.bot(entrant.target).games)
            raise PlayerCountError(f"bot {entrant.name} does not play {game.name} (it plays: {games})")
