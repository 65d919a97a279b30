"""docs/games/modern-art.md stays true: its examples are regenerated, its key tables are complete.

Each example in the page is a marker ``<!-- example: NAME -->`` followed by two
JSON blocks: a scenario (game options, setup and the moves played so far, in
the record format) and the complete ``decide`` message the next seat gets. The
test plays the scenario through the real runner with scripted bots and
compares the message it sends with the page's, key by key and value by value.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from arena.match import InProcessBot, play_game
from arena_bots.modern_art_random import choose

PAGE = Path(__file__).resolve().parent.parent / "docs" / "games" / "modern-art.md"
EXAMPLE = re.compile(r"<!-- example: (\S+) -->\s*```json\n(.*?)```\s*```json\n(.*?)```", re.S)
DECISIONS = {"play_card", "add_double", "bid", "sealed_bid", "set_price", "accept_price", "flip_phantom"}


def examples() -> dict[str, tuple[dict, dict]]:
    """The page's examples: name -> (scenario, decide message)."""
    text = PAGE.read_text(encoding="utf-8")
    return {name: (json.loads(scenario), json.loads(message)) for name, scenario, message in EXAMPLE.findall(text)}


class Script:
    """Plays the scenario's moves, keeps the first request after them, then plays on at random."""

    def __init__(self, moves: list[dict]) -> None:
        self.moves = list(moves)
        self.captured: dict | None = None
        self.rng = random.Random(0)


class ScriptedBot:
    def __init__(self, script: Script) -> None:
        self.script = script

    def decide(self, request: dict) -> dict:
        script = self.script
        if script.moves:
            move = script.moves.pop(0)
            assert (move["seat"], move["decision"]) == (request["view"]["seat"], request["decision"]), move
            return move["action"]
        if script.captured is None:
            script.captured = json.loads(json.dumps(request.full()))
        return choose(request, script.rng)


def decide_message(scenario: dict, plugins) -> dict:
    """The ``decide`` message the runner sends right after the scenario's moves."""
    game = plugins.game("modern-art")
    setup = scenario["setup"]
    options = game.check_options(setup["players"], scenario.get("options", {}))
    game.check_setup(setup, options)
    script = Script(scenario["moves"])
    seats = [InProcessBot(lambda: ScriptedBot(script)) for _ in range(setup["players"])]
    record = play_game(game, options, setup, seats, [f"p{seat}" for seat in range(setup["players"])],
                       game_id="docs", seed=0, bot_seeds=[0] * setup["players"])
    assert not record["faults"], record["faults"]
    assert record["moves"][: len(scenario["moves"])] == scenario["moves"]
    return script.captured


def test_the_page_shows_every_decision():
    found = {message["decision"] for _, message in examples().values()}
    assert found == DECISIONS
    kinds = {message["view"]["auction"]["kind"] for _, message in examples().values()
             if message["decision"] == "bid"}
    assert {"open", "once_around"} <= kinds


@pytest.mark.parametrize("name", sorted(examples()))
def test_an_example_is_what_the_runner_sends(name, plugins):
    scenario, message = examples()[name]
    sent = decide_message(scenario, plugins)
    assert set(sent) == set(message) == {"type", "decision", "view", "legal", "events", "time_left_ms"}
    assert set(sent["view"]) == set(message["view"])
    for key in sent["view"]:
        assert sent["view"][key] == message["view"][key], f"view[{key!r}]"
    assert sent["events"] == message["events"]
    assert sent == message


def documented_keys(heading: str) -> set[str]:
    """The backquoted names in the first column of the table under ``heading``."""
    text = PAGE.read_text(encoding="utf-8")
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    return set(re.findall(r"^\| `([a-z_]+)`", section, re.M))


def test_every_view_and_auction_key_is_documented(plugins):
    messages = [message for _, message in examples().values()]
    view_keys = set().union(*(message["view"] for message in messages))
    assert documented_keys("## The view") == view_keys
    auctions = [message["view"]["auction"] for message in messages if message["view"]["auction"]]
    assert documented_keys("### The auction") == set().union(*auctions)


def test_every_event_kind_is_documented(plugins):
    """Every event type a game can log appears in the events table (checked over varied games)."""
    game = plugins.game("modern-art")
    logged = set()
    for seed, (players, options) in enumerate([(4, {}), (3, {"phantom": True}), (5, {})] * 3):
        options = game.check_options(players, options)
        state = game.new_state(game.random_setup(players, options, random.Random(seed)), options)
        rng = random.Random(seed)
        while state.seat is not None:
            state.apply(choose({"decision": state.decision, "legal": state.legal}, rng))
        logged |= {event["type"] for _, event in state.log}
    empty = game.new_state({"players": 3, "hands": [[], [], []], "deck": [], "first": 0}, game.check_options(3, {}))
    logged |= {event["type"] for _, event in empty.log}
    assert documented_keys("## Events") == logged
