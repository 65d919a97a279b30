"""The game loop's in-process fast path keeps the protocol's accounting (issue 26's leaner loop).

An in-process seat is served by a path of its own (no adapter call, no bank
look-up while an answer is within its move time, ``time_left_ms`` written
only once a bank has shrunk, no end message for a bot without ``end``); these
check what a bot is told and what the record says where that path branches:
a bank that shrinks for one seat only, a process-like adapter beside
in-process seats, a seat stopped at its fault limit, and the end message.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from arena.match import InProcessBot, Limits, play_game

sys.path.insert(0, str(Path(__file__).parent / "bots"))

from tally_game import Tally  # noqa: E402

SETUP = {"players": 3, "notes": [11, 22, 33]}


class Watcher:
    """Answers 1 and notes the ``time_left_ms`` of every request; sleeps ``slow`` seconds on its first decision."""

    def __init__(self, seen: list, slow: float = 0.0) -> None:
        self.seen = seen
        self.slow = slow

    def decide(self, request: dict) -> dict:
        self.seen.append(request["time_left_ms"])
        if self.slow and len(self.seen) == 1:
            time.sleep(self.slow)
        return {"n": 1}


class Charged:
    """A seat adapter (not an InProcessBot: served as a process's adapter is) that says each answer took
    ``used`` ms, and notes the ``time_left_ms`` it is sent."""

    clock = "cpu"

    def __init__(self, used: float, seen: list) -> None:
        self.used = used
        self.seen = seen

    def start(self, info: dict, limit_ms: float) -> None:
        pass

    def decide(self, request: dict, limit_ms: float) -> tuple[dict, float]:
        self.seen.append(request["time_left_ms"])
        return {"n": 2}, self.used

    def end(self, info: dict) -> None:
        pass

    def close(self) -> None:
        pass


def play(seats: list, limits: Limits) -> dict:
    return play_game(Tally(), {}, SETUP, seats, ["a", "b", "c"], game_id="tally/1", seed=1, bot_seeds=[1, 2, 3],
                     limits=limits)


def test_a_slow_in_process_answer_shrinks_only_its_own_seats_time_left():
    seen: list[list[int]] = [[], [], []]
    limits = Limits(move_ms=40, bank_ms=5000)
    record = play([InProcessBot(lambda: Watcher(seen[0])), InProcessBot(lambda: Watcher(seen[1], slow=0.12)),
                   InProcessBot(lambda: Watcher(seen[2]))], limits)
    assert record["faults"] == []
    full = limits.move_ms + limits.bank_ms
    assert seen[0] == [full] * 4 and seen[2] == [full] * 4
    assert seen[1][0] == full
    # at least 120 - 40 ms of its bank gone, and the same on every later request
    assert len(set(seen[1][1:])) == 1 and seen[1][1] <= full - 80


def test_an_adapters_charged_time_shrinks_its_bank_and_not_the_in_process_seats():
    seen: list[list[int]] = [[], [], []]
    limits = Limits(move_ms=100, bank_ms=1000)
    record = play([InProcessBot(lambda: Watcher(seen[0])), Charged(350.0, seen[1]),
                   InProcessBot(lambda: Watcher(seen[2]))], limits)
    assert record["faults"] == []
    assert seen[1] == [1100, 850, 600, 350]
    assert seen[0] == [1100] * 4 and seen[2] == [1100] * 4
    assert [move["action"] for move in record["moves"]] == [{"n": 1}, {"n": 2}, {"n": 1}] * 4


class Garbage:
    """Answers with something that is not an action, counting how often it was asked."""

    asked = 0

    def decide(self, request: dict) -> str:
        Garbage.asked += 1
        return "nonsense"


def test_an_in_process_seat_at_its_fault_limit_is_not_asked_again_and_plays_defaults():
    Garbage.asked = 0
    seen: list = []
    limits = Limits(max_faults=2)
    record = play([InProcessBot(Garbage), InProcessBot(lambda: Watcher(seen)), InProcessBot(lambda: Watcher([]))],
                  limits)
    assert Garbage.asked == 2
    assert [(fault["seat"], fault["move"], fault["kind"]) for fault in record["faults"]] == [(0, 0, "malformed"),
                                                                                           (0, 3, "malformed")]
    assert [move["action"] for move in record["moves"] if move["seat"] == 0] == [{"n": 0}] * 4
    assert record["result"]["money"] == [0, 4, 4]


class Ender:
    """Answers 3 and keeps its end message (with the events since its last decision)."""

    ended: list = []

    def decide(self, request: dict) -> dict:
        return {"n": 3}

    def end(self, message: dict) -> None:
        Ender.ended.append(message)


def test_a_bot_with_an_end_gets_its_end_message_and_one_without_is_released():
    Ender.ended = []
    seats = [InProcessBot(Ender), InProcessBot(lambda: Watcher([])), InProcessBot(lambda: Watcher([]))]
    record = play(seats, Limits())
    assert [message["result"] for message in Ender.ended] == [record["result"]]
    assert [event["seat"] for event in Ender.ended[0]["events"]] == [0, 1, 2]  # its last pick and the two after it
    assert all(seat.bot is None for seat in seats)
