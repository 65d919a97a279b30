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

The rules read a :class:`Table`: one seat's reading of an engine state. The
bot builds that state from its view (``determinize``: the hidden cards are
dealt at random, and the table never reads them), so ``mcts`` can read the
same table from the states it simulates and play these rules in its rollouts.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.silk_road.cards import CARDS_PER_GOOD, COSTS, GOOD_INDEX, GOODS, LICENSE_BONUS, SLOTS
from arena.games.silk_road.determinize import determinize

GOOD_RANGE = range(len(GOODS))

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

    def __init__(self) -> None:
        #: deals the hidden cards of the state read from the view (the table never reads them)
        self.rng = random.Random(0)

    def decide(self, request: dict) -> dict:
        view = request["view"]
        table = Table(determinize(view, self.rng), view["seat"])
        return trader_action(request["decision"], request["legal"], table)


def trader_action(decision: str, legal: dict, table: "Table") -> dict:
    """The action these rules take for ``decision`` with ``legal``, as read by ``table``."""
    if decision == "phase2":
        return table.phase2()
    if decision == "load_ship":
        return {"good": max(legal["goods"], key=table.name_worth)}
    if decision == "extra_draw":
        return {"count": table.extra_draws(legal["max"])}
    card = table.purchase(legal["buy"])
    if card is not None:
        return {"action": "buy", "card": card}
    if legal["swap"] is not None:
        swaps = table.swaps(legal["swap"]["max_swaps"])
        if swaps:
            return {"action": "swap", "swaps": swaps}
    return {"action": "pass"}


