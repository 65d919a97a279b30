"""The yardstick for `engine.py`: each game's rules as a plain state machine, with random players.

This is how a competent developer would first write Modern Art and Maritime
Silk Road (rules/modern-art.md, rules/silk-road.md): dicts, lists and strings,
a state that stops at the next real choice (``seat``, ``decision``, ``legal``)
and a loop asking the player whose turn it is. Like the real engines it asks
only real choices (protocol.md section 1), so a game takes as many decisions;
unlike them it has no views, no event log, no runner, no records, no checks of
a player's answer and no game options. It imports nothing of arena's, so
`engine.py` can measure arena against it in the same run, on the same machine.

The random players choose the way ``arena_bots.modern_art_random`` and
``arena_bots.silk_road_random`` do, with the same probabilities, but read the
state directly and use ``random``'s ordinary helpers (``choice``, ``randint``, ``sample``).
"""

from __future__ import annotations

import random

# -- Modern Art --

ARTISTS = ("Lite Metal", "Yoko", "Christin P", "Karl Gitter", "Krypto")
AUCTIONS = ("open", "once_around", "sealed", "fixed", "double")
#: cards per artist, by auction kind in the order of AUCTIONS
PAINTINGS = {
    "Lite Metal": (3, 3, 2, 2, 2),
    "Yoko": (3, 2, 3, 3, 2),
    "Christin P": (3, 3, 3, 3, 2),
    "Karl Gitter": (3, 3, 3, 3, 3),
    "Krypto": (4, 3, 3, 3, 3),
}
#: cards dealt to each player at the start of rounds 1 to 4
DEALS = {3: (10, 6, 6, 0), 4: (9, 4, 4, 0), 5: (8, 3, 3, 0)}
MARKERS = (30, 20, 10)
ROUNDS = 4


