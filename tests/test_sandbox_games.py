"""Real games in the sandbox: the Node.js example bot plays both games, and hosted bots play as in-process ones."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arena.entrants import parse_spec
from arena.match import Limits, derive_seed, play_game
from arena.replay import replay
from arena.seating import close_seats, open_seat

NODE_BOT = Path(__file__).parent.parent / "examples" / "node-bot" / "bot.js"
LIMITS = Limits(start_ms=10000, move_ms=2000, bank_ms=10000)


def play(plugins, game_name: str, specs: list[str], seed: int, sandbox: str = "process") -> dict:
    game = plugins.game(game_name)
    entrants = [parse_spec(spec, plugins) for spec in specs]
    options = game.check_options(len(entrants), {})
    setup = game.random_setup(len(entrants), options, random.Random(seed))
    seats = []
    try:
        seats = [open_seat(entrant, sandbox, LIMITS, plugins) for entrant in entrants]
        return play_game(game, options, setup, seats, [e.name for e in entrants], game_id=f"{game_name}/{seed}",
                         seed=seed, bot_seeds=[derive_seed(seed, seat) for seat in range(len(seats))],
                         limits=LIMITS)
    finally:
        close_seats(seats)


@pytest.mark.parametrize("game_name, players", [("modern-art", 3), ("silk-road", 3)])
def test_the_node_bot_plays_every_decision_legally(plugins, game_name, players):
    specs = [f"node{seat}=cmd:node {NODE_BOT}" for seat in range(players - 1)] + ["random"]
    record = play(plugins, game_name, specs, seed=3)
    assert record["faults"] == []
    asked = {move["decision"] for move in record["moves"] if move["seat"] < players - 1}
    assert len(asked) >= 3  # several kinds of decision, each answered from `legal` alone
    problems, _ = replay(record, plugins)
    assert problems == []


def test_the_node_bot_plays_the_same_game_again_from_the_same_seed(plugins):
    specs = [f"node=cmd:node {NODE_BOT}", "random", "random"]
    first = play(plugins, "modern-art", specs, seed=8)
    assert play(plugins, "modern-art", specs, seed=8)["moves"] == first["moves"]


@pytest.mark.parametrize("game_name", ["modern-art", "silk-road"])
def test_a_hosted_bot_plays_exactly_as_it_does_in_process(plugins, game_name):
    """The same messages reach a bot in its host process as in the runner: the same seed, the same game."""
    specs = ["random", "random", "random"]
    sandboxed = play(plugins, game_name, specs, seed=21, sandbox="process")
    in_process = play(plugins, game_name, specs, seed=21, sandbox="none")
    assert sandboxed == in_process
