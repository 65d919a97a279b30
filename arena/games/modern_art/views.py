"""What a seat may see (``view``), and a full state rebuilt from it (``determinize``).

A view holds the seat's own hand, the public table and the current auction,
never another seat's hand, the deck order, the phantom pile's order or a
sealed bid before the reveal. It holds enough that :func:`determinize` can deal
the unseen cards at random and rebuild a state that ``apply`` continues
exactly as the real one would for every public and own move.
"""

from __future__ import annotations

import random

from arena.games.modern_art.cards import (
    ARTISTS,
    CARD_ARTIST,
    CARD_COUNT,
    CARD_KIND,
    DOUBLE,
    FIXED,
    KINDS,
    card_object,
)
from arena.games.modern_art.state import ModernArtState

#: the decisions taken inside an auction (the view then shows ``auction``)
AUCTION_DECISIONS = frozenset({"add_double", "bid", "sealed_bid", "set_price", "accept_price"})


def build_view(state: ModernArtState, seat: int) -> dict:
    """The view of ``seat`` now (protocol.md section 1; every key is in docs/games/modern-art.md)."""
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
        "markers": {name: state.markers[artist][:] for artist, name in enumerate(ARTISTS)},
        "counts": {name: state.counts[artist] for artist, name in enumerate(ARTISTS)},
        "played": [card_object(card) for card in state.played],
        "bought": [[card_object(card) for card in cards] for cards in state.bought],
        "discarded": sorted(state.discarded),
        "auction": _auction_view(state, seat) if state.decision in AUCTION_DECISIONS else None,
    }


def _auction_view(state: ModernArtState, seat: int) -> dict:
    sealed_in = _sealed_in(state) if state.decision == "sealed_bid" else []
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
    seat = (state.auctioneer + 1) % state.players
    while seat != state.seat:
        seats.append(seat)
        seat = (seat + 1) % state.players
    return seats


def determinize(view: dict, options: dict, rng: random.Random) -> ModernArtState:
    """A full state consistent with ``view``: the unseen cards dealt at random to the hidden places.

    Hidden places are the other hands (by ``hand_sizes``), the phantom pile and
    the deck; other seats' sealed bids already in are drawn uniformly from
    0..their money. A seat asked ``add_double`` gets a card that can join the
    double, as it must hold one.
    """
    players, me = view["players"], view["seat"]
    decision, to_act, auction = view["decision"], view["to_act"], view["auction"]
    hand = [card["id"] for card in view["hand"]]
    played = [card["id"] for card in view["played"]]
    seen = set(hand) | set(played) | set(view["discarded"])
    pool = [card for card in range(CARD_COUNT) if card not in seen]
    rng.shuffle(pool)
    hands: list[list[int]] = [[] for _ in range(players)]
    hands[me] = hand
    if decision == "add_double" and to_act != me:
        artist = CARD_ARTIST[auction["cards"][0]["id"]]
        joining = next(card for card in pool if CARD_ARTIST[card] == artist and CARD_KIND[card] != DOUBLE)
        pool.remove(joining)
        hands[to_act].append(joining)
    for seat, size in enumerate(view["hand_sizes"]):
        if seat != me:
            while len(hands[seat]) < size:
                hands[seat].append(pool.pop())

    state = object.__new__(ModernArtState)
    state.players = players
    state.phantom = bool(options.get("phantom"))
    state.split = bool(options.get("double_split"))
    state.hands = [sorted(cards) for cards in hands]
    state.cash = list(view["money"])
    state.pile = [pool.pop() for _ in range(view["phantom_size"])]
    state.deck = [pool.pop() for _ in range(view["deck_size"])]
    state.cards_left = sum(view["hand_sizes"])
    state.round = view["round"] - 1
    state.markers = [list(view["markers"][name]) for name in ARTISTS]
    state.discarded = list(view["discarded"])
    state.counts = [view["counts"][name] for name in ARTISTS]
    state.bought = [[card["id"] for card in cards] for cards in view["bought"]]
    state.played = played
    state.log = []
    state.upcoming = None
    state._clear_auction()
    state.seat = state.decision = state.legal = None
    state.turn = state.auctioneer = view["auctioneer"]
    if auction is not None:
        _restore_auction(state, auction, me, rng)
    _resume(state, decision, to_act)
    return state


def _restore_auction(state: ModernArtState, auction: dict, me: int, rng: random.Random) -> None:
    state.lot = [card["id"] for card in auction["cards"]]
    state.kind = KINDS.index(auction["kind"])
    state.turn = auction["original_auctioneer"]
    state.high = auction["high_bid"] or 0
    state.high_bidder = auction["high_bidder"]
    state.passed = list(auction["passed"])
    if state.kind == FIXED and auction["price"] is not None:
        state.price = auction["price"]
    state.sealed = [0] * state.players
    for seat in auction["sealed_in"]:
        state.sealed[seat] = auction["own_sealed_bid"] if seat == me else rng.randint(0, state.cash[seat])


def _resume(state: ModernArtState, decision: str | None, to_act: int | None) -> None:
    """Ask ``to_act`` its ``decision`` again through the engine's own asking code."""
    if decision == "play_card":
        state._begin_turn(to_act)
    elif decision == "add_double":
        state._offer_double(to_act)
    elif decision == "bid":
        state._ask_bidder(to_act)
    elif decision == "sealed_bid":
        state._ask_sealed(to_act)
    elif decision == "set_price":
        state._ask_price()
    elif decision == "accept_price":
        state._ask_accept(to_act)
    elif decision == "flip_phantom":
        state.seat, state.decision, state.legal = to_act, decision, {}