class ModernArt:
    """One game of Modern Art; a card is an ``(artist, auction)`` pair."""

    def __init__(self, players: int, rng: random.Random) -> None:
        self.players = players
        self.deck = [(artist, auction) for artist, counts in PAINTINGS.items()
                     for auction, count in zip(AUCTIONS, counts) for _ in range(count)]
        rng.shuffle(self.deck)
        self.hands = [[] for _ in range(players)]
        self.money = [100] * players
        self.value = {artist: 0 for artist in ARTISTS}  # the sum of each artist's markers so far
        self.round = 0
        self.over = False
        self.seat = self.decision = self.legal = None
        self.start_round(rng.randrange(players))

    def apply(self, choice) -> None:
        """Carry out the answer of ``self.seat`` to ``self.decision``."""
        getattr(self, "on_" + self.decision)(choice)

    def ask(self, seat: int, decision: str, legal) -> None:
        self.seat, self.decision, self.legal = seat, decision, legal

    def left_of(self, seat: int) -> int:
        return (seat + 1) % self.players

    # rounds and turns

    def start_round(self, starter: int) -> None:
        deal = DEALS[self.players][self.round]
        for _ in range(deal):
            for hand in self.hands:
                if self.deck:
                    hand.append(self.deck.pop())
        self.played = {artist: 0 for artist in ARTISTS}
        self.bought = [[] for _ in range(self.players)]
        if any(self.hands):
            self.start_turn(starter)
        else:  # nothing to play: the round scores nothing and the next one starts with the same player
            self.next_round(starter)

    def start_turn(self, seat: int) -> None:
        while not self.hands[seat]:
            seat = self.left_of(seat)
        self.turn = self.auctioneer = seat
        if len(self.hands[seat]) == 1:
            self.on_play_card(self.hands[seat][0])
        else:
            self.ask(seat, "play_card", list(self.hands[seat]))

    def on_play_card(self, card) -> None:
        self.hands[self.turn].remove(card)
        if self.counts_card(card):
            return self.end_round(self.turn)
        self.lot = [card]
        if card[1] == "double":
            self.offer_double(self.turn)
        else:
            self.start_auction(card[1])

    def counts_card(self, card) -> bool:
        """Count ``card`` as played this round; true when that ends the round."""
        self.played[card[0]] += 1
        return self.played[card[0]] == 5 or not any(self.hands)

    def next_turn(self) -> None:
        self.start_turn(self.left_of(self.auctioneer))

    # the double

    def offer_double(self, seat: int) -> None:
        """Offer the double to ``seat`` and on clockwise; nobody adds: its player takes it free."""
        artist = self.lot[0][0]
        while True:
            cards = [card for card in self.hands[seat] if card[0] == artist and card[1] != "double"]
            if cards:
                return self.ask(seat, "add_double", cards)
            seat = self.left_of(seat)
            if seat == self.turn:
                return self.sell(self.turn, 0)

    def on_add_double(self, card) -> None:
        seat = self.seat
        if card is None:
            if self.left_of(seat) == self.turn:
                return self.sell(self.turn, 0)
            return self.offer_double(self.left_of(seat))
        self.hands[seat].remove(card)
        if self.counts_card(card):
            return self.end_round(seat)
        self.lot.append(card)
        self.auctioneer = seat
        self.start_auction(card[1])

    # the auctions

    def start_auction(self, kind: str) -> None:
        self.kind = kind
        self.high = 0
        self.high_bidder = None
        self.passes = 0
        if kind in ("open", "once_around"):
            self.ask_bid(self.left_of(self.auctioneer))
        elif kind == "sealed":
            self.sealed = [0] * self.players
            self.ask_sealed(self.left_of(self.auctioneer))
        elif self.money[self.auctioneer] >= 2:
            self.ask(self.auctioneer, "set_price", (1, self.money[self.auctioneer]))
        else:
            self.on_set_price(self.money[self.auctioneer])

    def bidding_done(self) -> bool:
        if self.high_bidder is None:
            return self.passes == self.players
        return self.passes == self.players - 1

    def ask_bid(self, seat: int) -> None:
        """Ask ``seat`` to raise or pass; one who cannot raise passes. Closes the auction when done."""
        while self.kind == "once_around" or not self.bidding_done():
            if self.money[seat] > self.high:
                return self.ask(seat, "bid", (self.high + 1, self.money[seat]))
            self.passes += 1
            if self.kind == "once_around" and seat == self.auctioneer:
                break
            seat = self.left_of(seat)
        self.close_bidding()

    def on_bid(self, bid) -> None:
        seat = self.seat
        if bid is None:
            self.passes += 1
        else:
            self.high, self.high_bidder, self.passes = bid, seat, 0
        if self.kind == "once_around" and seat == self.auctioneer:
            return self.close_bidding()
        self.ask_bid(self.left_of(seat))

    def close_bidding(self) -> None:
        if self.high_bidder is None:
            self.sell(self.auctioneer, 0)
        else:
            self.sell(self.high_bidder, self.high)

    def ask_sealed(self, seat: int) -> None:
        """Collect sealed bids clockwise, the auctioneer last; a seat without money offers 0."""
        while not self.money[seat]:
            if seat == self.auctioneer:
                return self.reveal()
            seat = self.left_of(seat)
        self.ask(seat, "sealed_bid", self.money[seat])

    def on_sealed_bid(self, bid: int) -> None:
        self.sealed[self.seat] = bid
        if self.seat == self.auctioneer:
            return self.reveal()
        self.ask_sealed(self.left_of(self.seat))

    def reveal(self) -> None:
        """The highest offer wins; ties go to the auctioneer, else the nearest seat clockwise from it."""
        best = max(self.sealed)
        winner = self.auctioneer
        while self.sealed[winner] != best:
            winner = self.left_of(winner)
        self.sell(winner, best)

    def on_set_price(self, price: int) -> None:
        self.price = price
        self.ask_accept(self.left_of(self.auctioneer))

    def ask_accept(self, seat: int) -> None:
        """Offer the price clockwise to those who can pay it; if all decline, the auctioneer buys."""
        while seat != self.auctioneer:
            if self.money[seat] >= self.price:
                return self.ask(seat, "accept_price", self.price)
            seat = self.left_of(seat)
        self.sell(self.auctioneer, self.price)

    def on_accept_price(self, accept: bool) -> None:
        if accept:
            return self.sell(self.seat, self.price)
        self.ask_accept(self.left_of(self.seat))

    def sell(self, buyer: int, price: int) -> None:
        """``buyer`` pays the auctioneer (the bank, when it is the auctioneer) and takes the lot."""
        self.money[buyer] -= price
        if buyer != self.auctioneer:
            self.money[self.auctioneer] += price
        self.bought[buyer].extend(self.lot)
        self.next_turn()

    # the end of a round, and of the game

    def end_round(self, ender: int) -> None:
        """The top three artists get markers; bought paintings of those artists sell for their value."""
        ranked = sorted((artist for artist in ARTISTS if self.played[artist]),
                        key=lambda artist: -self.played[artist])[:3]
        for marker, artist in zip(MARKERS, ranked):
            self.value[artist] += marker
        for seat, paintings in enumerate(self.bought):
            for artist, _ in paintings:
                if artist in ranked:
                    self.money[seat] += self.value[artist]
        self.next_round(self.left_of(ender))

    def next_round(self, starter: int) -> None:
        if self.round == ROUNDS - 1:
            self.over = True
            self.seat = self.decision = self.legal = None
        else:
            self.round += 1
            self.start_round(starter)


