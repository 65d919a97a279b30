"""What ``mcts`` needs to know of Modern Art: the actions worth searching, a rollout policy, rewards.

The search runs thousands of simulated decisions per real one, so this
policy reads the (determinized) engine state directly (``round``, ``counts``,
``markers``, ``hands``, ``lot``, ``auctioneer``, ``cash``) rather than
building a view per decision; the card table comes from the engine's
``arena.games.modern_art.cards``. A painting's worth is what the bank should
pay for it at the round's end: its artist's markers from earlier rounds plus
the marker its place in this round promises, times the chance of ending in
the top three (see :func:`artist_worth`). The plan (:meth:`ModernArtPolicy.plan`)
trades against that worth: it bids up to a share of it (less in its own
auctions, where the price goes to the bank), names a fixed price a rival
should accept, and auctions the card of its most valuable artist.

- The tree holds the searching seat's decisions only (``own_tree``); the
  rivals play their rollout moves in it as after it. A rival's node searched
  for its own best reply modelled a rival cleverer than the usual one, and the
  more so the more iterations: at 400 iterations a decision the rival-free
  tree took 90.5% first places against three ``appraiser`` where the full tree
  took 65% (docs/bots.md), and an iteration costs less.
- Tree actions, the plan's first: one card per artist and auction kind (cards
  alike play alike), adding to a double or not, passing, the minimum bid, and
  bids, sealed bids and prices at a few shares of the lot's worth.
- Rollouts: the searching seat plays the plan with its shares spread at
  random; a rival plays ``appraiser``'s rules (:func:`rival_action`, the
  usual opponents', as Silk Road's rollouts play ``trader``'s) with its
  appraisal of the lot spread a little, its hand being a sample. The seat's
  own rollout bid jumps straight to its limit; a rival raises as
  ``appraiser`` does, to the next multiple of 5.
- A rollout stops at the end of the round it started in: the round's
  paintings have then been paid for, and money is the score
  (:func:`arena_bots.mcts_search.rewards`). Later rounds depend on cards not
  yet dealt, so playing them out adds noise more than knowledge, and a
  round-long rollout is a quarter of a game-long one.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.modern_art.cards import ARTISTS, CARD_ARTIST, CARD_KIND, DOUBLE, MARKERS, OPEN
from arena_bots.mcts_search import rewards

ARTIST_RANGE = range(len(ARTISTS))
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
#: the rivals' model (:func:`rival_action`, ``appraiser``'s rules): their appraisals spread by up to half
#: of this share either way; an open raise goes to the next multiple of RIVAL_STEP
RIVAL_SPREAD = 0.2
RIVAL_PRICE_SHARE = 0.6
RIVAL_STEP = 5


def artist_worth(state: Any, seat: int) -> list[float]:
    """The expected sale value of one painting of each artist at this round's end, for ``seat``.

    The ranking so far counts the cards played this round and, at half weight,
    those in the seat's own hand (it decides when they come out); the nearer
    the leading artist is to its fifth card, the surer that ranking.
    """
    round_index = state.round
    counts = state.counts
    own = [0, 0, 0, 0, 0]
    for card in state.hands[seat]:
        own[CARD_ARTIST[card]] += 1
    certainty = max(counts) / 5
    ranking = [-(count + 0.5 * held) for count, held in zip(counts, own)]
    order = sorted(ARTIST_RANGE, key=ranking.__getitem__)  # stable
    earned_by = _earned(state.markers, round_index)
    top_chance = 0.55 + 0.45 * certainty
    other_chance = 0.35 * (1 - certainty)
    worth = [0.0] * len(ARTISTS)
    for place, artist in enumerate(order):
        if place < len(MARKERS):
            chance = top_chance
            promised = certainty * MARKERS[place] + (1 - certainty) * 20
        else:
            chance = other_chance
            promised = 10
        if not counts[artist] and not own[artist]:
            chance *= 0.5
        worth[artist] = chance * (earned_by[artist] + promised)
    return worth


#: the last markers (the engine's tuple, replaced at a round's end), their round and each artist's earlier sum
_EARNED: list[Any] = [None, -1, []]


def _earned(markers: Any, round_index: int) -> list[int]:
    """Each artist's markers from the rounds before ``round_index`` (remembered for the engine's markers tuple,
    which stays the same object for a whole round of simulated decisions)."""
    cache = _EARNED
    if cache[0] is markers and cache[1] == round_index:
        return cache[2]  # type: ignore[no-any-return]
    sums = [sum(row[:round_index]) for row in markers]
    if type(markers) is tuple:
        cache[0], cache[1], cache[2] = markers, round_index, sums
    return sums


def lot_worth(state: Any, worth: list[float]) -> float:
    """The estimated worth of the paintings on auction (a lone double counts twice: a card may join it)."""
    lot = state.lot
    total = sum(worth[CARD_ARTIST[card]] for card in lot)
    return 2 * total if len(lot) == 1 and CARD_KIND[lot[0]] == DOUBLE else total


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

    rollout_limit = 5000  # a whole round always fits: rollouts end with the round
    #: the tree grows the searching seat's decisions only; rivals play the rollout policy
    own_tree = True

    def __init__(self) -> None:
        #: the searching seat (set by ``mcts`` at the game's start): the other seats play
        #: :func:`rival_action` in rollouts; None: every seat plays the noisy plan
        self.me: int | None = None
        #: each seat's :func:`artist_worth` in one state at one point of a round (see :meth:`worth`)
        self._worth_of: dict[int, list[float]] = {}
        self._worth_at: tuple[Any, int, int] = (None, -1, -1)

    def worth(self, state: Any, seat: int) -> list[float]:
        """:func:`artist_worth`, remembered while ``state`` stays at the same point of the round (no card
        played since: the counts and hands are the same), as through an auction's bids; the state is
        held, so its identity cannot pass to another. The same values: a quarter of a rollout's time."""
        at = self._worth_at
        if at[0] is not state or at[1] != len(state.played) or at[2] != state.round:
            self._worth_at = (state, len(state.played), state.round)
            self._worth_of = {}
        found = self._worth_of.get(seat)
        if found is None:
            found = self._worth_of[seat] = artist_worth(state, seat)
        return found

    @staticmethod
    def horizon(state: Any) -> int:
        """Where a rollout, and the tree's walk, stops: when this changes (the round ends)."""
        return state.round  # type: ignore[no-any-return]

    def candidates(self, state: Any) -> list[dict]:
        """The actions searched, the plan's first."""
        decision, legal = state.decision, state.legal
        worth = self.worth(state, state.seat)
        planned = self.plan(state, worth, 0.5)
        if decision == "play_card":
            options = [{"card": card} for card in distinct_cards(legal["cards"])]
        elif decision == "add_double":
            options = [{"card": None}] + [{"card": card} for card in distinct_cards(legal["cards"])]
        elif decision == "accept_price":
            options = [{"accept": True}, {"accept": False}]
        elif decision == "flip_phantom":
            options = [{"flip": True}, {"flip": False}]
        else:
            value = lot_worth(state, worth)
            if decision == "bid":
                bids = levels(legal["min"], legal["max"], [legal["min"]] + [share * value for share in BID_SHARES])
                options = [{"bid": None}] + [{"bid": bid} for bid in bids]
            elif decision == "sealed_bid":
                options = [{"bid": bid} for bid in levels(0, legal["max"], [0] + [s * value for s in SEALED_SHARES])]
            else:
                options = [{"price": price} for price in
                           levels(legal["min"], legal["max"], [s * value for s in PRICE_SHARES])]
        return [planned] + [option for option in options if option != planned]

    def playout(self, state: Any, rng: random.Random) -> None:
        """Play on with rollout actions until the round (or the game) ends."""
        round_ = state.round
        plan, worth = self.plan, self.worth
        me = self.me
        while state.seat is not None and state.round == round_:
            decision = state.decision
            if me is not None and state.seat != me:
                action = rival_action(state, worth(state, state.seat), rng.random())
            elif decision == "flip_phantom":
                action = {"flip": rng.random() < 0.5}
            elif decision == "add_double":
                cards = state.legal["cards"]
                action = {"card": cards[0] if rng.random() < 0.5 else None}
            else:
                action = plan(state, worth(state, state.seat), rng.random())
            state.apply(action)

    def rollout(self, state: Any, rng: random.Random) -> dict:
        """One rollout action (the plan with its shares spread at random)."""
        decision, legal = state.decision, state.legal
        worth = self.worth
        if self.me is not None and state.seat != self.me:
            return rival_action(state, worth(state, state.seat), rng.random())
        if decision == "flip_phantom":
            return {"flip": rng.random() < 0.5}
        if decision == "add_double":
            cards = legal["cards"]
            return {"card": cards[0] if rng.random() < 0.5 else None}
        return self.plan(state, worth(state, state.seat), rng.random())

    def plan(self, state: Any, worth: list[float], noise: float) -> dict:
        """A sensible action: bid up to a share of the worth, price at a share of it, play the most
        valuable artist; ``noise`` in [0, 1) moves the shares (and, above 0.8, picks a card at random)."""
        decision, legal = state.decision, state.legal
        if decision == "play_card":
            cards = legal["cards"]
            if noise > 0.8:
                return {"card": cards[int((noise - 0.8) * 5 * len(cards))]}
            return {"card": max(cards, key=lambda card: worth[CARD_ARTIST[card]])}
        if decision == "add_double":
            card = legal["cards"][0]
            return {"card": card if worth[CARD_ARTIST[card]] >= 8 else None}
        if decision == "flip_phantom":
            return {"flip": False}
        value = lot_worth(state, worth)
        own = state.auctioneer == state.seat
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
        kind = (CARD_ARTIST[card], CARD_KIND[card])
        if kind not in seen:
            seen.add(kind)
            chosen.append(card)
    return chosen


