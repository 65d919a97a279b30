"""A full Modern Art state consistent with one seat's view: the unseen cards dealt at random.

Search bots call this (through ``ModernArt.determinize``), then ``clone`` and
``apply`` to simulate. Hidden places are the other hands (by their sizes),
the phantom pile and the deck; the state stands at the view's decision,
asked again through the engine's own asking code.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.base import shuffle
from arena.games.modern_art.cards import ARTISTS, CARD_ARTIST, CARD_COUNT, CARD_KIND, DOUBLE, FIXED, KINDS
from arena.games.modern_art.state import ModernArtState


def determinize(view: dict[str, Any], options: dict[str, Any], rng: random.Random) -> ModernArtState:
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
    shuffle(pool, rng)
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


def _restore_auction(state: ModernArtState, auction: dict[str, Any], me: int, rng: random.Random) -> None:
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
    if decision is None:
        return
    assert to_act is not None  # a view with a decision names the seat to act
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
