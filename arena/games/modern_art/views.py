"""What a seat may see: its ``view`` of the state (every key is in docs/games/modern-art.md).

A view holds the seat's own hand, the public table and the current auction,
never another seat's hand, the deck order, the phantom pile's order or a
sealed bid before the reveal. It holds enough that ``determinize`` can deal
the unseen cards at random and rebuild a state that ``apply`` continues
exactly as the real one would for every public and own move.

The state imports this module (``ModernArtState.view``); this module reads the
state's fields and imports only the card table, so imports go one way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.games.modern_art.cards import ARTISTS, KINDS, card_object

if TYPE_CHECKING:  # for the annotations only: the state imports this module
    from arena.games.modern_art.state import ModernArtState

#: the decisions taken inside an auction (the view then shows ``auction``)
AUCTION_DECISIONS = frozenset({"add_double", "bid", "sealed_bid", "set_price", "accept_price"})


def build_view(state: ModernArtState, seat: int) -> dict[str, Any]:
    """The view of ``seat`` of ``state`` (a ``ModernArtState``) now (protocol.md section 1)."""
    return {
        "seat": seat,
        "players": state.players,
        "round": state.round + 1,
        "decision": state.decision,
        "to_act": state.seat,
        "auctioneer": state.auctioneer,
        "hand": [card_object(card) for card in state.hands[seat]],
        "hand_sizes": [len(hand) for hand in state.hands],
        "money": state.cash[:],
        "deck_size": len(state.deck),
        "phantom_size": len(state.pile),
        "markers": {name: list(row) for name, row in zip(ARTISTS, state.markers)},
        "counts": {name: state.counts[artist] for artist, name in enumerate(ARTISTS)},
        "played": [card_object(card) for card in state.played],
        "bought": [[card_object(card) for card in cards] for cards in state.bought],
        "discarded": sorted(state.discarded),
        "auction": _auction_view(state, seat) if state.decision in AUCTION_DECISIONS else None,
    }


def _auction_view(state: ModernArtState, seat: int) -> dict[str, Any]:
    sealed_in = _sealed_in(state) if state.decision == "sealed_bid" else []
    assert state.kind is not None  # an auction is on
    return {
        "cards": [card_object(card) for card in state.lot],
        "kind": KINDS[state.kind],
        "auctioneer": state.auctioneer,
        "original_auctioneer": state.turn,
        "high_bid": state.high if state.high_bidder is not None else None,
        "high_bidder": state.high_bidder,
        "passed": state.passed[:],
        "price": state.price if state.decision == "accept_price" else None,
        "sealed_in": sealed_in,
        "own_sealed_bid": state.sealed[seat] if seat in sealed_in else None,
    }


def _sealed_in(state: ModernArtState) -> list[int]:
    """The seats whose sealed bids are in: those before the asked seat, from the auctioneer's left."""
    seats = []
    assert state.auctioneer is not None  # an auction is on
    seat = (state.auctioneer + 1) % state.players
    while seat != state.seat:
        seats.append(seat)
        seat = (seat + 1) % state.players
    return seats