def rival_action(state: Any, worth: list[float], noise: float) -> dict[str, Any]:
    """A rival's move: ``appraiser``'s rules read from the engine state (the usual opponents'; ``worth`` is
    its appraisal), its appraisal of the lot spread by ``noise`` in [0, 1) (their hands are sampled too)."""
    decision, legal, seat = state.decision, state.legal, state.seat
    if decision == "play_card":
        counts, own = state.counts, [0, 0, 0, 0, 0]
        for card in state.hands[seat]:
            own[CARD_ARTIST[card]] += 1
        best, best_score = legal["cards"][0], float("-inf")
        ahead: bool | None = None
        for card in legal["cards"]:
            artist = CARD_ARTIST[card]
            if counts[artist] == 4:
                if ahead is None:
                    ahead = _ahead(state, worth, seat)
                score = 100.0 if ahead else -100.0
            else:
                score = worth[artist]
                if CARD_KIND[card] == DOUBLE and own[artist] > 1:
                    score *= 1.8
            if score > best_score:
                best, best_score = card, score
        return {"card": best}
    if decision == "add_double":
        artist = CARD_ARTIST[state.lot[0]]
        if state.counts[artist] >= 4 and not _ahead(state, worth, seat) or worth[artist] < 8:
            return {"card": None}
        return {"card": min(legal["cards"], key=lambda card: (CARD_KIND[card] != OPEN, card))}
    if decision == "flip_phantom":
        return {"flip": _ahead(state, worth, seat)}
    value = sum(worth[CARD_ARTIST[card]] for card in state.lot) * (1 + RIVAL_SPREAD * (noise - 0.5))
    own = state.auctioneer == seat
    limit = int(value * (OWN_SHARE if own else RIVAL_SHARE))
    if decision == "bid":
        low = legal["min"]
        if low > limit:
            return {"bid": None}
        if state.kind == OPEN or own:
            return {"bid": min(limit, legal["max"], max(low, -(-low // RIVAL_STEP) * RIVAL_STEP))}
        return {"bid": min(legal["max"], max(low, int(limit * SEALED_SHADE)))}
    if decision == "sealed_bid":
        return {"bid": max(0, min(legal["max"], int(limit * SEALED_SHADE)))}
    if decision == "set_price":
        return {"price": max(legal["min"], min(legal["max"], int(value * RIVAL_PRICE_SHARE)))}
    return {"accept": legal["price"] <= limit}


def _ahead(state: Any, worth: list[float], seat: int) -> bool:
    """Whether the paintings ``seat`` bought this round are worth more than any rival's (by ``worth``)."""
    paid = [sum(worth[CARD_ARTIST[card]] for card in cards) for cards in state.bought]
    mine = paid.pop(seat)
    return bool(mine > max(paid))
