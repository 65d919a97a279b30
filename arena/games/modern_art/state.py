"""The rules of Modern Art as a state machine: turns, the five auctions, doubles, rounds, scoring.

The state runs until it needs a real choice, then sets ``seat``, ``decision``
and ``legal`` and waits for :meth:`ModernArtState.apply`. A decision with one
legal action (a bid the seat cannot afford, a last card, ...) is taken on the
spot without asking (protocol.md section 1). Reading order follows the
rulebook: a turn, the auctions, the double, a sale and the phantom flip, the
end of a round, then the action handlers that check a bot's answer.

Turns are begun from the loop in :meth:`apply` rather than by recursion, so a
long chain of forced moves (every seat down to one card) never grows the stack.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from arena.errors import IllegalAction, MalformedAction
from arena.games.base import UNBUILT, CompactLogState
from arena.games.modern_art.cards import (
    ARTISTS,
    CARD_ARTIST,
    CARD_KIND,
    DEALS,
    DOUBLE,
    MARKERS,
    ONCE_AROUND,
    OPEN,
    ROUND_ENDING_COUNT,
    ROUNDS,
    SEALED,
    START_MONEY,
)
from arena.games.modern_art.events import RENDERERS
from arena.games.modern_art.setup import MAX_PLAYERS
from arena.games.modern_art.views import build_view

ARTIST_RANGE = range(len(ARTISTS))
_new = object.__new__
#: each seat's ``pass`` and ``decline`` entries, noted often: shared rather than made each time
PASSES = tuple((None, "pass", seat) for seat in range(MAX_PLAYERS))
DECLINES = tuple((None, "decline", seat) for seat in range(MAX_PLAYERS))

#: the action shape each decision takes, for error messages
SHAPES = {
    "play_card": '{"card": id}',
    "add_double": '{"card": id} or {"card": null}',
    "bid": '{"bid": n} or {"bid": null}',
    "sealed_bid": '{"bid": n}',
    "set_price": '{"price": n}',
    "accept_price": '{"accept": true} or {"accept": false}',
    "flip_phantom": '{"flip": true} or {"flip": false}',
}


def _text(value: object) -> str:
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


class ModernArtState(CompactLogState):
    """A Modern Art game in progress: every hand, the deck and phantom pile, the table, the auction.

    Events are noted compactly (module ``events`` renders them) and built when ``log`` is read.
    """

    renderers = RENDERERS
    #: every field (no ``__dict__``: a state is copied field by field, thousands of times a search)
    __slots__ = ("players", "phantom", "split", "hands", "cash", "deck", "pile", "cards_left", "round", "markers",
                 "discarded", "counts", "bought", "played", "turn", "auctioneer", "lot", "kind", "high",
                 "high_bidder", "passed", "price", "sealed", "seat", "decision", "legal", "upcoming")

    def __init__(self, setup: dict[str, Any], options: dict[str, Any]) -> None:
        players = setup["players"]
        self.players = players
        self.phantom = bool(options.get("phantom"))
        self.split = bool(options.get("double_split"))
        self.hands = [sorted(hand) for hand in setup["hands"]]
        self.cash = list(setup.get("money") or [START_MONEY] * players)
        self.deck = list(setup["deck"])
        self.pile = list(setup.get("phantom") or ())
        self.cards_left = sum(map(len, self.hands))
        self.round = 0
        #: each artist's markers by round: rows of tuples, replaced at a round's end (clones share them)
        self.markers: tuple[tuple[int, ...], ...] = ((0,) * ROUNDS,) * len(ARTISTS)
        self.discarded: list[int] = []
        self._new_round_table()
        self._clear_auction()
        self.seat = self.decision = self.legal = None
        self.upcoming: int | None = None
        self.log = []
        self._start_round(setup["first"])
        self._run_turns()

    def _new_round_table(self) -> None:
        self.counts = [0] * len(ARTISTS)
        #: each seat's paintings bought this round: tuples, replaced on a sale (clones copy one list, not one a seat)
        self.bought: list[tuple[int, ...]] = [()] * self.players
        self.played: list[int] = []

    def _clear_auction(self) -> None:
        #: the player who played this turn's card, and the seat paid for the lot (they differ
        #: when another player added the second card to a double)
        self.turn: int | None = None
        self.auctioneer: int | None = None
        self.lot: list[int] = []
        self.kind: int | None = None
        self.high = 0
        self.high_bidder: int | None = None
        #: open: seats that passed since the last raise; once around and fixed: all passes so far
        self.passed: list[int] = []
        self.price = 0
        self.sealed: list[int] = []

    # -- the runner's interface --

    def apply(self, action: dict[str, Any]) -> None:
        try:
            handler = _HANDLERS[self.decision]
        except KeyError:  # (the game over: decision None has no handler)
            raise IllegalAction(f"the game is over; no action is asked (got {_text(action)})") from None
        handler(self, action)
        # _run_turns, inlined: it is checked once per decision, and most decisions end no auction
        while self.upcoming is not None:
            seat = self.upcoming
            self.upcoming = None
            self._begin_turn(seat)

    def default_action(self) -> dict[str, Any]:
        decision = self.decision
        legal = self.legal
        if decision == "play_card":
            assert legal is not None  # every decision has its legal object
            return {"card": legal["cards"][0]}
        if decision == "add_double":
            return {"card": None}
        if decision == "bid":
            return {"bid": None}
        if decision == "sealed_bid":
            return {"bid": 0}
        if decision == "set_price":
            assert legal is not None
            return {"price": legal["min"]}
        if decision == "accept_price":
            return {"accept": False}
        if decision == "flip_phantom":
            return {"flip": False}
        raise IllegalAction("the game is over; no action is asked")

    def view(self, seat: int) -> dict[str, Any]:
        return build_view(self, seat)

    def money(self) -> list[int]:
        return self.cash[:]

    def clone(self) -> "ModernArtState":
        """A copy of every list the game changes in place; what is only ever replaced is shared
        (``markers``, tuples; ``discarded``). The clone builds its own ``log`` from the entries when read
        (equal events): search bots clone thousands of times a decision and never read it."""
        other = _new(ModernArtState)
        other.players = self.players
        other.phantom = self.phantom
        other.split = self.split
        other.hands = list(map(list.copy, self.hands))
        other.cash = self.cash[:]
        other.deck = self.deck[:]
        other.pile = self.pile[:]
        other.cards_left = self.cards_left
        other.round = self.round
        other.markers = self.markers
        other.discarded = self.discarded
        other.counts = self.counts[:]
        other.bought = self.bought[:]
        other.played = self.played[:]
        other.turn = self.turn
        other.auctioneer = self.auctioneer
        other.lot = self.lot[:]
        other.kind = self.kind
        other.high = self.high
        other.high_bidder = self.high_bidder
        other.passed = self.passed[:]
        other.price = self.price
        other.sealed = self.sealed[:]
        other.seat = self.seat
        other.decision = self.decision
        other.legal = self.legal
        other.upcoming = self.upcoming
        other._entries = self._entries[:]
        other._log = UNBUILT
        return other

    # -- rounds and turns --

    def _start_round(self, starter: int) -> None:
        """Deal (rounds 2 and 3) and begin with ``starter``; a round with every hand empty ends at once."""
        while True:
            new, phantom_dealt = self._deal()
            self._entries.append((None, "round_start", self.round + 1, starter, tuple(map(len, new)),
                                  phantom_dealt, len(self.deck)))
            for seat, cards in enumerate(new):
                if cards:
                    self._entries.append((seat, "hand_dealt", self.round + 1, tuple(sorted(cards))))
            if self.cards_left:
                self.upcoming = starter
                return
            nothing = (0,) * self.players
            self._entries.append((None, "round_end", self.round + 1, "no cards", None, tuple(self.counts), (),
                                  (0,) * len(ARTISTS), nothing))
            if self.round == ROUNDS - 1:
                return self._game_over()
            self.round += 1

    def _deal(self) -> tuple[list[list[int]], int]:
        """The cards each seat gets this round (round 1: its setup hand), and how many the phantom pile got.

        Later rounds deal from the top of the deck, one card at a time in seat
        order and then to the bottom of the phantom pile, until every hand has
        its share or the deck is empty.
        """
        players, deck, hands = self.players, self.deck, self.hands
        if self.round == 0:
            return [hand[:] for hand in hands], len(self.pile)
        places = players + self.phantom  # the phantom pile is dealt to as one place more, after the seats
        # card i of the deck goes to place i % places, until every place has its share or the deck is empty
        taken = min(DEALS[places][self.round] * places, len(deck))
        new = [deck[seat:taken:places] for seat in range(players)]
        phantom_dealt = 0
        if self.phantom:
            to_pile = deck[players:taken:places]
            self.pile.extend(to_pile)
            phantom_dealt = len(to_pile)
        del deck[:taken]
        for seat, cards in enumerate(new):
            hands[seat] = sorted(hands[seat] + cards)
            self.cards_left += len(cards)
        return new, phantom_dealt

    def _run_turns(self) -> None:
        """Begin the turns that finished auctions scheduled, until a decision is asked or the game ends."""
        while self.upcoming is not None:
            seat = self.upcoming
            self.upcoming = None
            self._begin_turn(seat)

    def _begin_turn(self, seat: int) -> None:
        """``seat`` (or the first player clockwise who has cards) plays a card."""
        hands, players = self.hands, self.players
        while not hands[seat]:
            seat = seat + 1 if seat + 1 < players else 0
        hand = hands[seat]
        self.turn = self.auctioneer = seat
        if len(hand) == 1:
            self._play(seat, hand[0])
        else:
            self.seat = seat
            self.decision = "play_card"
            self.legal = {"cards": hand[:]}

    def _play(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        self.cards_left -= 1
        self.played.append(card)
        self._entries.append((None, "play", seat, card))
        artist = CARD_ARTIST[card]
        counts = self.counts
        counts[artist] += 1
        if counts[artist] == ROUND_ENDING_COUNT or not self.cards_left:
            return self._end_round(seat)
        self.lot = [card]
        kind = CARD_KIND[card]
        if kind == DOUBLE:
            self.kind = DOUBLE
            self._offer_double(seat)
        else:
            self._start_auction(kind)

    def _next_turn(self) -> None:
        assert self.auctioneer is not None  # a turn's auction is ending
        seat = self.auctioneer + 1
        self.upcoming = seat if seat < self.players else 0

    # -- auctions --

    def _start_auction(self, kind: int) -> None:
        self.kind = kind
        self.high = 0
        self.high_bidder = None
        self.passed = []
        assert self.auctioneer is not None  # the turn's card is played
        first = self.auctioneer + 1
        if first == self.players:
            first = 0
        if kind == OPEN or kind == ONCE_AROUND:
            self._ask_bidder(first)
        elif kind == SEALED:
            self.sealed = [0] * self.players
            self._ask_sealed(first)
        else:
            self._ask_price()

    def _ask_bidder(self, seat: int) -> None:
        """Ask ``seat`` to raise or pass (for it when it cannot raise), or close the auction when done.

        Open: round and round until every seat but the high bidder has passed
        since the last raise (every seat, with no bid). Once around: until the
        auctioneer, asked last, has answered.
        """
        need = self.high + 1
        money, passed = self.cash, self.passed
        if self.kind == ONCE_AROUND:
            while money[seat] < need:  # it cannot raise: it passes
                passed.append(seat)
                self._entries.append(PASSES[seat])
                if seat == self.auctioneer:
                    return self._close_bidding()
                seat = seat + 1 if seat + 1 < self.players else 0
        else:
            enough = self.players if self.high_bidder is None else self.players - 1
            while True:
                if len(passed) >= enough:
                    return self._close_bidding()
                if money[seat] >= need:
                    break
                passed.append(seat)
                self._entries.append(PASSES[seat])
                seat = seat + 1 if seat + 1 < self.players else 0
        self.seat = seat
        self.decision = "bid"
        self.legal = {"min": need, "max": money[seat]}

    def _close_bidding(self) -> None:
        winner = self.high_bidder
        if winner is None:
            assert self.auctioneer is not None  # an auction is on
            self._sell(self.auctioneer, 0)
        else:
            self._sell(winner, self.high)

    def _ask_sealed(self, seat: int) -> None:
        """Ask the next seat with money for its sealed bid (auctioneer last), then reveal."""
        money, players, auctioneer = self.cash, self.players, self.auctioneer
        while True:
            if money[seat]:
                self.seat = seat
                self.decision = "sealed_bid"
                self.legal = {"min": 0, "max": money[seat]}
                return
            if seat == auctioneer:
                return self._reveal()
            seat = seat + 1 if seat + 1 < players else 0

    def _reveal(self) -> None:
        bids = self.sealed
        self._entries.append((None, {"type": "reveal", "bids": bids[:]}))
        best = max(bids)
        auctioneer = winner = self.auctioneer
        assert auctioneer is not None and winner is not None  # an auction is on
        if best and bids[auctioneer] != best:
            winner = auctioneer
            while bids[winner] != best:
                winner = winner + 1 if winner + 1 < self.players else 0
        self._sell(winner, best)

    def _ask_price(self) -> None:
        assert self.auctioneer is not None  # an auction is on
        purse = self.cash[self.auctioneer]
        if purse >= 2:
            self.seat = self.auctioneer
            self.decision = "set_price"
            self.legal = {"min": 1, "max": purse}
        else:
            self._set_price(purse)

    def _set_price(self, price: int) -> None:
        self.price = price
        self._entries.append((None, "price", self.auctioneer, price))
        assert self.auctioneer is not None  # an auction is on
        seat = self.auctioneer + 1
        self._ask_accept(seat if seat < self.players else 0)

    def _ask_accept(self, seat: int) -> None:
        """Offer the fixed price clockwise; a seat that cannot pay declines; nobody: the auctioneer buys."""
        money, players, price, auctioneer = self.cash, self.players, self.price, self.auctioneer
        while seat != auctioneer:
            if money[seat] >= price:
                self.seat = seat
                self.decision = "accept_price"
                self.legal = {"price": price}
                return
            self.passed.append(seat)
            self._entries.append(DECLINES[seat])
            seat = seat + 1 if seat + 1 < players else 0
        self._sell(auctioneer, price)

    # -- the double --

    def _offer_double(self, seat: int) -> None:
        """Offer to add a second card, from ``seat`` clockwise until back at the player of the double."""
        artist = CARD_ARTIST[self.lot[0]]
        hands, players, turn = self.hands, self.players, self.turn
        while True:
            cards = [card for card in hands[seat] if CARD_ARTIST[card] == artist and CARD_KIND[card] != DOUBLE]
            if cards:
                self.seat = seat
                self.decision = "add_double"
                self.legal = {"cards": cards}
                return
            seat = seat + 1 if seat + 1 < players else 0
            if seat == turn:
                return self._sell(turn, 0)

    def _add_double(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        self.cards_left -= 1
        self.played.append(card)
        self.lot.append(card)
        self._entries.append((None, "double_added", seat, card))
        artist = CARD_ARTIST[card]
        self.counts[artist] += 1
        if self.counts[artist] == ROUND_ENDING_COUNT or not self.cards_left:
            return self._end_round(seat)
        self.auctioneer = seat
        self._start_auction(CARD_KIND[card])

    # -- a sale, then the phantom flip --

    def _sell(self, buyer: int, price: int) -> None:
        """``buyer`` takes the lot for ``price``: paid to the auctioneer, or the bank when it buys itself."""
        money, auctioneer = self.cash, self.auctioneer
        assert auctioneer is not None  # an auction is on
        payments: tuple[tuple[int, int | None, int], ...] = ()
        if price:
            original = self.turn
            assert original is not None  # the turn's card was played
            money[buyer] -= price
            if self.split and original != auctioneer:
                payments = self._split_payments(buyer, price, auctioneer, original)
            elif buyer == auctioneer:
                payments = ((buyer, None, price),)
            else:
                money[auctioneer] += price
                payments = ((buyer, auctioneer, price),)
        lot = tuple(self.lot)
        bought = self.bought
        bought[buyer] = bought[buyer] + lot
        self._entries.append((None, "sale", auctioneer, buyer, price, lot, payments))
        if self.phantom and self.pile:
            self.seat = buyer
            self.decision = "flip_phantom"
            self.legal = {}
        else:  # _next_turn, inlined: every auction ends here
            seat = auctioneer + 1
            self.upcoming = seat if seat < self.players else 0

    def _split_payments(self, buyer: int, price: int, auctioneer: int,
                        original: int) -> tuple[tuple[int, int | None, int], ...]:
        """Option ``double_split``: share ``price`` between the lot's two auctioneers (money already paid)."""
        low = price // 2
        high = price - low
        if buyer == auctioneer:
            shares = [(original, low), (None, high)]
        elif buyer == original:
            shares = [(auctioneer, high), (None, low)]
        else:
            shares = [(auctioneer, high), (original, low)]
        payments = []
        for to, amount in shares:
            if amount:
                if to is not None:
                    self.cash[to] += amount
                payments.append((buyer, to, amount))
        return tuple(payments)

    def _flip(self, seat: int) -> None:
        card = self.pile.pop(0)
        self.played.append(card)
        self._entries.append((None, "flip", seat, card))
        artist = CARD_ARTIST[card]
        self.counts[artist] += 1
        if self.counts[artist] == ROUND_ENDING_COUNT:
            return self._end_round(seat)
        self._next_turn()

    # -- the end of a round and of the game --

    def _end_round(self, ender: int) -> None:
        """Rank the artists, place markers, pay for the paintings bought; the next round starts at ender's left."""
        counts, markers, round_ = self.counts, self.markers, self.round
        # a stable sort: among equal counts the artist further left on the board comes first; the
        # artists with no card this round come last, so dropping them from the top three is enough
        ranked = [artist for artist in sorted(ARTIST_RANGE, key=counts.__getitem__, reverse=True)[: len(MARKERS)]
                  if counts[artist]]
        values = [0] * len(ARTISTS)
        if ranked:
            rows = list(markers)
            for place, artist in enumerate(ranked):
                row = rows[artist]
                rows[artist] = row = row[:round_] + (MARKERS[place],) + row[round_ + 1:]
                values[artist] = sum(row[: round_ + 1])
            self.markers = tuple(rows)
        # each painting sells for its artist's value (mapped in C: a round ends four times a game)
        value_of = values.__getitem__
        artist_of = CARD_ARTIST.__getitem__
        payouts = [sum(map(value_of, map(artist_of, cards))) for cards in self.bought]
        for seat, amount in enumerate(payouts):
            self.cash[seat] += amount
        reason = "fifth card" if ROUND_ENDING_COUNT in counts else "hands empty"
        self._entries.append((None, "round_end", round_ + 1, reason, ender, tuple(counts), tuple(ranked), tuple(values),
                              tuple(payouts)))
        self.discarded = self.discarded + self.played
        self._new_round_table()
        self._clear_auction()
        self.seat = self.decision = self.legal = None
        if round_ == ROUNDS - 1:
            return self._game_over()
        self.round += 1
        starter = ender + 1
        self._start_round(starter if starter < self.players else 0)

    def _game_over(self) -> None:
        self.seat = self.decision = self.legal = None
        self.upcoming = None
        result = self.result()
        self._entries.append((None, "game_end", tuple(result["money"]), tuple(result["ranks"])))

    # -- checking and applying a bot's action --

    def _malformed(self, action: object) -> MalformedAction:
        return MalformedAction(f"{self.decision}: expected {SHAPES.get(self.decision or '')}, got {_text(action)} "
                               f"(legal: {_text(self.legal)})")

    def _illegal(self, action: object, why: str) -> IllegalAction:
        return IllegalAction(f"{self.decision}: {_text(action)} is not allowed: {why} "
                             f"(legal: {_text(self.legal)})")

    def _on_play_card(self, action: dict[str, Any]) -> None:
        if type(action) is not dict or len(action) != 1 or type(action.get("card")) is not int:
            raise self._malformed(action)
        card = action["card"]
        assert self.legal is not None and self.seat is not None  # a seat is deciding
        if card not in self.legal["cards"]:
            raise self._illegal(action, f"card {card} is not in your hand")
        self._play(self.seat, card)

    def _on_add_double(self, action: dict[str, Any]) -> None:
        if type(action) is not dict or len(action) != 1 or "card" not in action:
            raise self._malformed(action)
        card = action["card"]
        seat = self.seat
        assert self.legal is not None and seat is not None  # a seat is deciding
        if card is None:
            seat = seat + 1 if seat + 1 < self.players else 0
            if seat == self.turn:
                return self._sell(seat, 0)
            return self._offer_double(seat)
        if type(card) is not int:
            raise self._malformed(action)
        if card not in self.legal["cards"]:
            raise self._illegal(action, f"card {card} is not a card of yours that can join this double")
        self._add_double(seat, card)

    def _on_bid(self, action: dict[str, Any]) -> None:
        if type(action) is not dict or len(action) != 1 or "bid" not in action:
            raise self._malformed(action)
        bid = action["bid"]
        seat: int = self.seat  # type: ignore[assignment]  # a seat is deciding (no assert: 80 bids a game)
        if bid is None:
            self.passed.append(seat)
            self._entries.append(PASSES[seat])
        elif type(bid) is not int:
            raise self._malformed(action)
        elif bid <= self.high or bid > self.cash[seat]:
            legal = self.legal
            assert legal is not None  # a seat is deciding
            raise self._illegal(action, f"a bid must be from {legal['min']} to {legal['max']}")
        else:
            self.high = bid
            self.high_bidder = seat
            self.passed = []
            self._entries.append((None, "bid", seat, bid))
        if seat == self.auctioneer and self.kind == ONCE_AROUND:
            return self._close_bidding()
        seat += 1
        self._ask_bidder(seat if seat < self.players else 0)

    def _on_sealed_bid(self, action: dict[str, Any]) -> None:
        if type(action) is not dict or len(action) != 1 or "bid" not in action:
            raise self._malformed(action)
        bid = action["bid"]
        seat = self.seat
        assert seat is not None  # a seat is deciding
        if bid is None:
            bid = 0
        elif type(bid) is not int:
            raise self._malformed(action)
        elif not 0 <= bid <= self.cash[seat]:
            raise self._illegal(action, f"a sealed bid must be from 0 to {self.cash[seat]}")
        self.sealed[seat] = bid
        self._entries.append((seat, "sealed_bid", seat, bid))
        if seat == self.auctioneer:
            return self._reveal()
        self._ask_sealed(seat + 1 if seat + 1 < self.players else 0)

    def _on_set_price(self, action: dict[str, Any]) -> None:
        if type(action) is not dict or len(action) != 1 or type(action.get("price")) is not int:
            raise self._malformed(action)
        price = action["price"]
        legal = self.legal
        assert legal is not None  # a seat is deciding
        if not legal["min"] <= price <= legal["max"]:
            raise self._illegal(action, f"the price must be from {legal['min']} to {legal['max']}")
        self._set_price(price)

    def _on_accept_price(self, action: dict[str, Any]) -> None:
        if type(action) is not dict or len(action) != 1 or type(action.get("accept")) is not bool:
            raise self._malformed(action)
        seat = self.seat
        assert seat is not None  # a seat is deciding
        if action["accept"]:
            return self._sell(seat, self.price)
        self.passed.append(seat)
        self._entries.append(DECLINES[seat])
        self._ask_accept(seat + 1 if seat + 1 < self.players else 0)

    def _on_flip_phantom(self, action: dict[str, Any]) -> None:
        if type(action) is not dict or len(action) != 1 or type(action.get("flip")) is not bool:
            raise self._malformed(action)
        if action["flip"]:
            assert self.seat is not None  # a seat is deciding
            return self._flip(self.seat)
        self._next_turn()


#: each decision's handler (None, the game over, has none)
_HANDLERS: dict[str | None, Callable[[ModernArtState, dict[str, Any]], None]] = {
    "play_card": ModernArtState._on_play_card,
    "add_double": ModernArtState._on_add_double,
    "bid": ModernArtState._on_bid,
    "sealed_bid": ModernArtState._on_sealed_bid,
    "set_price": ModernArtState._on_set_price,
    "accept_price": ModernArtState._on_accept_price,
    "flip_phantom": ModernArtState._on_flip_phantom,
}
