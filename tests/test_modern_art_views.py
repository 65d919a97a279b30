"""What Modern Art shows each seat, determinization, clones, refused actions and refused setups."""

from __future__ import annotations

import json
import random

import pytest

from arena.errors import IllegalAction, MalformedAction, SetupError
from arena.games.modern_art.game import ModernArt
from arena.match import events_for
from arena_bots.modern_art_random import choose

GAME = ModernArt()


def random_states(seeds, players=4, options=None):
    """Every decision state of random games (the state, then the action taken), seed by seed.

    The same state object is yielded for each decision of a game, then a new one.
    """
    for seed in seeds:
        opts = GAME.check_options(players, options or {})
        state = GAME.new_state(GAME.random_setup(players, opts, random.Random(seed)), opts)
        rng = random.Random(seed)
        while state.seat is not None:
            action = choose({"decision": state.decision, "legal": state.legal}, rng)
            yield state, action
            state.apply(action)


def ids_in(value) -> set[int]:
    """Every card id a JSON value shows: card objects anywhere, and the ``discarded`` id list."""
    found = set()
    if isinstance(value, dict):
        if set(value) == {"id", "artist", "auction"}:
            found.add(value["id"])
        for key, inner in value.items():
            if key == "discarded":
                found.update(inner)
            else:
                found |= ids_in(inner)
    elif isinstance(value, list):
        for inner in value:
            found |= ids_in(inner)
    return found


TABLES = [(3, {}), (4, {}), (5, {}), (3, {"phantom": True})]


@pytest.mark.parametrize("players,options", TABLES, ids=["3", "4", "5", "3-phantom"])
def test_a_view_shows_no_hidden_card(players, options):
    """Never another seat's hand, the deck or the phantom pile; the events each seat receives likewise."""
    cursors, game = {}, None
    for step, (state, _) in enumerate(random_states(range(10), players, options)):
        if state is not game:
            cursors, game = {}, state
        for seat in range(players):
            hidden = {card for other in range(players) if other != seat for card in state.hands[other]}
            hidden |= set(state.deck) | set(state.pile)
            events = events_for(state.log, seat, cursors.get(seat, 0))
            cursors[seat] = len(state.log)
            assert not ids_in(events) & hidden
            if step % 3 == 0:
                view = state.view(seat)
                assert not ids_in(view) & hidden
                assert [card["id"] for card in view["hand"]] == state.hands[seat]
                assert json.loads(json.dumps(view)) == view


def test_a_view_keeps_the_deck_and_pile_as_sizes_only():
    state, _ = next(random_states([1], 3, {"phantom": True}))
    view = state.view(0)
    assert view["deck_size"] == len(state.deck) == 34 and view["phantom_size"] == 9
    assert view["hand_sizes"] == [9, 9, 9]
    assert "deck" not in view and "phantom" not in view


def sealed_auction():
    """Seat 0 auctions a sealed Krypto; seat 1 has bid 37 and seat 2 is asked."""
    setup = {"players": 3, "hands": [[61, 0], [12, 13], [25, 26]], "deck": [], "first": 0}
    state = GAME.new_state(setup, GAME.check_options(3, {}))
    state.apply({"card": 61})
    state.apply({"bid": 37})
    return state


def test_a_sealed_bid_stays_secret_until_the_reveal():
    state = sealed_auction()
    assert (state.seat, state.decision) == (2, "sealed_bid")
    for seat in (0, 2):
        view, events = state.view(seat), events_for(state.log, seat, 0)
        assert view["auction"]["own_sealed_bid"] is None
        assert view["auction"]["sealed_in"] == [1]
        assert not [event for event in events if event["type"] in ("sealed_bid", "reveal")]
        assert "37" not in json.dumps(view) + json.dumps(events)
    own = state.view(1)
    assert own["auction"]["own_sealed_bid"] == 37
    assert {"type": "sealed_bid", "seat": 1, "bid": 37} in events_for(state.log, 1, 0)
    state.apply({"bid": 5})
    state.apply({"bid": 20})
    reveal = [event for event in events_for(state.log, 2, 0) if event["type"] == "reveal"]
    assert reveal == [{"type": "reveal", "bids": [20, 37, 5]}]


