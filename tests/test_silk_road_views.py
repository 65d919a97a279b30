"""What a Silk Road seat sees, determinization, cloning, refused actions, refused setups and options."""

from __future__ import annotations

import copy
import json
import random

import pytest

from arena.errors import IllegalAction, MalformedAction, OptionError, SetupError
from arena.games.silk_road.cards import GOODS
from arena.games.silk_road.game import SilkRoad
from arena.match import Request
from arena_bots.silk_road_random import choose

GAME = SilkRoad()
OPTIONS = GAME.check_options(3, {})
SPECIALS = ("license", "porter", "exchange")


def card(good: str, index: int) -> int:
    return GOODS.index(good) * 11 + index


def decide(state, rng: random.Random) -> dict:
    request = Request(type="decide", decision=state.decision, legal=state.legal, time_left_ms=1000)
    request._state, request._seat, request._first, request._last = state, state.seat, 0, len(state.log)
    return choose(request, rng)


def positions(seeds=range(40), players=3):
    """Every decision of random games: (state, seat to move), the state paused there."""
    for seed in seeds:
        options = GAME.check_options(players, {"start_money": 12})
        state = GAME.new_state(GAME.random_setup(players, options, random.Random(seed)), options)
        rng = random.Random(seed)
        while state.seat is not None:
            yield state, state.seat
            state.apply(decide(state, rng))


def card_ids(value) -> set[int]:
    """The ids of every card object ({"id", "good"}) anywhere in ``value``."""
    if isinstance(value, dict):
        found = {value["id"]} if set(value) == {"id", "good"} else set()
        for item in value.values():
            found |= card_ids(item)
        return found
    if isinstance(value, list):
        return set().union(*map(card_ids, value)) if value else set()
    return set()


def test_view_shows_own_hand_and_the_public_table_never_other_hands_or_the_deck_order():
    kinds = set()
    for state, seat in positions(range(10)):
        view = state.view(seat)
        kinds.add(state.decision)
        assert json.loads(json.dumps(view)) == view
        assert [c["id"] for c in view["hand"]] == sorted(state.hands[seat])
        hidden = {c for other, hand in enumerate(state.hands) if other != seat for c in hand} | set(state.deck)
        assert not card_ids(view) & hidden
        assert not set(view["absent"]) & hidden
        assert view["deck"] == len(state.deck)
        assert [c and c["id"] for c in view["market"]] == state.market
        assert view["covered"] == sorted(state.covered)
        assert [p["money"] for p in view["players"]] == state.money()
        assert [p["hand_size"] for p in view["players"]] == [len(hand) for hand in state.hands]
        assert [p["ships"] for p in view["players"]] == [[GOODS[g] if g >= 0 else None for g in ships]
                                                         for ships in state.ships]
        for player, licenses, porters, exchanges in zip(view["players"], state.licenses, state.porters,
                                                         state.exchanges):
            assert (player["license"], player["porter"], player["exchange"]) == (licenses, porters, exchanges)
        assert set(view["supply"]) == {"ship", *SPECIALS}
        assert (view["seat"], view["to_move"]) == (seat, seat)
    assert kinds == {"load_ship", "phase1", "phase2", "extra_draw"}


def test_view_keys_are_the_documented_ones():
    state = GAME.new_state(GAME.random_setup(2, OPTIONS, random.Random(1)), OPTIONS)
    view = state.view(0)
    assert set(view) == {"seat", "phase", "to_move", "first", "hand", "players", "market", "covered",
                         "absent", "markers", "supply", "deck"}
    assert set(view["players"][1]) == {"money", "hand_size", "ships", "license", "porter", "exchange"}
    assert view["phase"] == "loading" and view["players"][0]["ships"] == [None, None]


