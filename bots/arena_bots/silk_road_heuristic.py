"""``trader``: a Silk Road heuristic that counts coins: its own against the other players'.

- Deliveries: for each good in hand and each number of its cards, the income
  the delivery pays this seat minus what it pays the average other player,
  less what the cards would be worth kept; the covered slots are those whose
  goods help the others most. It draws instead when no delivery beats the
  worth of two new cards, and ends the game by drawing when it leads.
- Ships: each good is worth what the seat can expect from a ship carrying it
  (market showing, own cards of it, the others' ships that will deliver it);
  loads take the best, swaps move the weakest ships to better goods, first of
  all to the good it is about to deliver.
- Special cards: bought when their expected return over the turns left
  (estimated from the deck's size) beats their cost.
"""

from __future__ import annotations

from arena.games.silk_road.cards import CARDS_PER_GOOD, COSTS, GOODS, LICENSE_BONUS, SLOTS

#: cards an average turn takes from the deck (deliveries take none, draws two, exchanges more)
CARDS_PER_TURN = 1.3
#: what a card in hand is worth, with many turns left
CARD_WORTH = 1.5
#: how much a better good must be worth before a ship is swapped to it
SWAP_MARGIN = 1.5
#: how much more than its cost a special card must be expected to return
BUY_MARGIN = 1.1
#: a ship's worth per card of its good in hand, and per other player's ship carrying it
HAND_WEIGHT = 1.5
RIVAL_SHIP_WEIGHT = 0.5
#: how much covering a slot is worth per ship more that the others carry of its good
COVER_WEIGHT = 0.3
#: expected return per turn left: of a ship (times the best ship worth), a license, an exchange
#: (times a card's worth) and a porter
SHIP_RETURN = 0.4
LICENSE_RETURN = 0.6 * LICENSE_BONUS
EXCHANGE_RETURN = 0.6
PORTER_RETURN = 0.3


class SilkRoadHeuristic:
    """Delivers for the best own income over rivals', steers ships to its cards, buys cards that pay back."""

    def decide(self, request: dict) -> dict:
        view = request["view"]
        legal = request["legal"]
        decision = request["decision"]
        table = Table(view)
        if decision == "phase2":
            return table.phase2()
        if decision == "phase1":
            return table.phase1(legal)
        if decision == "load_ship":
            return {"good": max(legal["goods"], key=table.ship_worth)}
        return {"count": table.extra_draws(legal["max"])}


