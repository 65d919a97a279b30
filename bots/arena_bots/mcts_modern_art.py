"""What ``mcts`` needs to know of Modern Art: the actions worth searching, a rollout policy, rewards.

Everything is read from the seat's view of a (determinized) state, through
the public ``view``/``legal`` interface only. A painting's worth is estimated
from the value board: the markers its artist earned in earlier rounds, plus
the marker its place in this round's counts promises, times the chance that
the artist ends in the top three (higher the further ahead it is).

- Tree actions: one card per artist and auction kind (cards alike play
  alike), passing, the minimum bid, and bids, sealed bids and prices at a few
  shares of the lot's estimated worth.
- Rollouts: bid, offer, accept and price against that worth with noise, so
  simulated opponents neither give paintings away nor overpay wildly. A
  rollout bid jumps straight to the bidder's limit (an open auction then
  ends after a few raises at about the second-highest limit, as it would
  between people, instead of creeping up one coin at a time).
- Rewards: see :func:`arena_bots.mcts_search.rewards`; games are played to the end.
"""

from __future__ import annotations

import random
from typing import Any

from arena_bots.mcts_search import rewards

ARTISTS = ("Lite Metal", "Yoko", "Christin P", "Karl Gitter", "Krypto")
ARTIST_INDEX = {name: index for index, name in enumerate(ARTISTS)}
MARKERS = (30, 20, 10)
#: the chance of ending in the top three, by an artist's place in this round's counts
TOP_THREE_CHANCE = (0.9, 0.8, 0.6, 0.3, 0.15)
#: the chance for an artist with no card played yet this round
UNPLAYED_CHANCE = 0.25
#: shares of the lot's worth searched as bids, sealed bids and fixed prices
BID_SHARES = (0.4, 0.7, 1.0)
SEALED_SHARES = (0.3, 0.55, 0.8)
PRICE_SHARES = (0.5, 0.75, 1.0, 1.25)
#: cards per artist (board order) and auction kind (open, once around, sealed, fixed, double):
#: protocol.md's fixed id table runs through it, artist by artist
DISTRIBUTION = ((3, 3, 2, 2, 2), (3, 2, 3, 3, 2), (3, 3, 3, 3, 2), (3, 3, 3, 3, 3), (4, 3, 3, 3, 3))
#: the (artist, auction kind) of every card id
CARD_KINDS = tuple((artist, kind) for artist, counts in enumerate(DISTRIBUTION)
                   for kind, count in enumerate(counts) for _ in range(count))


def artist_worth(view: dict) -> list[float]:
    """The expected sale value of one painting of each artist at this round's end."""
    round_index = view["round"] - 1
    counts = [view["counts"][name] for name in ARTISTS]
    order = sorted(range(len(ARTISTS)), key=lambda artist: -counts[artist])  # stable: board order breaks ties
    worth = [0.0] * len(ARTISTS)
    for place, artist in enumerate(order):
        earned = sum(view["markers"][ARTISTS[artist]][:round_index])
        promised = MARKERS[place] if place < len(MARKERS) else 0
        chance = TOP_THREE_CHANCE[place] if counts[artist] else UNPLAYED_CHANCE
        worth[artist] = chance * (earned + promised)
    return worth


def lot_worth(view: dict) -> float:
    """The estimated worth of the paintings on auction (a lone double counts twice: a card may join it)."""
    auction = view["auction"]
    worth = artist_worth(view)
    cards = auction["cards"]
    total = sum(worth[ARTIST_INDEX[card["artist"]]] for card in cards)
    return 2 * total if len(cards) == 1 and cards[0]["auction"] == "double" else total


def levels(low: int, high: int, amounts: list[float]) -> list[int]:
    """The whole amounts in ``[low, high]`` nearest to ``amounts``, without repeats, in order."""
    chosen = []
    for amount in amounts:
        level = min(high, max(low, round(amount)))
        if level not in chosen:
            chosen.append(level)
    return chosen


class ModernArtPolicy:
    """Tree actions, rollout actions and rewards for one seat's search in Modern Art."""

    rollout_limit = 5000  # a whole game always fits: rollouts end with the game

    def __init__(self, seat: int, players: int, options: dict) -> None:
        self.seat = seat
        self.players = players

    def candidates(self, state: Any) -> list[dict]:
        decision, legal = state.decision, state.legal
        if decision == "play_card":
            return [{"card": card} for card in distinct_cards(legal["cards"])]
        if decision == "add_double":
            return [{"card": None}] + [{"card": card} for card in distinct_cards(legal["cards"])]
        if decision == "accept_price":
            return [{"accept": True}, {"accept": False}]
        if decision == "flip_phantom":
            return [{"flip": True}, {"flip": False}]
        worth = lot_worth(state.view(state.seat))
        if decision == "bid":
            bids = levels(legal["min"], legal["max"], [legal["min"]] + [share * worth for share in BID_SHARES])
            return [{"bid": None}] + [{"bid": bid} for bid in bids]
        if decision == "sealed_bid":
            return [{"bid": bid} for bid in levels(0, legal["max"], [0] + [s * worth for s in SEALED_SHARES])]
        return [{"price": price} for price in levels(legal["min"], legal["max"], [s * worth for s in PRICE_SHARES])]

    def rollout(self, state: Any, rng: random.Random) -> dict:
        decision, legal = state.decision, state.legal
        if decision == "play_card":
            cards = legal["cards"]
            return {"card": cards[int(rng.random() * len(cards))]}
        if decision == "add_double":
            cards = legal["cards"]
            return {"card": cards[0] if rng.random() < 0.5 else None}
        if decision == "flip_phantom":
            return {"flip": rng.random() < 0.5}
        view = state.view(state.seat)
        worth = lot_worth(view)
        if decision == "accept_price":
            return {"accept": legal["price"] <= worth * (0.6 + 0.4 * rng.random())}
        if decision == "bid":
            target = worth * (0.5 + 0.45 * rng.random())
            if legal["min"] > target:
                return {"bid": None}
            return {"bid": min(legal["max"], max(legal["min"], round(target)))}
        if decision == "sealed_bid":
            return {"bid": min(legal["max"], round(worth * (0.3 + 0.5 * rng.random())))}
        price = round(worth * (0.5 + 0.4 * rng.random()))
        return {"price": min(legal["max"], max(legal["min"], price))}

    def evaluate(self, state: Any) -> list[float]:
        return rewards(state.money())


def distinct_cards(cards: list[int]) -> list[int]:
    """One card of each artist and auction kind (the lowest id): cards alike play alike."""
    chosen = []
    seen = set()
    for card in cards:
        kind = CARD_KINDS[card]
        if kind not in seen:
            seen.add(kind)
            chosen.append(card)
    return chosen