def test_determinization_is_consistent_with_the_view_and_plays_on():
    rng = random.Random(5)
    for number, (state, seat) in enumerate(positions(range(12))):
        if number % 7:
            continue
        view = state.view(seat)
        guess = GAME.determinize(view, OPTIONS, rng)
        assert guess.view(seat) == view
        assert (guess.seat, guess.decision, guess.legal) == (state.seat, state.decision, state.legal)
        unseen = sorted([c for other, hand in enumerate(state.hands) if other != seat for c in hand] + state.deck)
        assert sorted([c for other, hand in enumerate(guess.hands) if other != seat for c in hand]
                      + guess.deck) == unseen
        while guess.seat is not None:  # the guessed state plays on to a proper end
            guess.apply(decide(guess, rng))
        assert guess.result()["ranks"]


def test_determinization_deals_the_unseen_cards_at_random():
    state = GAME.new_state(GAME.random_setup(3, OPTIONS, random.Random(2)), OPTIONS)
    view = state.view(0)
    hands = {tuple(GAME.determinize(view, OPTIONS, random.Random(seed)).hands[1]) for seed in range(20)}
    assert len(hands) > 10


def test_clone_is_independent_and_plays_the_same():
    state = GAME.new_state(GAME.random_setup(3, OPTIONS, random.Random(3)), OPTIONS)
    rng = random.Random(3)
    for _ in range(20):
        state.apply(decide(state, rng))
    before = [state.view(seat) for seat in range(3)], len(state.log), state.legal
    twin = state.clone()
    actions = []
    while twin.seat is not None:
        actions.append(decide(twin, rng))
        twin.apply(actions[-1])
    assert ([state.view(seat) for seat in range(3)], len(state.log), state.legal) == before
    for action in actions:
        state.apply(action)
    assert state.result() == twin.result() and state.log == twin.log


# -- refused actions: (decision reached by these moves, the action, the error, words of its message) --

SETUP = {
    "players": 2,
    "hands": [[card("tea", 0), card("tea", 1), card("silk", 0)], [card("ore", 0)]],
    "market": [card("porcelain", 0), card("porcelain", 1), card("spice", 0), card("spice", 1),
               card("glass", 0), card("glass", 1)],
    "deck": [card("ore", index) for index in range(1, 11)],
    "money": [9, 0],
    "first": 0,
}
SETUP3 = dict(SETUP, players=3, hands=SETUP["hands"] + [[card("ore", 10)]], money=[9, 0, 0],
              deck=[card("ore", index) for index in range(1, 10)])
#: seat 0 loads tea and silk, seat 1 ore and tea (two players)
LOADS = [{"good": "tea"}, {"good": "ore"}, {"good": "silk"}, {"good": "tea"}]
#: seat 0 loads tea and silk, seats 1 and 2 tea twice: tea's five markers are all on ships (three players)
LOADS3 = [{"good": g} for g in ("tea", "tea", "tea", "silk", "tea", "tea")]
FIVE_TEA = [{"good": "tea"}] * 5
PHASE2 = LOADS + [{"action": "pass"}]

