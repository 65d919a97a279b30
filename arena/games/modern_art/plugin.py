"""Registers Modern Art through the ``register_games`` hook, like any third-party game."""

from arena import hookimpl
from arena.games.modern_art.game import ModernArt


@hookimpl
def register_games(register):
    register(ModernArt())
