"""A full state consistent with one seat's view: the unseen cards dealt at random.

Search bots call this, then ``clone`` and ``apply`` to simulate. The unseen
cards (neither in the seat's hand, on the market, covered, nor absent from the
game) are shuffled and dealt to the other hands, by their sizes, and the rest
make the deck.
"""

from __future__ import annotations

import random
from typing import Any

from arena.errors import SetupError
from arena.games.base import shuffle
from arena.games.silk_road.cards import CARD_COUNT, GOOD_INDEX
from arena.games.silk_road.state import SilkRoadState


def determinize(view: dict[str, Any], rng: random.Random) -> SilkRoadState:
    """A state that ``view`` could be a view of, with the hidden cards dealt by ``rng``."""
    seat = view["seat"]
    own = [card["id"] for card in view["hand"]]
    market = [None if card is None else card["id"] for card in view["market"]]
    covered = view["covered"]
    seen = set(own)
    seen.update(card for card in market if card is not None)
    seen.update(covered)
    seen.update(view["absent"])
    unseen = [card for card in range(CARD_COUNT) if card not in seen]
    shuffle(unseen, rng)
    hands = []
    dealt = 0
    for other, player in enumerate(view["players"]):
        if other == seat:
            hands.append(own)
        else:
            hands.append(unseen[dealt : dealt + player["hand_size"]])
            dealt += player["hand_size"]
    deck = unseen[dealt:]
    if len(deck) != view["deck"]:
        raise SetupError(f"silk-road view: {len(unseen)} unseen cards cannot fill the other hands "
                         f"and a deck of {view['deck']}")
    state = SilkRoadState.__new__(SilkRoadState)
    state.place(
        hands=hands, market=market, covered=covered, deck=deck,
        coins=[player["money"] for player in view["players"]],
        ships=[[-1 if cargo is None else GOOD_INDEX[cargo] for cargo in player["ships"]]
               for player in view["players"]],
        specials=view["players"], supply=view["supply"], first=view["first"],
        active=_active(view), phase=view["phase"],
    )
    state.resume()
    return state


def _active(view: dict[str, Any]) -> int:
    """Whose turn it is: the seat to move, except in the setup's loading round (the first player's)."""
    active: int = view["first"] if view["phase"] == "loading" or view["to_move"] is None else view["to_move"]
    return active
