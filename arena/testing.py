"""Conformance checks for game and bot plugin authors, also a pytest plugin (``pytest11``).

``check_game(game)`` plays random self-play games and asserts what every game
must keep: the game ends, ranks follow money, and every record replays
exactly. Our own tests run it on every registered game.
"""

from __future__ import annotations

import random
from typing import Any, Iterable

from arena.games.base import competition_ranks
from arena.match import InProcessBot, derive_seed, play_game


class UniformBot:
    """Plays the default action or, when a chooser is given, a chooser's action."""

    def __init__(self, choose: Any = None) -> None:
        self.choose = choose
        self.rng = random.Random(0)

    def start(self, info: dict) -> None:
        self.rng = random.Random(info["seed"])

    def decide(self, request: dict) -> dict:
        return self.choose(request, self.rng)


def self_play(game: Any, players: int, seed: int, factory: Any, options: dict | None = None) -> dict:
    """One game of ``game`` between ``players`` fresh bots from ``factory``, with its record."""
    options = game.check_options(players, options or {})
    setup = game.random_setup(players, options, random.Random(seed))
    seats = [InProcessBot(factory) for _ in range(players)]
    return play_game(game, options, setup, seats, [f"bot{i}" for i in range(players)],
                     game_id=f"selfplay/{game.name}/{seed}", seed=seed,
                     bot_seeds=[derive_seed(seed, seat) for seat in range(players)])


def check_game(game: Any, factory: Any, seeds: Iterable[int], players: Iterable[int] | None = None,
               plugins: Any = None) -> int:
    """Self-play ``game`` for every seed and player count; assert the generic invariants.

    Returns the number of games played.
    """
    from arena.plugins import get_plugins
    from arena.replay import replay

    plugins = plugins or get_plugins()
    counts = list(players or range(game.min_players, game.max_players + 1))
    played = 0
    for seed in seeds:
        n = counts[seed % len(counts)]
        record = self_play(game, n, seed, factory)
        assert not record["faults"], record["faults"][:3]
        money, ranks = record["result"]["money"], record["result"]["ranks"]
        assert ranks == competition_ranks(money), (money, ranks)
        problems, _ = replay(record, plugins)
        assert not problems, problems
        played += 1
    return played
