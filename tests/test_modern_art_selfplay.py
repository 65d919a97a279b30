"""Modern Art self-play: 1,200 seeded games of `random` bots, every invariant checked at every step.

Seeds cycle through 3, 4 and 5 players and 3 players with the phantom hand,
with option double_split on every other game. Each game is played by the
runner (`play_game`), replayed through `arena.replay.replay`, and stepped
through once more move by move to check the table after every decision.
"""

from __future__ import annotations

import random

import pytest

from arena.games.base import competition_ranks
from arena.match import InProcessBot, derive_seed, play_game
from arena.replay import replay
from arena_bots.random_bot import RandomBot

SEEDS = range(1200)
TABLES = [(3, {}), (4, {}), (5, {}), (3, {"phantom": True})]
CHUNKS = 8


def table_for(seed: int) -> tuple[int, dict]:
    players, options = TABLES[seed % len(TABLES)]
    return players, {**options, "double_split": seed % 2 == 1}


def play(game, seed: int) -> dict:
    players, options = table_for(seed)
    options = game.check_options(players, options)
    setup = game.random_setup(players, options, random.Random(seed))
    return play_game(game, options, setup, [InProcessBot(RandomBot) for _ in range(players)],
                     ["random"] * players, game_id=f"selfplay/{seed}", seed=seed,
                     bot_seeds=[derive_seed(seed, "bot", seat) for seat in range(players)])


def all_cards(state) -> list[int]:
    return sorted([*sum(state.hands, []), *state.deck, *state.pile, *state.played, *state.discarded])


def assert_real_choice(state) -> None:
    """Only real choices are asked: every decision has two or more legal actions."""
    decision, legal, seat = state.decision, state.legal, state.seat
    if decision in ("play_card",):
        assert len(legal["cards"]) >= 2
    elif decision == "add_double":
        assert len(legal["cards"]) >= 1  # a card, or none
    elif decision == "bid":
        assert 1 <= legal["min"] <= legal["max"] == state.money()[seat]
    elif decision == "sealed_bid":
        assert legal == {"min": 0, "max": state.money()[seat]} and legal["max"] >= 1
    elif decision == "set_price":
        assert legal == {"min": 1, "max": state.money()[seat]} and legal["max"] >= 2
    elif decision == "accept_price":
        assert legal["price"] <= state.money()[seat]
    else:
        assert decision == "flip_phantom" and legal == {} and state.pile


class Ledger:
    """Follows the log: money may change only by the payments and payouts it records."""

    def __init__(self, state) -> None:
        self.money = state.money()
        self.seen = 0
        self.in_hands = sum(map(len, state.hands))
        self.rounds = []

    def follow(self, state) -> None:
        for _, event in state.log[self.seen:]:
            kind = event["type"]
            if kind == "sale":
                for payment in event["payments"]:
                    self.money[payment["from"]] -= payment["amount"]
                    if payment["to"] is not None:
                        self.money[payment["to"]] += payment["amount"]
                assert sum(p["amount"] for p in event["payments"]) == event["price"]
            elif kind == "round_end":
                self.money = [have + paid for have, paid in zip(self.money, event["payouts"])]
                self.check_round_end(event)
            elif kind == "round_start" and event["round"] > 1:
                self.in_hands += sum(event["dealt"])
            elif kind in ("play", "double_added"):
                self.in_hands -= 1
        self.seen = len(state.log)
        assert self.money == state.money()
        assert min(self.money) >= 0

    def check_round_end(self, event: dict) -> None:
        """Every round ends on a fifth card, on emptied hands, or at once with no cards."""
        counts = list(event["counts"].values())
        if event["reason"] == "fifth card":
            assert max(counts) == 5 and counts.count(5) == 1
        elif event["reason"] == "hands empty":
            assert max(counts) < 5 and self.in_hands == 0
        else:
            assert event["reason"] == "no cards" and not any(counts) and self.in_hands == 0
        board = list(event["counts"])  # artists in board order
        played = [artist for artist in board if event["counts"][artist]]
        top = sorted(played, key=lambda artist: (-event["counts"][artist], board.index(artist)))[:3]
        assert event["ranking"] == top
        self.rounds.append(event["round"])


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_random_self_play_keeps_every_invariant(chunk, plugins):
    game = plugins.game("modern-art")
    for seed in SEEDS[chunk::CHUNKS]:
        record = play(game, seed)
        assert not record["faults"], record["faults"][:3]
        problems, _ = replay(record, plugins)
        assert not problems, problems

        state = game.new_state(record["setup"], record["options"])
        cards = all_cards(state)
        assert len(cards) == len(set(cards)) == 70
        ledger = Ledger(state)
        for move in record["moves"]:
            assert (state.seat, state.decision) == (move["seat"], move["decision"])
            assert_real_choice(state)
            state.apply(move["action"])
            assert all_cards(state) == cards, f"seed {seed}: cards lost or doubled"
            ledger.follow(state)
        assert state.seat is None
        assert ledger.rounds == [1, 2, 3, 4], f"seed {seed}: rounds {ledger.rounds}"
        money, ranks = record["result"]["money"], record["result"]["ranks"]
        assert money == state.money() and ranks == competition_ranks(money)


def test_the_self_play_covers_every_decision_and_ending(plugins):
    """The seeds above reach every decision kind and every way a round ends (so they test them)."""
    game = plugins.game("modern-art")
    decisions, reasons = set(), set()
    for seed in SEEDS[:200]:
        record = play(game, seed)
        decisions.update(move["decision"] for move in record["moves"])
        _, state = replay(record, plugins)
        reasons.update(event["reason"] for _, event in state.log if event["type"] == "round_end")
    assert decisions == {"play_card", "add_double", "bid", "sealed_bid", "set_price", "accept_price",
                         "flip_phantom"}
    assert {"fifth card", "hands empty"} <= reasons