class Table:
    """One seat's reading of a state: its hand by good, the market, the ships, and the estimates.

    It reads only what the seat's view shows (its own hand and the public
    table), from the engine's state: ``trader`` builds that state from its
    view, ``mcts`` hands it the states it simulates.
    """

    def __init__(self, state: Any, seat: int) -> None:
        self.state = state
        self.seat = seat
        ships = state.ships
        licenses = state.licenses
        self.others = state.players - 1
        self.ships = ships[seat]
        self.license = licenses[seat]
        coins = state.coins
        self.leading = coins[seat] > max(money for other, money in enumerate(coins) if other != seat)
        #: per good: this seat's ships on it, the other players' ships on it, and the license
        #: bonuses a delivery of it pays them (each other player with a ship on it earns its bonus)
        self.own_ships = own = [0] * len(GOODS)
        for cargo in self.ships:
            if cargo >= 0:
                own[cargo] += 1
        self.their_ships = theirs = [0] * len(GOODS)
        self.their_bonus = bonus = [0] * len(GOODS)
        self.their_rows = []
        for other, cargoes in enumerate(ships):
            if other != seat:
                row = [0] * len(GOODS)
                for good in cargoes:
                    if good >= 0:
                        row[good] += 1
                        theirs[good] += 1
                for good in GOOD_RANGE:
                    if row[good]:
                        bonus[good] += LICENSE_BONUS * licenses[other]
                self.their_rows.append((row, licenses[other]))
        self.in_hand: list[list[int]] = [[], [], [], [], [], []]
        for card in state.hands[seat]:
            self.in_hand[card // CARDS_PER_GOOD].append(card)
        self.market = market = state.market_goods
        self.showing = showing = [0] * len(GOODS)
        for good in market:
            if good >= 0:
                showing[good] += 1
        others = self.others
        #: how much the good showing in each slot helps the others more than this seat (cover it first)
        self.harm = [0.0 if good < 0 else COVER_WEIGHT * (theirs[good] / others - own[good]) for good in market]
        self.deck = len(state.deck)
        self.turns_left = self.deck / (CARDS_PER_TURN * state.players)
        self.card_worth = CARD_WORTH * min(1.0, self.turns_left / 4)

    def ship_worth(self, good: int) -> float:
        """What a ship of this seat carrying ``good`` may expect to earn."""
        return self.showing[good] + HAND_WEIGHT * len(self.in_hand[good]) + RIVAL_SHIP_WEIGHT * self.their_ships[good]

    def name_worth(self, name: str) -> float:
        return self.ship_worth(GOOD_INDEX[name])

    def delivery(self, good: int, count: int) -> tuple[float, dict]:
        """The score of delivering ``count`` cards of ``good`` (``trader``'s), with the action."""
        market, harm = self.market, self.harm
        open_slots = sorted((slot for slot in range(SLOTS) if market[slot] != good), key=harm.__getitem__,
                            reverse=True)
        slots = open_slots[:count]
        if len(slots) < count:
            slots += [slot for slot in range(SLOTS) if market[slot] == good][: count - len(slots)]
        showing = self.showing[good] + min(count, len(open_slots))
        own = self.own_ships[good]
        gain = showing * own + LICENSE_BONUS * self.license if own else 0
        others = (showing * self.their_ships[good] + self.their_bonus[good]) / self.others
        cover = sum(harm[slot] for slot in slots[: len(open_slots)])
        score = gain - others + cover - self.card_worth * count
        return score, {"action": "play", "cards": self.in_hand[good][:count], "slots": slots}

    def deliveries(self) -> list[tuple[float, dict]]:
        """Every good's best delivery (over the number of cards), best first."""
        found = []
        for good in GOOD_RANGE:
            held = len(self.in_hand[good])
            if held:
                found.append(max((self.delivery(good, count) for count in range(1, min(held, SLOTS) + 1)),
                                 key=lambda option: option[0]))
        found.sort(key=lambda option: -option[0])
        return found

    def phase2(self) -> dict:
        """Deliver the best-scoring cards, or draw; when the deck is nearly out, end the game if leading."""
        if self.deck <= 2 and self.leading:
            return {"action": "draw"}
        best = self.deliveries()
        must_play = self.deck <= 2 and not self.leading
        if not best or (best[0][0] <= 2 * self.card_worth and not must_play):
            return {"action": "draw"}
        return best[0][1]

    def target(self) -> int | None:
        """The good this seat would deliver now, if any."""
        options = [(self.delivery(good, count)[0], GOODS[good]) for good in GOOD_RANGE
                   for count in range(1, min(len(self.in_hand[good]), SLOTS) + 1)]
        return GOOD_INDEX[max(options)[1]] if options else None  # ties: the name last in alphabetical order

    def swaps(self, most: int) -> list[dict]:
        """Move the weakest ships to clearly better goods, first of all the good about to be delivered."""
        markers = list(self.state.markers)
        cargo = list(self.ships)
        target = self.target()
        showing, in_hand = self.showing, self.in_hand

        def worth(good: int) -> float:
            if good < 0:
                return -1.0
            bonus = showing[good] + len(in_hand[good]) if good == target else 0
            return self.ship_worth(good) + bonus

        swaps: list[dict] = []
        for ship in sorted(range(len(cargo)), key=lambda ship: worth(cargo[ship])):
            if len(swaps) == most:
                break
            choices = [good for good in GOOD_RANGE if markers[good] and good != cargo[ship]]
            if not choices:
                continue
            good = max(choices, key=worth)
            if worth(good) - worth(cargo[ship]) < SWAP_MARGIN:
                continue
            markers[cargo[ship]] += 1
            markers[good] -= 1
            cargo[ship] = good
            swaps.append({"ship": ship, "good": GOODS[good]})
        return swaps

    def purchase(self, affordable: list[str]) -> str | None:
        """The special card whose expected return beats its cost by the most, if any."""
        if not affordable:
            return None
        turns = self.turns_left
        markers = self.state.markers
        best_ship = max((self.ship_worth(good) for good in GOOD_RANGE if markers[good]), default=0)
        returns = {
            "ship": turns * SHIP_RETURN * best_ship,
            "license": turns * LICENSE_RETURN,
            "exchange": turns * EXCHANGE_RETURN * self.card_worth,
            "porter": turns * PORTER_RETURN,
        }
        gain, card = max((returns[card] - BUY_MARGIN * COSTS[card], card) for card in affordable)
        return card if gain > 0 else None

    def extra_draws(self, most: int) -> int:
        """Take every extra card, except the last one of the deck when that would end a game it trails."""
        return most - 1 if most >= self.deck and not self.leading else most
