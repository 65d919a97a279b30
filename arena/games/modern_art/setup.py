"""Setups (protocol.md section 5): shuffling one from a seed, and refusing bad hand-written ones.

A modern-art setup is ``{"players", "hands", "deck", "money"?, "first",
"phantom"?}``: the round-1 hands, the deck top first (later rounds deal from
it), and with option ``phantom`` the face-down fourth pile, top first. Any
subset of the 70 cards may be used; the cards left out are not in the game.
"""

from __future__ import annotations

import random
from typing import Any

from arena.errors import SetupError
from arena.games.base import check_card_ids, check_setup_keys, check_setup_money, shuffle
from arena.games.modern_art.cards import CARD_COUNT, DEALS, START_MONEY

MIN_PLAYERS = 3
MAX_PLAYERS = 5
REQUIRED_KEYS = ("players", "hands", "deck", "first")
KEYS = REQUIRED_KEYS + ("money", "phantom")


def hand_count(players: int, phantom: bool) -> int:
    """How many hands are dealt: the players', plus the phantom pile (dealt as a fourth player)."""
    return players + 1 if phantom else players


def random_setup(players: int, phantom: bool, rng: random.Random) -> dict[str, Any]:
    """All 70 cards shuffled and dealt one at a time for round 1; the rest is the deck."""
    cards = list(range(CARD_COUNT))
    shuffle(cards, rng)
    hands = hand_count(players, phantom)
    dealt = cards[: DEALS[hands][0] * hands]
    setup = {
        "players": players,
        "hands": [sorted(dealt[seat::hands]) for seat in range(players)],
        "deck": cards[len(dealt):],
        "money": [START_MONEY] * players,
        "first": rng.randrange(players),
    }
    if phantom:
        setup["phantom"] = dealt[players::hands]
    return setup


def _problem(message: str) -> SetupError:
    return SetupError(f"modern-art setup: {message}")


def _id_list(key: str, value: object) -> list[int]:
    if not isinstance(value, list) or not all(type(card) is int for card in value):
        raise _problem(f"{key} must be a list of card ids, got {value!r}")
    return value


def check_setup(setup: object, phantom: bool) -> None:
    """Raise :class:`SetupError` naming the first problem of ``setup``; return when it is sound."""
    setup = check_setup_keys(setup, REQUIRED_KEYS, KEYS, _problem)
    players = setup["players"]
    if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise _problem(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {players!r}")
    if phantom and "phantom" not in setup:
        raise _problem("option phantom needs the phantom pile: key 'phantom' (card ids, top first)")
    if not phantom and "phantom" in setup:
        raise _problem("key 'phantom' is only for option phantom, which is off")
    hands = setup["hands"]
    if not isinstance(hands, list) or len(hands) != players:
        raise _problem(f"expected {players} hands (one per player), got {hands!r}")
    cards = [card for seat, hand in enumerate(hands) for card in _id_list(f"hand {seat}", hand)]
    cards += _id_list("deck", setup["deck"])
    if phantom:
        cards += _id_list("phantom", setup["phantom"])
    check_card_ids(cards, CARD_COUNT, _problem)
    check_setup_money(setup, players, _problem)
    first = setup["first"]
    if type(first) is not int or not 0 <= first < players:
        raise _problem(f"first must be a seat from 0 to {players - 1}, got {first!r}")