@pytest.mark.parametrize("players,options", TABLES, ids=["3", "4", "5", "3-phantom"])
def test_determinize_rebuilds_a_state_consistent_with_the_view(players, options):
    """The same view and decision; within an auction the same action leads to the same view;
    and the rebuilt state plays on to the end with every card in one place."""
    opts = GAME.check_options(players, options)
    rng = random.Random(99)
    checked = set()
    for step, (state, action) in enumerate(random_states(range(8), players, options)):
        if step % 4:
            continue
        seat = state.seat
        view = state.view(seat)
        rebuilt = GAME.determinize(view, opts, rng)
        assert rebuilt.view(seat) == view
        assert (rebuilt.seat, rebuilt.decision, rebuilt.legal) == (state.seat, state.decision, state.legal)
        assert [len(hand) for hand in rebuilt.hands] == [len(hand) for hand in state.hands]
        observer = (seat + 1) % players
        other = GAME.determinize(state.view(observer), opts, rng)
        assert other.view(observer) == state.view(observer)
        assert (other.seat, other.decision) == (state.seat, state.decision)
        real, copy = state.clone(), rebuilt.clone()
        real.apply(action)
        copy.apply(action)
        if state.decision in ("bid", "set_price", "accept_price") and real.view(seat)["auction"]:
            assert copy.view(seat) == real.view(seat)
            checked.add("within an auction")
        while copy.seat is not None:
            cards = sorted(sum(copy.hands, []) + copy.deck + copy.pile + copy.played + copy.discarded)
            assert len(cards) == len(set(cards))
            copy.apply(choose({"decision": copy.decision, "legal": copy.legal}, rng))
        checked.add(state.decision)
    assert {"play_card", "bid", "sealed_bid", "set_price", "accept_price", "add_double",
            "within an auction"} <= checked


def test_determinize_gives_a_seat_asked_to_add_a_card_that_can_join():
    setup = {"players": 3, "hands": [[67, 0], [54, 12], [25, 26]], "deck": [], "first": 0}
    state = GAME.new_state(setup, GAME.check_options(3, {}))
    state.apply({"card": 67})
    assert (state.seat, state.decision) == (1, "add_double")
    for seed in range(20):
        rebuilt = GAME.determinize(state.view(0), GAME.check_options(3, {}), random.Random(seed))
        assert (rebuilt.seat, rebuilt.decision) == (1, "add_double")
        assert rebuilt.legal["cards"] and all(card in range(54, 67) for card in rebuilt.legal["cards"])


def snapshot(state) -> str:
    return json.dumps([state.seat, state.decision, state.legal, state.money(), len(state.log),
                       [state.view(seat) for seat in range(state.players)]])


def test_a_clone_is_independent_of_its_original():
    """Playing a clone to the end leaves the original as it was, and the other way round."""
    original = GAME.new_state(GAME.random_setup(4, {}, random.Random(4)), GAME.check_options(4, {}))
    rng = random.Random(4)
    while original.seat is not None:
        before = snapshot(original)
        clone = original.clone()
        while clone.seat is not None:
            clone.apply(choose({"decision": clone.decision, "legal": clone.legal}, rng))
        assert snapshot(original) == before
        kept = original.clone()
        kept_before = snapshot(kept)
        original.apply(choose({"decision": original.decision, "legal": original.legal}, rng))
        assert snapshot(kept) == kept_before


