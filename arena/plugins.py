"""Finding, loading and asking plugins; the registries of games and bots they fill.

Built-in features (the two games, the core commands) are plugins too, listed in
``DEFAULT_PLUGINS`` and registered through the same hooks as a third party's.
Third-party plugins come from the ``arena`` entry-point group; each is loaded
inside its own guard, so a broken plugin prints one warning line on stderr and
everything else keeps working.

Environment switches:
- ``ARENA_LOAD_PLUGINS=a,b``: load only these entry points (empty: none);
- ``ARENA_DISABLE_PLUGINS=a,b``: never load these entry points;
- ``ARENA_TRACE_PLUGINS=1``: print every hook call on stderr.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import pluggy

from arena import hookspecs
from arena.errors import PluginError, UnknownBot, UnknownGame
from arena.games.base import Game

ENTRY_POINT_GROUP = "arena"
DEFAULT_PLUGINS = (
    "arena.games.modern_art.plugin",
    "arena.games.silk_road.plugin",
    "arena.tournament.commands",
    "arena.tournament.show",
    "arena.sandbox.commands",
    "arena.compare.commands",
    "arena.authoring.commands",
    "arena.report.commands",
)


@dataclass
class PluginInfo:
    """A loaded plugin: its name, the distribution it comes from, and its version."""

    name: str
    distribution: str
    version: str
    module: Any = None
    hooks: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class BotInfo:
    """A registered Python bot: what ``arena bots`` lists and how to make one."""

    name: str
    factory: Callable[..., Any]
    games: tuple[str, ...]
    description: str
    plugin: str
    options: dict[str, Any] = field(default_factory=dict)


def _warn(message: str) -> None:
    print(f"arena: warning: {message}", file=sys.stderr)


def _env_names(variable: str) -> set[str] | None:
    raw = os.environ.get(variable)
    if raw is None:
        return None
    return {name.strip() for name in raw.split(",") if name.strip()}


class Plugins:
    """The plugin manager with the game and bot registries it fills on first use."""

    def __init__(self) -> None:
        self.pm = pluggy.PluginManager("arena")
        self.pm.add_hookspecs(hookspecs)
        self.infos: dict[str, PluginInfo] = {}
        self._games: dict[str, Game] | None = None
        self._game_plugins: dict[str, str] = {}
        self._bots: dict[str, BotInfo] | None = None
        self.tracing = os.environ.get("ARENA_TRACE_PLUGINS") == "1"
        self._load()
        if self.tracing:
            self.pm.trace.root.setwriter(lambda text: sys.stderr.write(text))
            self.pm.enable_tracing()

    # -- loading --

    def _load(self) -> None:
        from arena import __version__

        for module_name in DEFAULT_PLUGINS:
            try:
                module = importlib.import_module(module_name)
            except Exception as error:  # even a built-in must not take the others down
                _warn(f"built-in plugin {module_name} failed to load: {error!r}")
                continue
            self._register(module, module_name, "arena", __version__)
        only = _env_names("ARENA_LOAD_PLUGINS")
        blocked = _env_names("ARENA_DISABLE_PLUGINS") or set()
        entry_points = importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
        installed = sorted({entry_point.name for entry_point in entry_points})
        for variable, names in (("ARENA_LOAD_PLUGINS", only or set()), ("ARENA_DISABLE_PLUGINS", blocked)):
            for name in sorted(names - set(installed)):  # a misspelt name would otherwise change nothing, silently
                _warn(f"{variable} names {name!r}, which is no installed plugin (installed: "
                      f"{', '.join(installed) or 'none'})")
        for entry_point in entry_points:
            if entry_point.name in blocked or (only is not None and entry_point.name not in only):
                continue
            dist = entry_point.dist
            distribution = dist.metadata["Name"] if dist else "?"
            version = dist.version if dist else "?"
            try:
                module = entry_point.load()
                self._register(module, entry_point.name, distribution, version)
            except Exception as error:  # a broken plugin must not break arena
                _warn(f"plugin {entry_point.name} ({distribution}) failed to load: {error!r}")
        try:
            self.pm.check_pending()
        except pluggy.PluginValidationError as error:
            _warn(f"{error}")

    def _register(self, module: Any, name: str, distribution: str, version: str) -> None:
        try:
            self.pm.register(module, name=name)
        except (ValueError, pluggy.PluginValidationError) as error:
            _warn(f"plugin {name} ({distribution}) failed to register: {error}")
            return
        hooks = sorted(caller.name for caller in self.pm.get_hookcallers(module) or [])
        self.infos[name] = PluginInfo(name, distribution, version, module, hooks)

    def register_module(self, module: Any, name: str) -> None:
        """Register a plugin object directly (tests, embedding); resets the registries."""
        self._register(module, name, name, "-")
        self._games = None
        self._bots = None

    def _each_impl(self, hook_name: str, make_register: Callable[[str], Callable[..., None]]) -> None:
        """Call every implementation of a registration hook with its own callback."""
        hook = getattr(self.pm.hook, hook_name)
        for impl in reversed(hook.get_hookimpls()):
            register = make_register(impl.plugin_name)
            try:
                if self.tracing:
                    print(f"arena: hook {hook_name} -> plugin {impl.plugin_name}", file=sys.stderr)
                impl.function(register)
            except PluginError:
                raise
            except Exception as error:
                _warn(f"plugin {impl.plugin_name} failed in {hook_name}: {error!r}")

    # -- games --

    @property
    def games(self) -> dict[str, Game]:
        """Game name -> game object, from every plugin's ``register_games``."""
        if self._games is None:
            games: dict[str, Game] = {}

            def make_register(plugin: str) -> Callable[[Game], None]:
                def register(game: Game) -> None:
                    if game.name in games:
                        raise PluginError(
                            f"game {game.name!r} is registered by both plugin "
                            f"{self._game_plugins[game.name]} and plugin {plugin}"
                        )
                    games[game.name] = game
                    self._game_plugins[game.name] = plugin

                return register

            self._each_impl("register_games", make_register)
            self._games = games
        return self._games

    def game(self, name: str) -> Game:
        """The game called ``name``, or :class:`UnknownGame` listing the known ones."""
        try:
            return self.games[name]
        except KeyError:
            known = ", ".join(sorted(self.games)) or "none"
            raise UnknownGame(f"unknown game {name!r} (games: {known})") from None

    def game_plugin(self, name: str) -> str:
        self.games  # noqa: B018 - fills the registry
        return self._game_plugins[name]

    # -- bots --

    @property
    def bots(self) -> dict[str, BotInfo]:
        """Bot name -> :class:`BotInfo`, from every plugin's ``register_bots``."""
        if self._bots is None:
            bots: dict[str, BotInfo] = {}

            def make_register(plugin: str) -> hookspecs.RegisterBot:
                def register(name: str, factory: Callable[..., Any], games: str | Iterable[str] = (),
                             description: str = "", options: Mapping[str, Any] | None = None) -> None:
                    if name in bots:
                        raise PluginError(
                            f"bot {name!r} is registered by both plugin {bots[name].plugin} "
                            f"and plugin {plugin}"
                        )
                    if not callable(factory):
                        raise PluginError(f"bot {name!r} of plugin {plugin}: factory is not callable")
                    if isinstance(games, str):
                        games = (games,)
                    bots[name] = BotInfo(
                        name, factory, tuple(games), description, plugin, dict(options or {})
                    )

                return register

            self._each_impl("register_bots", make_register)
            self._bots = bots
        return self._bots

    def bot(self, name: str) -> BotInfo:
        """The bot called ``name``, or :class:`UnknownBot` listing the known ones."""
        try:
            return self.bots[name]
        except KeyError:
            known = ", ".join(sorted(self.bots)) or "none"
            raise UnknownBot(f"unknown bot {name!r} (bots: {known})") from None

    def distribution_of(self, plugin: str) -> str:
        info = self.infos.get(plugin)
        return info.distribution if info else plugin


_plugins: Plugins | None = None


def get_plugins() -> Plugins:
    """The process-wide plugin manager, loaded on first use."""
    global _plugins
    if _plugins is None:
        _plugins = Plugins()
    return _plugins


def reset_plugins() -> None:
    """Forget the loaded plugins (tests change the environment and load again)."""
    global _plugins
    _plugins = None
