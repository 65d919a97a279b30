"""Registers Maritime Silk Road through ``register_games``, like any third-party game."""

from typing import Callable

from arena import hookimpl
from arena.games.base import Game
from arena.games.silk_road.game import SilkRoad


@hookimpl
def register_games(register: Callable[[Game], None]) -> None:
    register(SilkRoad())