def state_at(decision: str):
    """A fresh state whose next decision is ``decision`` (a small hand-written setup)."""
    scripts = {
        "play_card": ([[54, 0], [12, 13], [25, 26]], {}, []),
        "add_double": ([[67, 60, 0], [12, 13], [25, 26]], {}, [{"card": 67}]),
        "bid": ([[54, 0], [12, 13], [25, 26]], {}, [{"card": 54}]),
        "sealed_bid": ([[61, 0], [12, 13], [25, 26]], {}, [{"card": 61}]),
        "set_price": ([[64, 0], [12, 13], [25, 26]], {}, [{"card": 64}]),
        "accept_price": ([[64, 0], [12, 13], [25, 26]], {}, [{"card": 64}, {"price": 30}]),
        "flip_phantom": ([[54, 0], [12, 13], [25, 26]], {"phantom": [39]},
                         [{"card": 54}, {"bid": None}, {"bid": None}, {"bid": None}]),
    }
    hands, extra, actions = scripts[decision]
    options = GAME.check_options(3, {"phantom": "phantom" in extra})
    state = GAME.new_state({"players": 3, "hands": hands, "deck": [], "first": 0, **extra}, options)
    for action in actions:
        state.apply(action)
    assert state.decision == decision
    return state


REFUSED = [
    ("play_card", {"card": 13}, IllegalAction, "not in your hand"),
    ("play_card", {"card": "54"}, MalformedAction, '{"card": id}'),
    ("play_card", {"card": None}, MalformedAction, '{"card": id}'),
    ("play_card", {"card": True}, MalformedAction, '{"card": id}'),
    ("play_card", {"cards": 54}, MalformedAction, '{"card": id}'),
    ("play_card", {"card": 54, "say": "hi"}, MalformedAction, '{"card": id}'),
    ("play_card", [54], MalformedAction, '{"card": id}'),
    ("add_double", {"card": 0}, IllegalAction, "can join this double"),
    ("add_double", {"card": 67}, IllegalAction, "can join this double"),
    ("add_double", {}, MalformedAction, '{"card": null}'),
    ("bid", {"bid": 101}, IllegalAction, "from 1 to 100"),
    ("bid", {"bid": 0}, IllegalAction, "from 1 to 100"),
    ("bid", {"bid": 10.5}, MalformedAction, '{"bid": null}'),
    ("bid", {"bid": "pass"}, MalformedAction, '{"bid": null}'),
    ("bid", {"bid": False}, MalformedAction, '{"bid": null}'),
    ("bid", {"action": "fly"}, MalformedAction, '{"bid": n}'),
    ("sealed_bid", {"bid": -1}, IllegalAction, "from 0 to 100"),
    ("sealed_bid", {"bid": 500}, IllegalAction, "from 0 to 100"),
    ("sealed_bid", {"bid": "10"}, MalformedAction, '{"bid": n}'),
    ("set_price", {"price": 0}, IllegalAction, "from 1 to 100"),
    ("set_price", {"price": None}, MalformedAction, '{"price": n}'),
    ("accept_price", {"accept": "perhaps"}, MalformedAction, '{"accept": true}'),
    ("accept_price", {"accept": 1}, MalformedAction, '{"accept": true}'),
    ("flip_phantom", {"flip": None}, MalformedAction, '{"flip": true}'),
    ("flip_phantom", "flip", MalformedAction, '{"flip": true}'),
]


@pytest.mark.parametrize("decision,action,error,words", REFUSED,
                         ids=[f"{d}-{json.dumps(a)}" for d, a, _, _ in REFUSED])
def test_a_refused_action_names_decision_action_and_legal_and_changes_nothing(decision, action, error, words):
    state = state_at(decision)
    before = snapshot(state)
    with pytest.raises(error) as raised:
        state.apply(action)
    message = str(raised.value)
    assert message.startswith(decision + ":")
    assert json.dumps(action) in message
    assert "legal: " + json.dumps(state.legal) in message
    assert words in message
    assert snapshot(state) == before


def test_an_action_after_the_game_is_over_is_refused():
    state = GAME.new_state({"players": 3, "hands": [[], [], []], "deck": [], "first": 0},
                           GAME.check_options(3, {}))
    assert state.seat is None and state.result() == {"money": [100] * 3, "ranks": [1, 1, 1]}
    with pytest.raises(IllegalAction, match="game is over"):
        state.apply({"card": 1})


@pytest.mark.parametrize("decision,default", [
    ("play_card", {"card": 0}), ("add_double", {"card": None}), ("bid", {"bid": None}),
    ("sealed_bid", {"bid": 0}), ("set_price", {"price": 1}), ("accept_price", {"accept": False}),
    ("flip_phantom", {"flip": False})])
