"""Setups (protocol.md section 5): shuffling one from a seed, and refusing bad hand-written ones.

A silk-road setup is ``{"players", "hands", "market", "deck", "money"?, "first"}``.
``market`` lists the six slots in order; a slot may be ``null`` (an empty slot,
for hand-written puzzles: it shows no good until a card is played on it).
Any subset of the 66 cards may be used; the cards left out are not in the game.
"""

from __future__ import annotations

import random
from typing import Any

from arena.errors import SetupError
from arena.games.base import check_card_ids, check_setup_keys, check_setup_money, shuffle
from arena.games.silk_road.cards import CARD_COUNT, HAND_SIZE, SLOTS

MIN_PLAYERS = 2
MAX_PLAYERS = 4
REQUIRED_KEYS = ("players", "hands", "market", "deck", "first")
KEYS = REQUIRED_KEYS + ("money",)


def random_setup(players: int, start_money: int, rng: random.Random) -> dict[str, Any]:
    """All 66 cards shuffled: three to each hand, six to the market, the rest the deck."""
    cards = list(range(CARD_COUNT))
    shuffle(cards, rng)
    hands = [sorted(cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]) for seat in range(players)]
    dealt = players * HAND_SIZE
    return {
        "players": players,
        "hands": hands,
        "market": cards[dealt : dealt + SLOTS],
        "deck": cards[dealt + SLOTS :],
        "money": [start_money] * players,
        "first": rng.randrange(players),
    }


def _problem(message: str) -> SetupError:
    return SetupError(f"silk-road setup: {message}")


def _is_int(value: object) -> bool:
    return type(value) is int


def _id_list(key: str, value: object, allow_empty_slots: bool = False) -> list[Any]:
    if not isinstance(value, list) or not all(
        _is_int(card) or (allow_empty_slots and card is None) for card in value
    ):
        kind = "card ids or null" if allow_empty_slots else "card ids"
        raise SetupError(f"silk-road setup: {key} must be a list of {kind}, got {value!r}")
    return value


def check_setup(setup: object) -> None:
    """Raise :class:`SetupError` naming the first problem of ``setup``; return when it is sound."""
    setup = check_setup_keys(setup, REQUIRED_KEYS, KEYS, _problem)
    players = setup["players"]
    if not _is_int(players) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise SetupError(f"silk-road setup: players must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {players!r}")
    hands = setup["hands"]
    if not isinstance(hands, list) or len(hands) != players:
        raise SetupError(f"silk-road setup: expected {players} hands (one per player), got {hands!r}")
    cards = [card for seat, hand in enumerate(hands) for card in _id_list(f"hand {seat}", hand)]
    market = _id_list("market", setup["market"], allow_empty_slots=True)
    if len(market) != SLOTS:
        raise SetupError(f"silk-road setup: market must list {SLOTS} slots (a card id or null each), "
                         f"got {len(market)}")
    cards += [card for card in market if card is not None]
    cards += _id_list("deck", setup["deck"])
    check_card_ids(cards, CARD_COUNT, _problem)
    check_setup_money(setup, players, _problem)
    first = setup["first"]
    if not _is_int(first) or not 0 <= first < players:
        raise SetupError(f"silk-road setup: first must be a seat from 0 to {players - 1}, got {first!r}")
