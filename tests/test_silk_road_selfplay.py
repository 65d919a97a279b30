"""Random self-play of Maritime Silk Road: 1,000 seeds for each of 2, 3 and 4 players.

At every decision and at the end: every card of the setup is in exactly one
place (a hand, a market slot, under a slot, the deck); no good has more than
five markers on ships; money is never negative and changes only by the
incomes and purchases the events announce; the game goes on while the deck
has cards and ends exactly when it empties. Every game's record replays to
the same result through ``arena.replay.replay``.
"""

from __future__ import annotations

import random

import pytest

from arena.games.silk_road.cards import GOODS, MARKERS_PER_GOOD
from arena.games.silk_road.game import SilkRoad
from arena.match import Request
from arena.replay import replay
from arena_bots.silk_road_random import choose

GAME = SilkRoad()
SEEDS = range(1000)


def request_for(state) -> Request:
    """The ``decide`` message the runner would build now (view and events built when read)."""
    request = Request(type="decide", decision=state.decision, legal=state.legal, time_left_ms=1000)
    request._state, request._seat, request._first, request._last = state, state.seat, 0, len(state.log)
    return request


def cards_in_play(state) -> list[int]:
    market = [card for card in state.market if card is not None]
    return sorted([card for hand in state.hands for card in hand] + market + state.covered + state.deck)


def money_flows(events: list[dict], players: int) -> list[int]:
    """What the events say each seat earned (incomes) and paid (purchases)."""
    flows = [0] * players
    for event in events:
        if event["type"] == "deliver":
            flows = [flow + income for flow, income in zip(flows, event["income"])]
        elif event["type"] == "buy":
            flows[event["seat"]] -= event["cost"]
    return flows


def check_position(state, cards: list[int]) -> dict:
    """Assert the invariants of any position; the public view (seat 0's) for further checks."""
    view = state.view(0)
    assert cards_in_play(state) == cards
    for good in GOODS:
        on_ships = sum(player["ships"].count(good) for player in view["players"])
        assert on_ships <= MARKERS_PER_GOOD
        assert on_ships + view["markers"][good] == MARKERS_PER_GOOD
    assert min(state.money()) >= 0
    return view


def play_checked(players: int, seed: int) -> dict:
    """One random game with every invariant checked at every decision; its record."""
    options = GAME.check_options(players, {})
    setup = GAME.random_setup(players, options, random.Random(seed))
    cards = sorted(card for part in (*setup["hands"], setup["market"], setup["deck"]) for card in part)
    state = GAME.new_state(setup, options)
    rng = random.Random(seed)
    moves = []
    while state.seat is not None:
        assert check_position(state, cards)["deck"] > 0
        action = choose(request_for(state), rng)
        moves.append({"seat": state.seat, "decision": state.decision, "action": action})
        money, seen = state.money(), len(state.log)
        state.apply(action)
        new_events = [event for audience, event in state.log[seen:] if audience is None]
        flows = money_flows(new_events, players)
        assert state.money() == [before + flow for before, flow in zip(money, flows)]
    check_position(state, cards)
    public = [event for audience, event in state.log if audience is None]
    assert public[-1]["type"] == "game_end" and public[-1]["money"] == state.money()
    assert public[-2]["type"] in ("draw", "extra_draw") and public[-2]["deck"] == 0
    assert all(event["deck"] > 0 for event in public[:-2] if event["type"] in ("draw", "extra_draw"))
    return {"id": f"selfplay/{players}/{seed}", "game": GAME.name, "options": options, "seed": seed,
            "players": [f"random{seat}" for seat in range(players)], "setup": setup, "moves": moves,
            "result": state.result(), "faults": []}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_self_play_keeps_every_invariant_and_replays(players, plugins):
    for seed in SEEDS:
        record = play_checked(players, seed)
        problems, _ = replay(record, plugins)
        assert not problems, problems
