"""Tally: a tiny game for the sandbox tests, with the shape of a real one.

Each seat in turn picks a number from 0 to 3 (``{"n": k}``, decision ``pick``,
``legal`` ``{"max": 3}``), ``rounds`` times; its money is the sum of its picks.
The default action is ``{"n": 0}``. A view shows every seat's total and the
seat's private note (dealt at start), so tests can see that one seat's
faults change nothing another seat is shown.
"""

from __future__ import annotations

import random

from arena.errors import IllegalAction, MalformedAction
from arena.games.base import Game, GameState, competition_ranks


class TallyState(GameState):
    def __init__(self, players: int, rounds: int, notes: list[int]) -> None:
        self.players = players
        self.turns_left = rounds * players
        self.totals = [0] * players
        self.notes = notes
        self.log = [(seat, {"type": "note", "note": note}) for seat, note in enumerate(notes)]
        self.seat = 0
        self.decision = "pick"
        self.legal = {"max": 3}

    def apply(self, action: dict) -> None:
        if set(action) != {"n"} or type(action["n"]) is not int:
            raise MalformedAction(f"pick: expected {{\"n\": k}}, got {action!r}")
        if not 0 <= action["n"] <= 3:
            raise IllegalAction(f"pick: {action['n']} is outside 0..3")
        self.totals[self.seat] += action["n"]
        self.log.append((None, {"type": "picked", "seat": self.seat, "n": action["n"]}))
        self.turns_left -= 1
        if self.turns_left == 0:
            self.seat = self.decision = self.legal = None
        else:
            self.seat = (self.seat + 1) % self.players

    def default_action(self) -> dict:
        return {"n": 0}

    def view(self, seat: int) -> dict:
        return {"totals": list(self.totals), "note": self.notes[seat], "turns_left": self.turns_left}

    def money(self) -> list[int]:
        return list(self.totals)

    def result(self) -> dict:
        return {"money": self.money(), "ranks": competition_ranks(self.money())}


class Tally(Game):
    name = "tally"
    title = "Tally"
    min_players = 2
    max_players = 4
    options = {}

    def __init__(self, rounds: int = 4) -> None:
        self.rounds = rounds

    def random_setup(self, players: int, options: dict, rng: random.Random) -> dict:
        return {"players": players, "notes": [rng.randrange(100) for _ in range(players)]}

    def check_setup(self, setup: dict, options: dict) -> None:
        pass

    def new_state(self, setup: dict, options: dict) -> TallyState:
        return TallyState(setup["players"], self.rounds, list(setup["notes"]))
