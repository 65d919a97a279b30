"""docs/games/silk-road.md stays true: its example messages are regenerated and compared.

The page holds the example game as a JSON block after ``<!-- example-game -->``
(seed, players, options, the actions taken in order) and each documented
message after ``<!-- decide N -->`` (the N-th ``decide`` message of that game).
This file replays the game through the real runner and compares every block.
Run it as a script to print fresh blocks after changing the engine:
``python tests/test_silk_road_docs.py``.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from arena.games.silk_road.game import SilkRoad
from arena.match import Limits, Request, play_game
from arena_bots.silk_road_random import choose

DOC = Path(__file__).resolve().parent.parent / "docs" / "games" / "silk-road.md"
GAME_BLOCK = re.compile(r"<!-- example-game -->\s*```json\n(.*?)\n```", re.S)
DECIDE_BLOCK = re.compile(r"<!-- decide (\d+) -->\s*```json\n(.*?)\n```", re.S)
CHEAPEST = {"phase1": {"action": "pass"}, "phase2": {"action": "draw"}, "extra_draw": {"count": 0}}


class ScriptedSeat:
    """A seat adapter that plays the script's next action and keeps every message it is sent.

    Once the script is used up it plays the cheapest action, so the game runs to its end.
    """

    clock = "wall"

    def __init__(self, script: list, messages: list) -> None:
        self.script = script
        self.messages = messages

    def start(self, info: dict, limit_ms: float) -> None:
        pass

    def decide(self, request, limit_ms: float) -> tuple[dict, float]:
        message = request.full()
        self.messages.append(json.loads(json.dumps(message)))
        if self.script:
            return self.script.pop(0), 0.0
        if message["decision"] == "load_ship":
            return {"good": message["legal"]["goods"][0]}, 0.0
        return CHEAPEST[message["decision"]], 0.0

    def end(self, info: dict) -> None:
        pass

    def close(self) -> None:
        pass


def example_messages(example: dict) -> list[dict]:
    """Every ``decide`` message of the documented example game, in order, as a bot receives it."""
    game = SilkRoad()
    players = example["players"]
    options = game.check_options(players, example["options"])
    setup = game.random_setup(players, options, random.Random(example["seed"]))
    script, messages = list(example["moves"]), []
    play_game(game, options, setup, [ScriptedSeat(script, messages) for _ in range(players)],
              [f"bot{seat}" for seat in range(players)], game_id="docs", seed=example["seed"],
              bot_seeds=list(range(players)), limits=Limits())
    assert not script, "the example game ended before its scripted moves"
    return messages


def render(message: dict) -> str:
    """A message as the page shows it: one line per key, and per item of the view's lists of objects."""

    def block(items: list[tuple[str | None, object]], indent: str) -> list[str]:
        lines = []
        for index, (key, value) in enumerate(items):
            comma = "," if index < len(items) - 1 else ""
            label = f"{json.dumps(key)}: " if key is not None else ""
            if isinstance(value, dict) and key in ("view",):
                lines += [f"{indent}{label}{{", *block(list(value.items()), indent + "  "), f"{indent}}}{comma}"]
            elif isinstance(value, list) and len(value) > 1 and all(isinstance(item, dict) for item in value):
                lines += [f"{indent}{label}[", *block([(None, item) for item in value], indent + "  "),
                          f"{indent}]{comma}"]
            else:
                lines.append(f"{indent}{label}{json.dumps(value, ensure_ascii=False)}{comma}")
        return lines

    return "\n".join(["{", *block(list(message.items()), "  "), "}"])


def documented() -> tuple[dict, list[tuple[int, dict]]]:
    text = DOC.read_text(encoding="utf-8")
    example = json.loads(GAME_BLOCK.search(text).group(1))
    return example, [(int(number), json.loads(body)) for number, body in DECIDE_BLOCK.findall(text)]


def test_the_documented_messages_are_what_a_bot_receives():
    example, blocks = documented()
    messages = example_messages(example)
    for number, shown in blocks:
        assert shown == messages[number], f"decide {number} differs; run python tests/test_silk_road_docs.py"


def test_every_decision_kind_has_a_complete_example():
    _, blocks = documented()
    assert {shown["decision"] for _, shown in blocks} == {"load_ship", "phase1", "phase2", "extra_draw"}
    for _, shown in blocks:
        assert set(shown) == {"type", "decision", "legal", "time_left_ms", "view", "events"}


def test_every_view_key_and_event_kind_is_documented():
    text = DOC.read_text(encoding="utf-8")
    game = SilkRoad()
    options = game.check_options(3, {"start_money": 30})
    kinds, view_keys, player_keys = set(), set(), set()
    for seed in range(30):
        state = game.new_state(game.random_setup(3, options, random.Random(seed)), options)
        rng = random.Random(seed)
        while state.seat is not None:
            view = state.view(state.seat)
            view_keys |= set(view)
            player_keys |= set(view["players"][0])
            request = Request(type="decide", decision=state.decision, legal=state.legal, time_left_ms=0)
            request._state, request._seat, request._first, request._last = state, state.seat, 0, 0
            state.apply(choose(request, rng))
        kinds |= {event["type"] for _, event in state.log}
    assert kinds == {"setup", "deal", "load", "pass", "swap", "buy", "deliver", "draw", "extra_draw", "drawn",
                     "game_end"}
    for name in kinds | view_keys | player_keys:
        assert f"| `{name}` |" in text, f"{name} is not in a table of {DOC.name}"


if __name__ == "__main__":
    example, blocks = documented()
    messages = example_messages(example)
    for number, _ in blocks:
        print(f"<!-- decide {number} -->\n```json\n{render(messages[number])}\n```\n")