REFUSED = [
    ("load_ship: not an object", SETUP, [], "load", MalformedAction, "expected a JSON object"),
    ("load_ship: missing key", SETUP, [], {}, MalformedAction, "missing key 'good'"),
    ("load_ship: unknown key", SETUP, [], {"good": "tea", "ship": 0}, MalformedAction, "unknown key 'ship'"),
    ("load_ship: unknown good", SETUP, [], {"good": "coffee"}, MalformedAction, "unknown good"),
    ("load_ship: wrong type", SETUP, [], {"good": 2}, MalformedAction, "unknown good"),
    ("load_ship: no marker left", SETUP3, FIVE_TEA, {"good": "tea"}, IllegalAction, "all tea markers"),
    ("phase1: unknown action word", SETUP, LOADS, {"action": "fly"}, MalformedAction, "unknown action"),
    ("phase1: missing action", SETUP, LOADS, {"card": "ship"}, MalformedAction, "missing key 'action'"),
    ("phase1: pass with an extra key", SETUP, LOADS, {"action": "pass", "card": "ship"}, MalformedAction,
     "unknown key 'card'"),
    ("phase1: buy an unknown card", SETUP, LOADS, {"action": "buy", "card": "castle"}, MalformedAction,
     "unknown special card"),
    ("phase1: buy without the money", SETUP, LOADS, {"action": "buy", "card": "ship"}, IllegalAction,
     "not enough money"),
    ("phase1: swaps not a list", SETUP, LOADS, {"action": "swap", "swaps": {"ship": 0}}, MalformedAction,
     "swaps must be a list"),
    ("phase1: swap entry of the wrong shape", SETUP, LOADS, {"action": "swap", "swaps": [{"ship": "0", "good": "ore"}]},
     MalformedAction, "each swap"),
    ("phase1: swap to an unavailable good", SETUP3, LOADS3, {"action": "swap", "swaps": [{"ship": 1, "good": "tea"}]},
     IllegalAction, "no tea marker"),
    ("phase1: swap to the good the ship carries", SETUP, LOADS,
     {"action": "swap", "swaps": [{"ship": 0, "good": "tea"}]},
     IllegalAction, "already carries tea"),
    ("phase1: swap a ship that does not exist", SETUP, LOADS, {"action": "swap", "swaps": [{"ship": 2, "good": "ore"}]},
     IllegalAction, "no ship 2"),
    ("phase1: more swaps than porters allow", SETUP, LOADS,
     {"action": "swap", "swaps": [{"ship": 0, "good": "ore"}, {"ship": 1, "good": "silk"}]}, IllegalAction,
     "at most 1 ship (1 + porters)"),
    ("phase1: an empty swap", SETUP, LOADS, {"action": "swap", "swaps": []}, IllegalAction, "at least one ship"),
    ("phase2: unknown action word", SETUP, PHASE2, {"action": "pass"}, MalformedAction, "unknown action"),
    ("phase2: cards not a list of ids", SETUP, PHASE2, {"action": "play", "cards": "22", "slots": [0]},
     MalformedAction, "cards must be a list"),
    ("phase2: cards and slots of different lengths", SETUP, PHASE2,
     {"action": "play", "cards": [22, 23], "slots": [0]}, MalformedAction, "same length"),
    ("phase2: missing slots", SETUP, PHASE2, {"action": "play", "cards": [22]}, MalformedAction,
     "missing key 'slots'"),
    ("phase2: two cards on one slot", SETUP, PHASE2, {"action": "play", "cards": [22, 23], "slots": [1, 1]},
     IllegalAction, "different slot"),
    ("phase2: mixed goods in one delivery", SETUP, PHASE2, {"action": "play", "cards": [22, 11], "slots": [0, 1]},
     IllegalAction, "one good"),
    ("phase2: a card not in hand", SETUP, PHASE2, {"action": "play", "cards": [24], "slots": [0]}, IllegalAction,
     "not in hand"),
    ("phase2: a card played twice", SETUP, PHASE2, {"action": "play", "cards": [22, 22], "slots": [0, 1]},
     IllegalAction, "played twice"),
    ("phase2: a slot that does not exist", SETUP, PHASE2, {"action": "play", "cards": [22], "slots": [6]},
     IllegalAction, "no market slot 6"),
    ("phase2: an empty delivery", SETUP, PHASE2, {"action": "play", "cards": [], "slots": []}, IllegalAction,
     "at least one card"),
    ("extra_draw: more than allowed", SETUP, LOADS + [{"action": "buy", "card": "exchange"}, {"action": "draw"}],
     {"count": 2}, IllegalAction, "count must be 0 to 1"),
    ("extra_draw: a boolean is not a count", SETUP, LOADS + [{"action": "buy", "card": "exchange"},
                                                           {"action": "draw"}],
     {"count": True}, MalformedAction, "count must be an integer"),
]


