"""The Maritime Silk Road game object: name, options, setups, states, determinization, narration."""

from __future__ import annotations

import random
from typing import Any, Callable

from arena.errors import OptionError
from arena.games.base import Game, GameState, LogEntry, Option
from arena.games.silk_road import setup as setups
from arena.games.silk_road.determinize import determinize, determinizer
from arena.games.silk_road.narrate import narrate
from arena.games.silk_road.state import SilkRoadState

#: the most starting money (a game's sums stay far inside the store's 64-bit integers)
MAX_START_MONEY = 1_000_000


class SilkRoad(Game):
    """Reiner Knizia's *Merchants*, as the Chinese edition Maritime Silk Road (rules/silk-road.md)."""

    name = "silk-road"
    title = "Maritime Silk Road (海上丝路)"
    min_players = setups.MIN_PLAYERS
    max_players = setups.MAX_PLAYERS
    options = {"start_money": Option(int, 0, f"money each player starts with (0 to {MAX_START_MONEY:,})")}

    def check_options(self, players: int, options: dict[str, Any]) -> dict[str, Any]:
        full = super().check_options(players, options)
        if not 0 <= full["start_money"] <= MAX_START_MONEY:
            raise OptionError(f"option start_money of {self.name} must be from 0 to {MAX_START_MONEY:,}, "
                              f"got {full['start_money']}")
        return full

    def random_setup(self, players: int, options: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        start_money = options.get("start_money", self.options["start_money"].default)
        return setups.random_setup(players, start_money, rng)

    def check_setup(self, setup: dict[str, Any], options: dict[str, Any]) -> None:
        setups.check_setup(setup)

    def new_state(self, setup: dict[str, Any], options: dict[str, Any]) -> GameState:
        return SilkRoadState(setup, options.get("start_money", self.options["start_money"].default))

    def determinize(self, view: dict[str, Any], options: dict[str, Any], rng: random.Random) -> GameState:
        return determinize(view, rng)

    def determinizer(self, view: dict[str, Any], options: dict[str, Any]) -> Callable[[random.Random], GameState]:
        return determinizer(view)

    def narrate(self, log: list[LogEntry], players: list[str]) -> list[str]:
        return narrate(log, players)
