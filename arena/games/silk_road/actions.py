"""Checking a bot's action against the decision in progress (protocol.md sections 2 and 4).

Each ``check_*`` function reads the state without changing it and returns the
action in the engine's terms, or raises :class:`MalformedAction` (wrong shape:
not an object, a missing or unknown key, a wrong type, an unknown word) or
:class:`IllegalAction` (well formed, but not allowed now). Messages name the
decision, the problem, the action and what was legal.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from arena.errors import IllegalAction, MalformedAction
from arena.games.silk_road.cards import CARDS_PER_GOOD, GOOD_INDEX, GOODS, SLOTS, SPECIALS

if TYPE_CHECKING:  # for the annotations only: the state imports this module
    from arena.games.silk_road.state import SilkRoadState

LOAD_KEYS = {"good"}
WORD_KEYS = {"action"}
BUY_KEYS = {"action", "card"}
SWAP_KEYS = {"action", "swaps"}
SWAP_ENTRY_KEYS = {"ship", "good"}
PLAY_KEYS = {"action", "cards", "slots"}
COUNT_KEYS = {"count"}
PHASE1_WORDS = ("swap", "buy", "pass")
PHASE2_WORDS = ("play", "draw")


def _show(value: Any) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def _refuse(error: type[Exception], state: SilkRoadState, problem: str, action: Any) -> Exception:
    return error(f"{state.decision}: {problem}: {_show(action)}; legal: {_show(state.legal)}")


def _shape(state: SilkRoadState, action: Any, keys: set[str]) -> None:
    """Refuse ``action`` as malformed unless it is an object with exactly ``keys``."""
    if type(action) is not dict:
        raise _refuse(MalformedAction, state, "expected a JSON object", action)
    if action.keys() != keys:
        missing = sorted(key for key in keys if key not in action)
        if missing:
            raise _refuse(MalformedAction, state, f"missing key {missing[0]!r}", action)
        unknown = sorted(str(key) for key in action if key not in keys)
        raise _refuse(MalformedAction, state, f"unknown key {unknown[0]!r}", action)


def _good(state: SilkRoadState, name: Any, action: Any) -> int:
    if type(name) is not str or name not in GOOD_INDEX:
        raise _refuse(MalformedAction, state, f"unknown good {_show(name)} (goods: {', '.join(GOODS)})", action)
    return GOOD_INDEX[name]


def _int_list(state: SilkRoadState, action: dict[str, Any], key: str) -> list[int]:
    value = action[key]
    if type(value) is list:
        for item in value:
            if type(item) is not int:
                break
        else:
            return value
    raise _refuse(MalformedAction, state, f"{key} must be a list of integers", action)


def _word(state: SilkRoadState, action: Any, words: tuple[str, ...]) -> str:
    if type(action) is not dict:
        raise _refuse(MalformedAction, state, "expected a JSON object", action)
    if "action" not in action:
        raise _refuse(MalformedAction, state, "missing key 'action'", action)
    word = action["action"]
    if type(word) is not str or word not in words:
        raise _refuse(MalformedAction, state,
                      f"unknown action {_show(word)} (actions: {', '.join(words)})", action)
    return word


def check_load(state: SilkRoadState, action: Any) -> int:
    """The good to load (its index)."""
    _shape(state, action, LOAD_KEYS)
    good = _good(state, action["good"], action)
    if not state.markers[good]:
        raise _refuse(IllegalAction, state, f"all {GOODS[good]} markers are on ships", action)
    return good


def check_phase1(state: SilkRoadState, action: Any) -> tuple[str, Any]:
    """``("pass", None)``, ``("buy", card)`` or ``("swap", [(ship, good), ...])``."""
    # the common shapes read once (a pass, the word of a buy or a swap): _word inlined, the same checks
    word = action.get("action") if type(action) is dict else None
    if type(word) is not str or word not in PHASE1_WORDS:
        word = _word(state, action, PHASE1_WORDS)  # refuses it, saying why
    elif word == "pass" and len(action) == 1:
        return "pass", None
    if word == "pass":
        _shape(state, action, WORD_KEYS)
        return word, None
    if word == "buy":
        _shape(state, action, BUY_KEYS)
        card = action["card"]
        if type(card) is not str or card not in SPECIALS:
            raise _refuse(MalformedAction, state,
                          f"unknown special card {_show(card)} (cards: {', '.join(SPECIALS)})", action)
        legal = state.legal
        assert legal is not None  # a seat is deciding
        if card not in legal["buy"]:
            problem = "none left in supply" if not state.supply[card] else "not enough money"
            raise _refuse(IllegalAction, state, f"cannot buy {card}: {problem}", action)
        return word, card
    _shape(state, action, SWAP_KEYS)
    return word, _check_swaps(state, action)


def _check_swaps(state: SilkRoadState, action: dict[str, Any]) -> list[tuple[int, int]]:
    entries = action["swaps"]
    if type(entries) is not list:
        raise _refuse(MalformedAction, state, "swaps must be a list of {ship, good} objects", action)
    swaps = []
    for entry in entries:
        # (two keys, both there: the keys are exactly SWAP_ENTRY_KEYS)
        if (type(entry) is not dict or len(entry) != len(SWAP_ENTRY_KEYS) or "ship" not in entry
                or "good" not in entry or type(entry["ship"]) is not int):
            raise _refuse(MalformedAction, state,
                          "each swap must be an object {\"ship\": integer, \"good\": good}", action)
        name = entry["good"]
        good = GOOD_INDEX.get(name) if type(name) is str else None
        swaps.append((entry["ship"], _good(state, name, action) if good is None else good))
    assert state.legal is not None and state.seat is not None  # a seat is deciding
    rule = state.legal["swap"]
    if rule is None:
        raise _refuse(IllegalAction, state, "no swap is possible now", action)
    if not swaps:
        raise _refuse(IllegalAction, state, "a swap changes at least one ship", action)
    if len(swaps) > rule["max_swaps"]:
        ships_word = "ships" if rule["max_swaps"] > 1 else "ship"
        raise _refuse(IllegalAction, state, f"a swap may change at most {rule['max_swaps']} {ships_word} (1 + porters)",
                      action)
    ships = list(state.ships[state.seat])
    markers = list(state.markers)
    for ship, good in swaps:
        if not 0 <= ship < len(ships):
            raise _refuse(IllegalAction, state, f"no ship {ship} (ships 0 to {len(ships) - 1})", action)
        if ships[ship] < 0:
            raise _refuse(IllegalAction, state, f"ship {ship} is swapped twice", action)
        if ships[ship] == good:
            raise _refuse(IllegalAction, state, f"ship {ship} already carries {GOODS[good]}", action)
        if not markers[good]:
            raise _refuse(IllegalAction, state, f"no {GOODS[good]} marker is available for ship {ship}", action)
        markers[ships[ship]] += 1
        markers[good] -= 1
        ships[ship] = -1  # marks the ship as swapped in this action
    return swaps


def check_phase2(state: SilkRoadState, action: Any) -> tuple[int, list[int], list[int]] | None:
    """``None`` for a draw, or ``(good, cards, slots)`` for a delivery."""
    # the common shapes read once (a draw, the word of a play): _word inlined, the same checks
    word = action.get("action") if type(action) is dict else None
    if type(word) is not str or word not in PHASE2_WORDS:
        word = _word(state, action, PHASE2_WORDS)  # refuses it, saying why
    elif word == "draw" and len(action) == 1:
        return None
    if word == "draw":
        _shape(state, action, WORD_KEYS)
        return None
    if len(action) != len(PLAY_KEYS) or "cards" not in action or "slots" not in action:
        _shape(state, action, PLAY_KEYS)  # (it has "action") refused: a key missing or one too many
    cards = _int_list(state, action, "cards")
    slots = _int_list(state, action, "slots")
    count = len(cards)
    if count != len(slots):
        raise _refuse(MalformedAction, state, "cards and slots must have the same length", action)
    if not count:
        raise _refuse(IllegalAction, state, "a delivery plays at least one card", action)
    assert state.seat is not None  # a seat is deciding
    hand = state.hands[state.seat]
    for card in cards:
        if card not in hand:
            raise _refuse(IllegalAction, state, f"card {card} is not in hand", action)
    good = cards[0] // CARDS_PER_GOOD  # good_of, inlined
    if count > 1:  # (one card is one good, on one slot)
        if len(set(cards)) != count:
            raise _refuse(IllegalAction, state, "a card is played twice", action)
        for card in cards:
            if card // CARDS_PER_GOOD != good:
                raise _refuse(IllegalAction, state, "the cards of one delivery must all be of one good", action)
    for slot in slots:
        if not 0 <= slot < SLOTS:
            raise _refuse(IllegalAction, state, f"no market slot {slot} (slots 0 to {SLOTS - 1})", action)
    if count > 1 and len(set(slots)) != count:
        raise _refuse(IllegalAction, state, "each card must cover a different slot", action)
    return good, cards, slots


def check_extra_draw(state: SilkRoadState, action: Any) -> int:
    """The number of extra cards to draw."""
    _shape(state, action, COUNT_KEYS)
    count = action["count"]
    if type(count) is not int:
        raise _refuse(MalformedAction, state, "count must be an integer", action)
    assert state.legal is not None  # a seat is deciding
    if not 0 <= count <= state.legal["max"]:
        raise _refuse(IllegalAction, state, f"count must be 0 to {state.legal['max']}", action)
    return count
