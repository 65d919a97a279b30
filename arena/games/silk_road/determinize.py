"""A full state consistent with one seat's view: the unseen cards dealt at random.

Search bots call this, then ``clone`` and ``apply`` to simulate. The unseen
cards (neither in the seat's hand, on the market, covered, nor absent from the
game) are shuffled and dealt to the other hands, by their sizes, and the rest
make the deck.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from arena.errors import SetupError
from arena.games.base import shuffle
from arena.games.silk_road.cards import CARD_COUNT, GOOD_INDEX
from arena.games.silk_road.state import SilkRoadState

_new = object.__new__


def determinize(view: dict[str, Any], rng: random.Random) -> SilkRoadState:
    """A state that ``view`` could be a view of, with the hidden cards dealt by ``rng``."""
    return determinizer(view)(rng)


def determinizer(view: dict[str, Any]) -> Callable[[random.Random], SilkRoadState]:
    """``sample(rng)``: :func:`determinize` of ``view``, the view read once (search bots sample one view
    thousands of times a decision).

    The public part of the state is placed once, as a template that each
    sample clones; a sample shuffles the unseen cards and deals them as
    :func:`determinize` always has: the other hands in seat order, by their
    sizes, from the front of the shuffled cards, and the rest as the deck.
    """
    seat = view["seat"]
    own = [card["id"] for card in view["hand"]]
    market = [None if card is None else card["id"] for card in view["market"]]
    covered = view["covered"]
    seen = set(own)
    seen.update(card for card in market if card is not None)
    seen.update(covered)
    seen.update(view["absent"])
    unseen = [card for card in range(CARD_COUNT) if card not in seen]
    #: (seat, its first card and the one after its last among the shuffled unseen cards), other seats in order
    deals = []
    dealt = 0
    for other, player in enumerate(view["players"]):
        if other != seat:
            deals.append((other, dealt, dealt + player["hand_size"]))
            dealt += player["hand_size"]
    if len(unseen) - dealt != view["deck"]:
        raise SetupError(f"silk-road view: {len(unseen)} unseen cards cannot fill the other hands "
                         f"and a deck of {view['deck']}")
    template = _new(SilkRoadState)
    template.place(
        hands=_hands(view, seat, own, unseen, deals),
        market=market, covered=covered, deck=unseen[dealt:],
        coins=[player["money"] for player in view["players"]],
        ships=[[-1 if cargo is None else GOOD_INDEX[cargo] for cargo in player["ships"]]
               for player in view["players"]],
        specials=view["players"], supply=view["supply"], first=view["first"],
        active=_active(view), phase=view["phase"],
    )

    template.seat = template.decision = template.legal = None  # resume sets them in each sample

    def sample(rng: random.Random) -> SilkRoadState:
        cards = unseen[:]
        shuffle(cards, rng)
        state = template.clone()
        hands = state.hands
        for other, start, stop in deals:
            hand = cards[start:stop]
            hand.sort()
            hands[other] = hand
        deck = cards[dealt:]
        deck.reverse()  # the state keeps its deck top card last
        state.deck = deck
        state.resume()
        return state

    return sample


def _hands(view: dict[str, Any], seat: int, own: list[int], unseen: list[int],
           deals: list[tuple[int, int, int]]) -> list[list[int]]:
    """Every hand: the seat's own, and the others dealt from ``unseen`` in order (any deal: the template's)."""
    hands = [own] * len(view["players"])
    for other, start, stop in deals:
        hands[other] = unseen[start:stop]
    return hands


def _active(view: dict[str, Any]) -> int:
    """Whose turn it is: the seat to move, except in the setup's loading round (the first player's)."""
    active: int = view["first"] if view["phase"] == "loading" or view["to_move"] is None else view["to_move"]
    return active
