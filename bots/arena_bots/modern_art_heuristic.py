"""``appraiser``: a Modern Art bot that values each painting and trades against that value.

The value of a painting is what the bank is expected to pay for it at the end
of this round: the artist's markers from earlier rounds plus this round's
expected marker, times the chance that the artist ranks in the top three.
Both come from the round so far: the cards of each artist played this round,
the cards of each artist in the bot's own hand (it decides when they are
played), board order for ties, and how near the round is to its end (the more
cards the leading artist has, the surer the current ranking).

Against that value it bids a fraction (less in its own auctions, where the
money it would otherwise receive from a rival goes to the bank instead),
names fixed prices a rival should accept, accepts cheap prices, adds cards to
doubles when it then sells two paintings, and auctions the cards that bring
the most money in.
"""

from __future__ import annotations

from arena.games.modern_art.cards import ARTISTS, MARKERS

#: the most a painting is worth paying, as a share of its value, buying from a rival
#: (the rival gains the price) and in the bot's own auction (the price goes to the bank)
SHARE_FROM_RIVAL = 0.7
SHARE_OWN_AUCTION = 0.5
#: sealed bids are shaded further: the winner pays its own bid
SEALED_SHADE = 0.85
#: a fixed price, as a share of the value, that a rival should still accept
PRICE_SHARE = 0.6
#: an open-auction raise goes up in steps of this size (when the bot's limit allows)
OPEN_STEP = 5


class Appraisal:
    """Expected end-of-round values of each artist's paintings, from one view."""

    def __init__(self, view: dict) -> None:
        counts = [view["counts"][name] for name in ARTISTS]
        own = [0] * len(ARTISTS)
        for card in view["hand"]:
            own[ARTISTS.index(card["artist"])] += 1
        self.counts = counts
        self.own = own
        played_round = view["round"] - 1
        past = [sum(view["markers"][name][:played_round]) for name in ARTISTS]
        # how settled the ranking is: 0 at the start of the round, 0.8 with an artist at four
        certainty = max(counts) / 5
        score = [counts[artist] + 0.5 * own[artist] - 0.01 * artist for artist in range(len(ARTISTS))]
        order = sorted(range(len(ARTISTS)), key=lambda artist: -score[artist])
        self.values = [0.0] * len(ARTISTS)
        for place, artist in enumerate(order):
            if place < len(MARKERS):
                chance = 0.55 + 0.45 * certainty
                marker = certainty * MARKERS[place] + (1 - certainty) * 20
            else:
                chance = 0.35 * (1 - certainty)
                marker = 10
            if counts[artist] == 0 and own[artist] == 0:
                chance *= 0.5
            self.values[artist] = chance * (past[artist] + marker)

    def of(self, cards: list[dict]) -> float:
        """The value of a lot of cards."""
        return sum(self.values[ARTISTS.index(card["artist"])] for card in cards)


class ModernArtHeuristic:
    """Values paintings from the round's counts and markers; bids, prices and accepts against that."""

    def __init__(self) -> None:
        self.seat = 0

    def start(self, info: dict) -> None:
        self.seat = info["seat"]

    def decide(self, request: dict) -> dict:
        view = request["view"]
        legal = request["legal"]
        decision = request["decision"]
        appraisal = Appraisal(view)
        auction = view["auction"]
        if decision == "play_card":
            return {"card": self._card_to_play(view, appraisal, legal["cards"])}
        if decision == "add_double":
            return {"card": self._card_to_add(view, appraisal, legal["cards"])}
        if decision == "flip_phantom":
            return {"flip": self._ahead_this_round(view, appraisal)}
        value = appraisal.of(auction["cards"])
        own = auction["auctioneer"] == self.seat
        limit = int(value * (SHARE_OWN_AUCTION if own else SHARE_FROM_RIVAL))
        if decision == "bid":
            low = legal["min"]
            if low > limit:
                return {"bid": None}
            if auction["kind"] == "open" or own:  # open: raise a step; last in once around: just beat it
                return {"bid": min(limit, legal["max"], max(low, -(-low // OPEN_STEP) * OPEN_STEP))}
            return {"bid": min(legal["max"], max(low, int(limit * 0.85)))}
        if decision == "sealed_bid":
            return {"bid": max(0, min(legal["max"], int(limit * SEALED_SHADE)))}
        if decision == "set_price":
            return {"price": max(legal["min"], min(legal["max"], int(value * PRICE_SHARE)))}
        if decision == "accept_price":
            return {"accept": legal["price"] <= limit}
        raise ValueError(f"modern-art has no decision {decision!r}")

    def _card_to_play(self, view: dict, appraisal: Appraisal, cards: list[int]) -> int:
        """The card whose auction brings in most; a round-ending card only when ending now pays."""
        hand = {card["id"]: card for card in view["hand"]}
        best, best_score = cards[0], float("-inf")
        for card_id in cards:
            card = hand[card_id]
            artist = ARTISTS.index(card["artist"])
            if appraisal.counts[artist] == 4:
                score = 100.0 if self._ahead_this_round(view, appraisal) else -100.0
            else:
                score = appraisal.values[artist]
                if card["auction"] == "double" and appraisal.own[artist] > 1:
                    score *= 1.8  # it will add a second card and sell two paintings
            if score > best_score:
                best, best_score = card_id, score
        return best

    def _card_to_add(self, view: dict, appraisal: Appraisal, cards: list[int]) -> int | None:
        """Add a card (open auctions first) when the pair is worth selling and the round goes on."""
        artist = ARTISTS.index(view["auction"]["cards"][0]["artist"])
        if appraisal.counts[artist] >= 4 and not self._ahead_this_round(view, appraisal):
            return None
        if appraisal.values[artist] < 8:
            return None
        hand = {card["id"]: card for card in view["hand"]}
        return min(cards, key=lambda card: (hand[card]["auction"] != "open", card))

    def _ahead_this_round(self, view: dict, appraisal: Appraisal) -> bool:
        """Whether the paintings bought this round pay this bot more than the best rival now."""
        paid = [appraisal.of(cards) for cards in view["bought"]]
        mine = paid[self.seat]
        return mine > max(value for seat, value in enumerate(paid) if seat != self.seat)
