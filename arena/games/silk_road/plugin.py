"""Registers Maritime Silk Road through ``register_games``, like any third-party game."""

from arena import hookimpl
from arena.games.silk_road.game import SilkRoad


@hookimpl
def register_games(register):
    register(SilkRoad())