class RandomModernArtPlayer:
    """Random answers with ``modern_art_random``'s odds: a bid passes half the time, all else uniform."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def decide(self, game: ModernArt):
        decision, legal, rng = game.decision, game.legal, self.rng
        if decision == "play_card":
            return rng.choice(legal)
        if decision == "bid":
            return None if rng.random() < 0.5 else rng.randint(*legal)
        if decision == "sealed_bid":
            return rng.randint(0, legal)
        if decision == "set_price":
            return rng.randint(*legal)
        if decision == "accept_price":
            return rng.random() < 0.5
        return rng.choice(legal + [None])  # add_double


# -- Maritime Silk Road --

GOODS = ("porcelain", "silk", "tea", "spice", "glass", "ore")
COSTS = {"ship": 10, "license": 11, "porter": 12, "exchange": 8}
SLOTS = 6


class SilkRoad:
    """One game of Maritime Silk Road; a goods card is its good's name."""

    def __init__(self, players: int, rng: random.Random) -> None:
        self.players = players
        self.deck = [good for good in GOODS for _ in range(11)]
        rng.shuffle(self.deck)
        self.hands = [[self.deck.pop() for _ in range(3)] for _ in range(players)]
        self.market = [self.deck.pop() for _ in range(SLOTS)]
        self.money = [0] * players
        self.ships = [[] for _ in range(players)]
        self.markers = {good: 5 for good in GOODS}
        self.supply = {"ship": 14 - 2 * players, "license": 2, "porter": 2, "exchange": 2}
        self.owned = [{"license": 0, "porter": 0, "exchange": 0} for _ in range(players)]
        self.active = rng.randrange(players)
        self.over = False
        self.seat = self.decision = self.legal = None
        # the setup's loading: clockwise from the first player, first ships, then second ships
        self.setting_up = True
        self.to_load = [(self.active + turn) % players for _ in range(2) for turn in range(players)]
        self.next_load()

    def apply(self, choice) -> None:
        """Carry out the answer of ``self.seat`` to ``self.decision``."""
        getattr(self, "on_" + self.decision)(choice)

    def ask(self, seat: int, decision: str, legal) -> None:
        self.seat, self.decision, self.legal = seat, decision, legal

    def available(self) -> list[str]:
        return [good for good in GOODS if self.markers[good]]

    # loading ships: at setup, and a ship just bought

    def next_load(self) -> None:
        goods = self.available()
        if len(goods) == 1:
            self.on_load_ship(goods[0])
        else:
            self.ask(self.to_load[0], "load_ship", goods)

    def on_load_ship(self, good: str) -> None:
        self.ships[self.to_load.pop(0)].append(good)
        self.markers[good] -= 1
        if self.to_load:
            self.next_load()
        elif self.setting_up:
            self.setting_up = False
            self.start_phase1()
        else:  # a ship bought in phase 1
            self.start_phase2()

    # phase 1: swap, buy or pass

    def start_phase1(self) -> None:
        seat = self.active
        goods = self.available()
        can_swap = len(goods) > 1 or any(cargo != goods[0] for cargo in self.ships[seat])
        buy = [card for card in COSTS if self.supply[card] and COSTS[card] <= self.money[seat]]
        if can_swap or buy:
            max_swaps = 1 + self.owned[seat]["porter"]
            self.ask(seat, "phase1", {"swap": can_swap, "max_swaps": max_swaps, "buy": buy})
        else:
            self.start_phase2()

    def on_phase1(self, choice: tuple) -> None:
        """``("pass",)``, ``("buy", card)`` or ``("swap", [(ship, good), ...])``."""
        seat = self.active
        if choice[0] == "swap":
            for ship, good in choice[1]:
                self.markers[self.ships[seat][ship]] += 1
                self.markers[good] -= 1
                self.ships[seat][ship] = good
        elif choice[0] == "buy":
            card = choice[1]
            self.money[seat] -= COSTS[card]
            self.supply[card] -= 1
            if card == "ship":
                self.to_load = [seat]
                return self.next_load()
            self.owned[seat][card] += 1
        self.start_phase2()

    # phase 2: deliver or draw, then the exchanges' extra draws

    def start_phase2(self) -> None:
        if self.hands[self.active]:
            self.ask(self.active, "phase2", self.hands[self.active])
        else:
            self.draw(2)
            self.offer_extra_draw()

    def on_phase2(self, choice: tuple) -> None:
        """``("draw",)`` or ``("deliver", good, slots)``: one card of ``good`` onto each slot."""
        if choice[0] == "draw":
            self.draw(2)
        else:
            self.deliver(choice[1], choice[2])
        self.offer_extra_draw()

    def deliver(self, good: str, slots: list[int]) -> None:
        """Every player earns (slots showing ``good``) x (its ships carrying it), plus 2 per license."""
        for slot in slots:
            self.hands[self.active].remove(good)
            self.market[slot] = good
        showing = self.market.count(good)
        for seat in range(self.players):
            earned = showing * self.ships[seat].count(good)
            if earned:
                self.money[seat] += earned + 2 * self.owned[seat]["license"]

    def draw(self, count: int) -> None:
        """Draw up to ``count`` cards; drawing the deck's last card ends the game at once."""
        for _ in range(min(count, len(self.deck))):
            self.hands[self.active].append(self.deck.pop())
        if not self.deck:
            self.over = True
            self.seat = self.decision = self.legal = None

    def offer_extra_draw(self) -> None:
        if self.over:
            return
        most = min(self.owned[self.active]["exchange"], len(self.deck))
        if most:
            self.ask(self.active, "extra_draw", most)
        else:
            self.end_turn()

    def on_extra_draw(self, count: int) -> None:
        self.draw(count)
        if not self.over:
            self.end_turn()

    def end_turn(self) -> None:
        self.active = (self.active + 1) % self.players
        self.start_phase1()


