"""A full Modern Art state consistent with one seat's view: the unseen cards dealt at random.

Search bots call this (through ``ModernArt.determinize``), then ``clone`` and
``apply`` to simulate. Hidden places are the other hands (by their sizes),
the phantom pile and the deck; the state stands at the view's decision,
asked again through the engine's own asking code.
"""

from __future__ import annotations

import random
from typing import Any, Callable

from arena.games.base import shuffle
from arena.games.modern_art.cards import ARTISTS, CARD_ARTIST, CARD_COUNT, CARD_KIND, DOUBLE, FIXED, KINDS
from arena.games.modern_art.state import ModernArtState

_new = object.__new__


def determinize(view: dict[str, Any], options: dict[str, Any], rng: random.Random) -> ModernArtState:
    """A full state consistent with ``view``: the unseen cards dealt at random to the hidden places.

    Hidden places are the other hands (by ``hand_sizes``), the phantom pile and
    the deck; other seats' sealed bids already in are drawn uniformly from
    0..their money. A seat asked ``add_double`` gets a card that can join the
    double, as it must hold one.
    """
    return determinizer(view, options)(rng)


def determinizer(view: dict[str, Any], options: dict[str, Any]) -> Callable[[random.Random], ModernArtState]:
    """``sample(rng)``: :func:`determinize` of ``view``, the view read once (search bots sample one view
    thousands of times a decision).

    The public part of the state is built once, as a template that each
    sample clones; a sample shuffles the unseen cards and deals them as
    :func:`determinize` always has: a joining card first for a seat asked
    ``add_double`` (the first that can join, in shuffled order), then each
    other hand in seat order, the phantom pile and the deck, each from the
    end of the shuffled pool; then the sealed bids already in, in seat order.
    """
    players, me = view["players"], view["seat"]
    decision, to_act, auction = view["decision"], view["to_act"], view["auction"]
    hand = [card["id"] for card in view["hand"]]
    played = [card["id"] for card in view["played"]]
    seen = set(hand) | set(played) | set(view["discarded"])
    unseen = [card for card in range(CARD_COUNT) if card not in seen]
    joins = None
    if decision == "add_double" and to_act != me:
        artist = CARD_ARTIST[auction["cards"][0]["id"]]
        joins = frozenset(card for card in unseen if CARD_ARTIST[card] == artist and CARD_KIND[card] != DOUBLE)
    #: (seat, cards dealt to it) for the hidden hands, in seat order (the joining card counts as one)
    deals = [(seat, size - (seat == to_act and joins is not None))
             for seat, size in enumerate(view["hand_sizes"]) if seat != me]
    pile_size, deck_size = view["phantom_size"], view["deck_size"]

    template = _new(ModernArtState)
    template.players = players
    template.phantom = bool(options.get("phantom"))
    template.split = bool(options.get("double_split"))
    template.hands = [sorted(hand) if seat == me else [] for seat in range(players)]
    template.cash = list(view["money"])
    template.pile = []
    template.deck = []
    template.cards_left = sum(view["hand_sizes"])
    template.round = view["round"] - 1
    template.markers = tuple(tuple(view["markers"][name]) for name in ARTISTS)
    template.discarded = list(view["discarded"])
    template.counts = [view["counts"][name] for name in ARTISTS]
    template.bought = [tuple([card["id"] for card in cards]) for cards in view["bought"]]
    template.played = played
    template.log = []
    template.upcoming = None
    template._clear_auction()
    template.seat = template.decision = template.legal = None
    template.turn = template.auctioneer = view["auctioneer"]
    #: other seats whose sealed bids are in, with their money (each bid drawn from 0 to it)
    drawn_bids: list[tuple[int, int]] = []
    if auction is not None:
        _restore_auction(template, auction, me, drawn_bids)

    def sample(rng: random.Random) -> ModernArtState:
        pool = unseen[:]
        shuffle(pool, rng)
        state = template.clone()
        hands = state.hands
        if joins is not None:
            joining = next(card for card in pool if card in joins)
            pool.remove(joining)
            hands[to_act].append(joining)
        end = len(pool)
        for seat, count in deals:
            if count > 0:
                cards = hands[seat]
                cards += pool[end - count:end]
                cards.sort()
                end -= count
        # the pile and then the deck, each popped one card at a time from the end of the pool: reversed slices
        pile = pool[end - pile_size:end]
        pile.reverse()
        state.pile = pile
        end -= pile_size
        deck = pool[end - deck_size:end]
        deck.reverse()
        state.deck = deck
        if drawn_bids:
            sealed = state.sealed
            randint = rng.randint
            for seat, money in drawn_bids:
                sealed[seat] = randint(0, money)
        _resume(state, decision, to_act)
        return state

    return sample


def _restore_auction(state: ModernArtState, auction: dict[str, Any], me: int,
                     drawn_bids: list[tuple[int, int]]) -> None:
    """The auction of the view; the other seats' sealed bids already in are left to draw (``drawn_bids``)."""
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
        if seat == me:
            state.sealed[seat] = auction["own_sealed_bid"]
        else:
            drawn_bids.append((seat, state.cash[seat]))


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