@pytest.mark.parametrize("name, setup, moves, action, error, words", REFUSED, ids=[row[0] for row in REFUSED])
def test_refused_actions_raise_and_leave_the_state_unchanged(name, setup, moves, action, error, words):
    options = GAME.check_options(setup["players"], {})
    state = GAME.new_state(copy.deepcopy(setup), options)
    for move in moves:
        state.apply(move)
    decision = name.split(":")[0]
    assert state.decision == decision
    before = [state.view(seat) for seat in range(setup["players"])], len(state.log), state.legal
    with pytest.raises(error) as raised:
        state.apply(action)
    message = str(raised.value)
    assert words in message and message.startswith(decision) and "legal:" in message
    assert ([state.view(seat) for seat in range(setup["players"])], len(state.log), state.legal) == before


def test_acting_after_the_end_is_refused():
    state = GAME.new_state(dict(SETUP, deck=[]), OPTIONS)
    with pytest.raises(IllegalAction, match="game is over"):
        state.apply({"action": "draw"})


@pytest.mark.parametrize("moves, default", [
    ([], {"good": "porcelain"}),
    (LOADS, {"action": "pass"}),
    (PHASE2, {"action": "draw"}),
    (LOADS + [{"action": "buy", "card": "exchange"}, {"action": "draw"}], {"count": 0}),
], ids=["load_ship: first good", "phase1: pass", "phase2: draw", "extra_draw: none"])
def test_default_actions(moves, default):
    state = GAME.new_state(copy.deepcopy(SETUP), OPTIONS)
    for move in moves:
        state.apply(move)
    assert state.default_action() == default
    state.apply(default)


# -- refused setups and options --

def broken(**changes):
    return dict(SETUP, **changes)


BAD_SETUPS = [
    ("not an object", [1, 2], "expected a JSON object"),
    ("missing key", {k: v for k, v in SETUP.items() if k != "market"}, "missing key 'market'"),
    ("unknown key", broken(dek=[]), "unknown key 'dek'"),
    ("too many players", broken(players=5), "players must be 2 to 4"),
    ("wrong number of hands", broken(hands=[[1]]), "expected 2 hands"),
    ("unknown card id", broken(deck=[66]), "unknown card id 66"),
    ("negative card id", broken(deck=[-1]), "unknown card id -1"),
    ("repeated card id", broken(deck=[card("tea", 0)]), "card 22 appears twice"),
    ("card id not an integer", broken(deck=["22"]), "deck must be a list of card ids"),
    ("market of five slots", broken(market=[1, 2, 3, 4, 5]), "market must list 6 slots"),
    ("negative money", broken(money=[-1, 0]), "money cannot be negative"),
    ("money for the wrong number of seats", broken(money=[1]), "money must list 2 integers"),
    ("first not a seat", broken(first=2), "first must be a seat from 0 to 1"),
]


@pytest.mark.parametrize("name, setup, words", BAD_SETUPS, ids=[row[0] for row in BAD_SETUPS])
def test_bad_setups_are_refused(name, setup, words):
    with pytest.raises(SetupError, match=words):
        GAME.check_setup(setup, OPTIONS)


def test_good_setups_are_accepted_with_empty_slots_and_without_money():
    GAME.check_setup(broken(market=[None, 1, None, 2, None, 3]), OPTIONS)
    GAME.check_setup({k: v for k, v in SETUP.items() if k != "money"}, OPTIONS)


def test_start_money_option():
    assert GAME.check_options(2, {})["start_money"] == 0
    assert GAME.check_options(4, {"start_money": 5}) == {"start_money": 5}
    assert GAME.check_options(2, {"start_money": 1_000_000}) == {"start_money": 1_000_000}
    for bad in (-1, 1_000_001, 2**63 - 1):  # the largest fitted the option and then overflowed the store
        with pytest.raises(OptionError, match="must be from 0 to 1,000,000"):
            GAME.check_options(3, {"start_money": bad})
    with pytest.raises(OptionError, match="takes a int"):
        GAME.check_options(3, {"start_money": "lots"})
