"""The benchmark's baseline engines: their games end, keep money sound, and ask as much as arena's.

``benchmarks/engine.py`` divides arena's speed by theirs, which is only fair
while a baseline game takes about as many decisions as an arena game.
"""

from __future__ import annotations

import importlib.util
import random
import statistics
from pathlib import Path

import pytest

BASELINE_PATH = Path(__file__).resolve().parent.parent / "benchmarks" / "baseline_engines.py"
_spec = importlib.util.spec_from_file_location("baseline_engines", BASELINE_PATH)
baseline = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(baseline)

#: decisions per game of arena's engines with `random` bots (benchmarks/engine.py)
ARENA_DECISIONS_PER_GAME = {"modern-art": 202.6, "silk-road": 105.3}
TABLES = {
    "modern-art": (baseline.ModernArt, baseline.RandomModernArtPlayer, 4),
    "silk-road": (baseline.SilkRoad, baseline.RandomSilkRoadPlayer, 3),
}
#: far more decisions than any game takes: a game still running then never ends
DECISION_LIMIT = 5000


class WatchfulPlayer:
    """A random player that fails the test if anyone's money is negative or the game runs on and on."""

    def __init__(self, player) -> None:
        self.player = player
        self.decisions = 0

    def decide(self, game):
        assert min(game.money) >= 0, f"negative money {game.money} at {game.decision}"
        self.decisions += 1
        assert self.decisions < DECISION_LIMIT, "the game does not end"
        return self.player.decide(game)


def play_watched(game_name: str, seed: int):
    """Play one seeded game with watchful random players; the finished game and its decisions."""
    game_class, player_class, players = TABLES[game_name]
    game = game_class(players, random.Random(seed))
    seats = [WatchfulPlayer(player_class(random.Random(seed * 10 + seat))) for seat in range(players)]
    decisions = baseline.play(game, seats)
    return game, decisions


@pytest.mark.parametrize("seed", range(5))
def test_modern_art_game_runs_four_rounds_and_money_stays_non_negative(seed):
    game, decisions = play_watched("modern-art", seed)
    assert game.over and game.round == baseline.ROUNDS - 1
    assert min(game.money) >= 0
    assert decisions > 0


@pytest.mark.parametrize("seed", range(5))
def test_silk_road_game_ends_when_the_deck_runs_out_and_money_stays_non_negative(seed):
    game, decisions = play_watched("silk-road", seed)
    assert game.over and not game.deck
    assert min(game.money) >= 0
    assert decisions > 0


@pytest.mark.parametrize("game_name", sorted(TABLES))
def test_decisions_per_game_are_within_a_factor_of_one_and_a_half_of_arena(game_name):
    mean = statistics.mean(play_watched(game_name, seed)[1] for seed in range(40))
    arena = ARENA_DECISIONS_PER_GAME[game_name]
    assert arena / 1.5 <= mean <= arena * 1.5


@pytest.mark.parametrize("play, player_class, players", [
    (baseline.play_modern_art, baseline.RandomModernArtPlayer, 5),
    (baseline.play_silk_road, baseline.RandomSilkRoadPlayer, 2),
])
def test_the_benchmark_entry_points_play_other_table_sizes_too(play, player_class, players):
    decisions = play([player_class(random.Random(seat)) for seat in range(players)], random.Random(7))
    assert decisions > 0
