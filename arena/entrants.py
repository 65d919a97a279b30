"""Bot specs: the strings that name a bot, parsed into entrants.

A spec is one of (cli.md):
- ``NAME`` or ``NAME:key=value,...``: a bot registered by a plugin, with options;
- ``NAME=cmd:COMMAND``: an external program speaking the JSON-lines protocol;
- ``NAME=py:MODULE:CLASS``: a Python class not (yet) packaged as a plugin.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import shlex
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

from arena.errors import BadBotSpec, OptionError, PlayerCountError, UnknownBot


@dataclass(frozen=True)
class Entrant:
    """One entry in a game or tournament: its display name and how to start it."""

    name: str
    kind: str  # "plugin", "cmd" or "py"
    target: str  # the bot name, the command line, or "MODULE:CLASS"
    options: dict = field(default_factory=dict)
    spec: str = ""

    @property
    def key(self) -> str:
        """A hashable identity: entrants with equal keys play identically."""
        return json.dumps([self.name, self.kind, self.target, self.options], sort_keys=True)

    @property
    def command(self) -> list[str]:
        """The argv of a ``cmd:`` entrant."""
        return shlex.split(self.target)

    def plays(self, game: str, plugins: Any) -> bool:
        """Whether this entrant plays ``game`` (external and py: bots are taken at their word)."""
        if self.kind != "plugin":
            return True
        return game in plugins.bot(self.target).games

    def factory(self, plugins: Any) -> Callable[[], Any]:
        """A zero-argument callable giving a fresh in-process bot (plugin and py: entrants)."""
        if self.kind == "plugin":
            info = plugins.bot(self.target)
            options = {**info.options, **self.options}
            return lambda: info.factory(**options)
        if self.kind == "py":
            cls = load_py_class(self.target)
            return functools.partial(cls, **self.options) if self.options else cls
        raise BadBotSpec(f"bot {self.name} is an external program; it cannot run in-process")


def parse_value(raw: str) -> Any:
    """An option value: JSON when it parses (``5``, ``true``, ``"x"``), else the string itself."""
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def parse_options(text: str, where: str) -> dict:
    """``key=value,key=value`` into a dict; values read by :func:`parse_value`."""
    options = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, raw = part.partition("=")
        if not sep or not key:
            raise BadBotSpec(f"{where}: option {part!r} is not key=value")
        options[key.strip()] = parse_value(raw.strip())
    return options


def parse_spec(spec: str, plugins: Any | None = None, options: dict | None = None) -> Entrant:
    """Parse a bot spec; with ``plugins``, check that a plugin bot exists and takes its options."""
    spec = spec.strip()
    if not spec:
        raise BadBotSpec("empty bot spec (expected NAME, NAME=cmd:COMMAND or NAME=py:MODULE:CLASS)")
    name, sep, rest = spec.partition("=")
    if ":" in name:  # NAME:key=value,...: the '=' belongs to an option
        sep = ""
    if sep and (rest.startswith("cmd:") or rest.startswith("py:")):
        name = name.strip()
        if not name:
            raise BadBotSpec(f"bot spec {spec!r}: the name before '=' must be a plain word")
        kind, _, target = rest.partition(":")
        target = target.strip()
        if not target:
            raise BadBotSpec(f"bot spec {spec!r}: nothing after {kind}:")
        if kind == "py" and target.count(":") != 1:
            raise BadBotSpec(f"bot spec {spec!r}: expected {name}=py:MODULE:CLASS")
        return Entrant(name, kind, target, dict(options or {}), spec)
    if sep:
        raise BadBotSpec(
            f"bot spec {spec!r}: after '=' expected cmd:COMMAND or py:MODULE:CLASS"
        )
    bot, _, option_text = spec.partition(":")
    bot_options = {**(options or {}), **parse_options(option_text, f"bot spec {spec!r}")}
    display = bot if not bot_options else bot + ":" + ",".join(
        f"{key}={json.dumps(value) if not isinstance(value, str) else value}"
        for key, value in sorted(bot_options.items())
    )
    entrant = Entrant(display, "plugin", bot, bot_options, spec)
    if plugins is not None:
        info = plugins.bot(bot)
        unknown = set(bot_options) - set(info.options)
        if unknown:
            known = ", ".join(sorted(info.options)) or "none"
            raise OptionError(
                f"bot {bot} has no option {sorted(unknown)[0]!r} (options: {known})"
            )
        for key, value in sorted(bot_options.items()):
            expected = option_type(info.options[key])
            if expected is not None and not fits_option(value, expected):
                raise OptionError(
                    f"option {key} of bot {bot} takes a value of type {expected.__name__} "
                    f"(default {info.options[key]!r}), got {value!r}"
                )
    return entrant


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


def load_py_class(target: str) -> Callable[[], Any]:
    """Import ``MODULE:CLASS`` and return the class (a bot factory)."""
    module_name, _, class_name = target.partition(":")
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # like `python -m`: a module in the current folder is found
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise UnknownBot(f"cannot import module {module_name!r} for py:{target}: {error}") from None
    try:
        return getattr(module, class_name)
    except AttributeError:
        raise UnknownBot(f"module {module_name!r} has no class {class_name!r}") from None


def check_entrants_play(game: Any, entrants: list[Entrant], plugins: Any) -> None:
    """Refuse entrants that do not play ``game``."""
    for entrant in entrants:
        if not entrant.plays(game.name, plugins):
            games = ", ".join(plugins.bot(entrant.target).games)
            raise PlayerCountError(f"bot {entrant.name} does not play {game.name} (it plays: {games})")