def test_default_actions_are_the_cheapest_legal_choice(decision, default):
    state = state_at(decision)
    assert state.default_action() == default
    state.apply(state.default_action())


GOOD = {"players": 3, "hands": [[0], [1], [2]], "deck": [3], "first": 0}
SETUPS_REFUSED = [
    ("not an object", [1, 2], {}, "expected a JSON object"),
    ("missing key", {"players": 3, "hands": [[0], [1], [2]], "first": 0}, {}, "missing key 'deck'"),
    ("unknown key", {**GOOD, "colour": "red"}, {}, "unknown key 'colour'"),
    ("too few players", {**GOOD, "players": 2, "hands": [[0], [1]]}, {}, "players must be 3 to 5"),
    ("too many players", {**GOOD, "players": 6, "hands": [[0], [1], [2], [4], [5], [6]]}, {},
     "players must be 3 to 5"),
    ("players not a number", {**GOOD, "players": "3"}, {}, "players must be 3 to 5"),
    ("hands not per player", {**GOOD, "hands": [[0], [1]]}, {}, "expected 3 hands"),
    ("a hand not a list", {**GOOD, "hands": [[0], 1, [2]]}, {}, "hand 1 must be a list of card ids"),
    ("an id not a number", {**GOOD, "hands": [[0], ["1"], [2]]}, {}, "hand 1 must be a list of card ids"),
    ("an id a bool", {**GOOD, "deck": [True]}, {}, "deck must be a list of card ids"),
    ("unknown id", {**GOOD, "hands": [[0], [70], [2]]}, {}, "unknown card id 70"),
    ("negative id", {**GOOD, "deck": [-1]}, {}, "unknown card id -1"),
    ("id twice", {**GOOD, "deck": [0]}, {}, "card 0 appears twice"),
    ("money negative", {**GOOD, "money": [10, -1, 5]}, {}, "money cannot be negative"),
    ("money per player", {**GOOD, "money": [10, 5]}, {}, "money must list 3 integers"),
    ("money not whole", {**GOOD, "money": [10, 5, 2.5]}, {}, "money must list 3 integers"),
    ("first not a seat", {**GOOD, "first": 3}, {}, "first must be a seat from 0 to 2"),
    ("first a bool", {**GOOD, "first": False}, {}, "first must be a seat"),
    ("phantom pile missing", GOOD, {"phantom": True}, "option phantom needs the phantom pile"),
    ("phantom pile without the option", {**GOOD, "phantom": [5]}, {}, "only for option phantom"),
    ("phantom card twice", {**GOOD, "phantom": [3]}, {"phantom": True}, "card 3 appears twice"),
]


@pytest.mark.parametrize("name,setup,options,words", SETUPS_REFUSED, ids=[row[0] for row in SETUPS_REFUSED])
def test_a_bad_setup_is_refused_with_a_clear_error(name, setup, options, words):
    with pytest.raises(SetupError) as raised:
        GAME.check_setup(setup, {"phantom": False, "double_split": False, **options})
    assert words in str(raised.value) and str(raised.value).startswith("modern-art setup: ")


def test_a_setup_may_use_any_subset_of_the_cards():
    subset = {"players": 3, "hands": [[0, 54], [12], [25]], "deck": [55, 13, 26], "money": [0, 3, 7], "first": 0}
    options = GAME.check_options(3, {})
    GAME.check_setup(subset, options)
    state = GAME.new_state(subset, options)
    rng = random.Random(0)
    while state.seat is not None:
        state.apply(choose({"decision": state.decision, "legal": state.legal}, rng))
    assert [event["round"] for _, event in state.log if event["type"] == "round_end"] == [1, 2, 3, 4]
    assert sorted(state.discarded) == [0, 12, 13, 25, 26, 54, 55]


def test_the_phantom_option_is_for_three_players_only():
    from arena.errors import OptionError

    with pytest.raises(OptionError, match="phantom is for 3 players only, not 4"):
        GAME.check_options(4, {"phantom": True})
    assert GAME.check_options(3, {"phantom": True}) == {"phantom": True, "double_split": False}
