"""The Modern Art game object: its options, setups, states, determinization and account."""

from __future__ import annotations

import random
from typing import Any, Callable

from arena.games.base import Game, LogEntry, Option
from arena.games.modern_art import setup as setups
from arena.games.modern_art.narrate import narrate
from arena.games.modern_art.state import ModernArtState
from arena.games.modern_art.determinize import determinize, determinizer


def _three_players_only(players: int) -> str | None:
    return None if players == 3 else f"phantom is for 3 players only, not {players}"


class ModernArt(Game):
    """Reiner Knizia's Modern Art for 3 to 5 players (rules/modern-art.md)."""

    name = "modern-art"
    title = "Modern Art"
    min_players = setups.MIN_PLAYERS
    max_players = setups.MAX_PLAYERS
    options = {
        "phantom": Option(bool, False, "3 players with a face-down fourth hand they may turn over",
                          applies=_three_players_only),
        "double_split": Option(bool, False, "a double's proceeds are split between its two auctioneers"),
    }

    def random_setup(self, players: int, options: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        return setups.random_setup(players, bool(options.get("phantom")), rng)

    def check_setup(self, setup: dict[str, Any], options: dict[str, Any]) -> None:
        setups.check_setup(setup, bool(options.get("phantom")))

    def new_state(self, setup: dict[str, Any], options: dict[str, Any]) -> ModernArtState:
        return ModernArtState(setup, options)

    def determinize(self, view: dict[str, Any], options: dict[str, Any], rng: random.Random) -> ModernArtState:
        return determinize(view, options, rng)

    def determinizer(self, view: dict[str, Any], options: dict[str, Any]) -> Callable[[random.Random], ModernArtState]:
        return determinizer(view, options)

    def narrate(self, log: list[LogEntry], players: list[str]) -> list[str]:
        return narrate(log, players)
