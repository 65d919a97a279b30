"""The material of Maritime Silk Road: goods, the goods card table, markers and special cards.

Goods cards are numbered 0..65, eleven per good in goods order, so a card's
good is ``id // 11`` (protocol.md section 4). Inside the engine a good is its
index in :data:`GOODS`; views and actions use its name.
"""

from __future__ import annotations

from typing import Any

GOODS = ("porcelain", "silk", "tea", "spice", "glass", "ore")
GOOD_INDEX = {name: index for index, name in enumerate(GOODS)}
CARDS_PER_GOOD = 11
CARD_COUNT = len(GOODS) * CARDS_PER_GOOD
#: the good's name of every card id (views build card objects from it)
CARD_GOOD_NAMES = tuple(GOODS[card // CARDS_PER_GOOD] for card in range(CARD_COUNT))
MARKERS_PER_GOOD = 5

#: the market's face-up slots
SLOTS = 6
#: cards dealt to each player at setup
HAND_SIZE = 3
#: ships each player receives at setup
SETUP_SHIPS = 2
#: cards drawn by a phase-2 draw
DRAW_COUNT = 2

#: special cards in protocol order (the order of ``legal["buy"]``)
SPECIALS = ("ship", "license", "porter", "exchange")
COSTS = {"ship": 10, "license": 11, "porter": 12, "exchange": 8}
TOTAL_SHIPS = 14
OTHER_SPECIAL_COUNT = 2
#: coins a license adds to every delivery payout of at least one coin
LICENSE_BONUS = 2


def good_of(card: int) -> int:
    """The good index of goods card ``card``."""
    return card // CARDS_PER_GOOD


def card_view(card: int) -> dict[str, Any]:
    """A goods card as views and events show it: ``{"id": 23, "good": "tea"}``."""
    return {"id": card, "good": CARD_GOOD_NAMES[card]}


def special_supply(players: int) -> dict[str, int]:
    """The special cards for sale at setup: the ships not handed out, two of each other kind."""
    return {
        "ship": TOTAL_SHIPS - SETUP_SHIPS * players,
        "license": OTHER_SPECIAL_COUNT,
        "porter": OTHER_SPECIAL_COUNT,
        "exchange": OTHER_SPECIAL_COUNT,
    }
