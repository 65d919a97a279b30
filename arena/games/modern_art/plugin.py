"""Registers Modern Art through the ``register_games`` hook, like any third-party game."""

from typing import Callable

from arena import hookimpl
from arena.games.base import Game
from arena.games.modern_art.game import ModernArt


@hookimpl
def register_games(register: Callable[[Game], None]) -> None:
    register(ModernArt())
