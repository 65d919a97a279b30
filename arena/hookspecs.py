"""Every hook a plugin can implement, in one place.

Plugins are found through the ``arena`` entry-point group (see
``arena.plugins``) and write ``from arena import hookimpl``. Registration
hooks hand the plugin a ``register`` callback rather than asking it to return
lists, so that the host knows which plugin registered what and can reject a
duplicate name naming both plugins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Protocol

from pluggy import HookimplMarker, HookspecMarker

if TYPE_CHECKING:
    import click

    from arena.games.base import Game

hookspec = HookspecMarker("arena")
hookimpl = HookimplMarker("arena")


class RegisterBot(Protocol):
    """The ``register`` callback that :func:`register_bots` hands a plugin."""

    def __call__(self, name: str, factory: Callable[..., Any], games: str | Iterable[str] = (),
                 description: str = "", options: Mapping[str, Any] | None = None) -> None: ...


# -- registration phase: called once per process, when the registry is first used --


@hookspec
def register_games(register: Callable[[Game], None]) -> None:
    """Register games.

    Called once, when the game registry is first needed (``arena games``,
    ``arena play``, a tournament).

    :param register: call ``register(game)`` for each game, where ``game`` is an
        object following :class:`arena.games.base.Game` (``name``,
        ``min_players``, ``max_players``, ``options``, ``random_setup``,
        ``check_setup``, ``new_state``, ``determinize``, ``narrate``). A name
        already registered by another plugin is an error naming both plugins.
    :return: nothing.
    """


@hookspec
def register_bots(register: RegisterBot) -> None:
    """Register Python bots.

    Called once, when the bot registry is first needed.

    :param register: call ``register(name, factory, games=[...],
        description="...", options={...})``. ``factory(**options)`` must return a
        fresh bot (an object with ``decide(request) -> dict`` and optional
        ``start(info)`` and ``end(info)``) each time it is called: one per game.
        ``games`` lists the game names the bot plays; ``description`` is one
        line; ``options`` (optional) maps option names to their defaults, which
        a bot spec ``NAME:key=value`` may override. A name already registered
        by another plugin is an error naming both plugins.
    :return: nothing.
    """


@hookspec
def register_commands(cli: "click.Group") -> None:
    """Add commands to the ``arena`` command line.

    Called once, when the CLI is built, before arguments are parsed.

    :param cli: the top-level :class:`click.Group`; add commands with
        ``@cli.command()`` or ``cli.add_command(...)``.
    :return: nothing.
    """
