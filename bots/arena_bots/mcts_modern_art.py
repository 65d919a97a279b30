"""What ``mcts`` needs to know of Modern Art: the actions worth searching, a rollout policy, rewards.

Everything is read from the seat's view of a (determinized) state, through
the public ``view``/``legal`` interface only. A painting's worth is what the
bank should pay for it at the round's end: its artist's markers from earlier
rounds plus the marker its place in this round promises, times the chance of
ending in the top three (see :func:`artist_worth`). The plan (:meth:`ModernArtPolicy.plan`)
trades against that worth: it bids up to a share of it (less in its own
auctions, where the price goes to the bank), names a fixed price a rival
should accept, and auctions the card of its most valuable artist.

- Tree actions, the plan's first: one card per artist and auction kind (cards
  alike play alike), adding to a double or not, passing, the minimum bid, and
  bids, sealed bids and prices at a few shares of the lot's worth.
- Rollouts: the plan with its shares spread at random, so simulated players
  neither give paintings away nor all value them alike. A rollout bid jumps
  straight to the bidder's limit: an open auction then ends after a few
  raises near the second-highest limit, as between people, instead of
  creeping up one coin at a time.
- Rewards: see :func:`arena_bots.mcts_search.rewards`; games are played to the end.
"""

from __future__ import annotations

import random
from typing import Any

from arena_bots.mcts_search import rewards

ARTISTS = ("Lite Metal", "Yoko", "Christin P", "Karl Gitter", "Krypto")
ARTIST_INDEX = {name: index for index, name in enumerate(ARTISTS)}
MARKERS = (30, 20, 10)
#: shares of the lot's worth searched as bids, sealed bids and fixed prices
BID_SHARES = (0.4, 0.7, 1.0)
SEALED_SHARES = (0.3, 0.55, 0.8)
PRICE_SHARES = (0.5, 0.75, 1.0, 1.25)
#: the plan's limits, as shares of the lot's worth: buying from a rival (who gains the price), in
#: its own auction (the price goes to the bank), and the fixed price it names; rollouts spread
#: each share by up to half of SHARE_SPREAD either way; sealed bids are shaded further
RIVAL_SHARE = 0.7
OWN_SHARE = 0.5
PRICE_SHARE = 0.65
SHARE_SPREAD = 0.3
SEALED_SHADE = 0.85
#: cards per artist (board order) and auction kind (open, once around, sealed, fixed, double):
#: protocol.md's fixed id table runs through it, artist by artist
DISTRIBUTION = ((3, 3, 2, 2, 2), (3, 2, 3, 3, 2), (3, 3, 3, 3, 2), (3, 3, 3, 3, 3), (4, 3, 3, 3, 3))
#: the (artist, auction kind) of every card id
CARD_KINDS = tuple((artist, kind) for artist, counts in enumerate(DISTRIBUTION)
                   for kind, count in enumerate(counts) for _ in range(count))


def artist_worth(view: dict) -> list[float]:
    """The expected sale value of one painting of each artist at this round's end.

    The ranking so far counts the cards played this round and, at half weight,
    those in the seat's own hand (it decides when they come out); the nearer
    the leading artist is to its fifth card, the surer that ranking.
    """
    round_index = view["round"] - 1
    counts = [view["counts"][name] for name in ARTISTS]
    own = [0] * len(ARTISTS)
    for card in view["hand"]:
        own[ARTIST_INDEX[card["artist"]]] += 1
    certainty = max(counts) / 5
    order = sorted(range(len(ARTISTS)), key=lambda artist: -(counts[artist] + 0.5 * own[artist]))  # stable
    worth = [0.0] * len(ARTISTS)
    for place, artist in enumerate(order):
        earned = sum(view["markers"][ARTISTS[artist]][:round_index])
        if place < len(MARKERS):
            chance = 0.55 + 0.45 * certainty
            promised = certainty * MARKERS[place] + (1 - certainty) * 20
        else:
            chance = 0.35 * (1 - certainty)
            promised = 10
        if not counts[artist] and not own[artist]:
            chance *= 0.5
        worth[artist] = chance * (earned + promised)
    return worth


def lot_worth(view: dict, worth: list[float] | None = None) -> float:
    """The estimated worth of the paintings on auction (a lone double counts twice: a card may join it)."""
    cards = view["auction"]["cards"]
    worth = worth or artist_worth(view)
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

    def candidates(self, state: Any) -> list[dict]:
        """The actions searched, the plan's first."""
        decision, legal = state.decision, state.legal
        view = state.view(state.seat)
        planned = self.plan(state, view, 0.5)
        if decision == "play_card":
            options = [{"card": card} for card in distinct_cards(legal["cards"])]
        elif decision == "add_double":
            options = [{"card": None}] + [{"card": card} for card in distinct_cards(legal["cards"])]
        elif decision == "accept_price":
            options = [{"accept": True}, {"accept": False}]
        elif decision == "flip_phantom":
            options = [{"flip": True}, {"flip": False}]
        else:
            worth = lot_worth(view)
            if decision == "bid":
                bids = levels(legal["min"], legal["max"], [legal["min"]] + [share * worth for share in BID_SHARES])
                options = [{"bid": None}] + [{"bid": bid} for bid in bids]
            elif decision == "sealed_bid":
                options = [{"bid": bid} for bid in levels(0, legal["max"], [0] + [s * worth for s in SEALED_SHARES])]
            else:
                options = [{"price": price} for price in
                           levels(legal["min"], legal["max"], [s * worth for s in PRICE_SHARES])]
        return [planned] + [option for option in options if option != planned]

    def rollout(self, state: Any, rng: random.Random) -> dict:
        decision, legal = state.decision, state.legal
        if decision == "flip_phantom":
            return {"flip": rng.random() < 0.5}
        if decision == "add_double":
            cards = legal["cards"]
            return {"card": cards[0] if rng.random() < 0.5 else None}
        return self.plan(state, state.view(state.seat), rng.random())

    def plan(self, state: Any, view: dict, noise: float) -> dict:
        """A sensible action: bid up to a share of the worth, price at a share of it, play the most
        valuable artist; ``noise`` in [0, 1) moves the shares (and, above 0.8, picks a card at random)."""
        decision, legal = state.decision, state.legal
        worth = artist_worth(view)
        if decision == "play_card":
            cards = legal["cards"]
            if noise > 0.8:
                return {"card": cards[int((noise - 0.8) * 5 * len(cards))]}
            return {"card": max(cards, key=lambda card: worth[CARD_KINDS[card][0]])}
        if decision == "add_double":
            return {"card": legal["cards"][0] if worth[CARD_KINDS[legal["cards"][0]][0]] >= 8 else None}
        if decision == "flip_phantom":
            return {"flip": False}
        value = lot_worth(view, worth)
        own = view["auction"]["auctioneer"] == view["seat"]
        limit = value * ((OWN_SHARE if own else RIVAL_SHARE) + SHARE_SPREAD * (noise - 0.5))
        if decision == "accept_price":
            return {"accept": legal["price"] <= limit}
        if decision == "bid":
            if legal["min"] > limit:
                return {"bid": None}
            return {"bid": min(legal["max"], max(legal["min"], round(limit)))}
        if decision == "sealed_bid":
            return {"bid": min(legal["max"], round(SEALED_SHADE * limit))}
        price = round(value * (PRICE_SHARE + SHARE_SPREAD * (noise - 0.5)))
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