class Table:
    """One decision's reading of the view: counts per good and the estimates built on them."""

    def __init__(self, view: dict) -> None:
        self.me = view["seat"]
        self.players = view["players"]
        self.others = [player for seat, player in enumerate(self.players) if seat != self.me]
        self.mine = self.players[self.me]
        self.hand = [card["id"] for card in view["hand"]]
        self.in_hand = {good: 0 for good in GOODS}
        for card in view["hand"]:
            self.in_hand[card["good"]] += 1
        self.market = [None if card is None else card["good"] for card in view["market"]]
        self.showing = {good: self.market.count(good) for good in GOODS}
        self.markers = view["markers"]
        self.deck = view["deck"]
        self.supply = view["supply"]
        #: turns this seat can still expect to play
        self.turns_left = self.deck / (CARDS_PER_TURN * len(self.players))
        self.card_worth = CARD_WORTH * min(1.0, self.turns_left / 4)

    # -- worth of goods and ships --

    def ships_on(self, player: dict, good: str) -> int:
        return player["ships"].count(good)

    def payout(self, player: dict, good: str, showing: int) -> int:
        pay = showing * self.ships_on(player, good)
        return pay + LICENSE_BONUS * player["license"] if pay else 0

    def ship_worth(self, good: str) -> float:
        """What a ship of this seat carrying ``good`` may expect to earn."""
        others_ships = sum(self.ships_on(player, good) for player in self.others)
        return self.showing[good] + HAND_WEIGHT * self.in_hand[good] + RIVAL_SHIP_WEIGHT * others_ships

    def slot_harm(self, slot: int) -> float:
        """How much the good showing in ``slot`` helps the others more than this seat (cover it first)."""
        good = self.market[slot]
        if good is None:
            return 0.0
        theirs = sum(self.ships_on(player, good) for player in self.others) / len(self.others)
        return COVER_WEIGHT * (theirs - self.ships_on(self.mine, good))

    # -- phase 2 --

    def delivery(self, good: str, count: int) -> tuple[float, list[int], list[int]]:
        """The score of delivering ``count`` cards of ``good``, with the cards and slots."""
        cards = [card for card in self.hand if GOODS[card // CARDS_PER_GOOD] == good][:count]
        open_slots = sorted((slot for slot in range(SLOTS) if self.market[slot] != good),
                            key=self.slot_harm, reverse=True)
        slots = open_slots[:count]
        if len(slots) < count:
            slots += [slot for slot in range(SLOTS) if self.market[slot] == good][: count - len(slots)]
        showing = self.showing[good] + min(count, len(open_slots))
        gain = self.payout(self.mine, good, showing)
        others = sum(self.payout(player, good, showing) for player in self.others) / len(self.others)
        cover = sum(self.slot_harm(slot) for slot in slots[: len(open_slots)])
        return gain - others + cover - self.card_worth * count, cards, slots

    def phase2(self) -> dict:
        """Deliver the best-scoring cards, or draw; when the deck is nearly out, end the game if leading."""
        if self.deck <= 2 and self.leading():
            return {"action": "draw"}
        best = None
        for good in GOODS:
            for count in range(1, min(self.in_hand[good], SLOTS) + 1):
                option = self.delivery(good, count)
                if best is None or option[0] > best[0]:
                    best = option
        must_play = self.deck <= 2 and not self.leading()
        if best is None or (best[0] <= 2 * self.card_worth and not must_play):
            return {"action": "draw"}
        return {"action": "play", "cards": best[1], "slots": best[2]}

    def leading(self) -> bool:
        return self.mine["money"] > max(player["money"] for player in self.others)

    def extra_draws(self, most: int) -> int:
        """Take every extra card, except the last one of the deck when that would end a game it trails."""
        if most >= self.deck and not self.leading():
            return most - 1
        return most

    # -- phase 1 --

    def best_delivery_good(self) -> str | None:
        """The good this seat would deliver now, if any."""
        options = [(self.delivery(good, count)[0], good) for good in GOODS
                   for count in range(1, min(self.in_hand[good], SLOTS) + 1)]
        return max(options)[1] if options else None

    def phase1(self, legal: dict) -> dict:
        card = self.purchase(legal["buy"])
        if card is not None:
            return {"action": "buy", "card": card}
        if legal["swap"] is not None:
            swaps = self.swaps(legal["swap"]["max_swaps"])
            if swaps:
                return {"action": "swap", "swaps": swaps}
        return {"action": "pass"}

    def swaps(self, most: int) -> list[dict]:
        markers = dict(self.markers)
        cargo = list(self.mine["ships"])
        target = self.best_delivery_good()

        def worth(good: str) -> float:
            bonus = self.showing[good] + self.in_hand[good] if good == target else 0
            return self.ship_worth(good) + bonus

        swaps = []
        for ship in sorted(range(len(cargo)), key=lambda ship: worth(cargo[ship])):
            if len(swaps) == most:
                break
            choices = [good for good in GOODS if markers[good] and good != cargo[ship]]
            if not choices:
                continue
            good = max(choices, key=worth)
            if worth(good) - worth(cargo[ship]) < SWAP_MARGIN:
                continue
            markers[cargo[ship]] += 1
            markers[good] -= 1
            cargo[ship] = good
            swaps.append({"ship": ship, "good": good})
        return swaps

    def purchase(self, affordable: list[str]) -> str | None:
        """The special card whose expected return beats its cost by the most, if any."""
        turns = self.turns_left
        best_ship = max((self.ship_worth(good) for good in GOODS if self.markers[good]), default=0)
        returns = {
            "ship": turns * SHIP_RETURN * best_ship,
            "license": turns * LICENSE_RETURN,
            "exchange": turns * EXCHANGE_RETURN * self.card_worth,
            "porter": turns * PORTER_RETURN,
        }
        worth = [(returns[card] - BUY_MARGIN * COSTS[card], card) for card in affordable]
        if not worth:
            return None
        gain, card = max(worth)
        return card if gain > 0 else None