class RandomSilkRoadPlayer:
    """Random answers with ``silk_road_random``'s odds: a uniform kind of action, then a uniform instance."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def decide(self, game: SilkRoad):
        decision, legal, rng = game.decision, game.legal, self.rng
        if decision == "phase2":
            if rng.random() < 0.5:
                return ("draw",)
            good = rng.choice(sorted(set(legal)))
            count = rng.randint(1, min(legal.count(good), SLOTS))
            return ("deliver", good, rng.sample(range(SLOTS), count))
        if decision == "phase1":
            kinds = ["pass"]
            if legal["buy"]:
                kinds.append("buy")
            if legal["swap"]:
                kinds.append("swap")
            kind = rng.choice(kinds)
            if kind == "buy":
                return ("buy", rng.choice(legal["buy"]))
            if kind == "swap":
                return ("swap", self.swaps(game, legal["max_swaps"]))
            return ("pass",)
        if decision == "load_ship":
            return rng.choice(legal)
        return rng.randint(0, legal)  # extra_draw

    def swaps(self, game: SilkRoad, max_swaps: int) -> list[tuple[int, str]]:
        """Random ships in random order, each to a random other good available at that moment."""
        ships = game.ships[game.seat]
        markers = dict(game.markers)
        count = self.rng.randint(1, min(max_swaps, len(ships)))
        swaps = []
        for ship in self.rng.sample(range(len(ships)), len(ships)):
            goods = [good for good in GOODS if markers[good] and good != ships[ship]]
            if goods:
                good = self.rng.choice(goods)
                markers[ships[ship]] += 1
                markers[good] -= 1
                swaps.append((ship, good))
                if len(swaps) == count:
                    break
        return swaps


# -- playing --


def play(game, players: list) -> int:
    """Ask whoever must decide until the game is over; the number of decisions asked."""
    decisions = 0
    while not game.over:
        game.apply(players[game.seat].decide(game))
        decisions += 1
    return decisions


def play_modern_art(players: list, rng: random.Random) -> int:
    """One game of Modern Art for ``players`` (3 to 5 deciders), dealt from ``rng``; its decisions."""
    return play(ModernArt(len(players), rng), players)


def play_silk_road(players: list, rng: random.Random) -> int:
    """One game of Maritime Silk Road for ``players`` (2 to 4 deciders), dealt from ``rng``; its decisions."""
    return play(SilkRoad(len(players), rng), players)
