"""What ``mcts`` needs to know of Maritime Silk Road: the actions worth searching, a rollout policy, rewards.

The search runs thousands of simulated decisions per real one, so this
policy reads the (determinized) engine state directly (``hands``,
``market_goods``, ``ships``, ``licenses``, ``markers``, ``deck``) rather than
building a view per decision; goods are the engine's indices into
``arena.games.silk_road.cards.GOODS`` and become names only in actions. Both
the tree and the rollouts follow one plan per turn: the good the seat would
deliver (the one its hand and ships make pay most over the other players),
ships moved onto it first.

- Tree actions, the plan's action first: every load and extra-draw count; in
  phase 1 pass, each affordable special card, and moving the least useful
  ship(s) to each of the most promising goods; in phase 2 drawing, and
  delivering each good held on the slots where it pays the seat most against
  the others.
- Rollouts: the plan's action; special cards (but ships) bought while
  enough of the deck is left for them to pay back.
- A rollout stops after :data:`ROLLOUT_TURNS` turns of each player (or at
  the game's end) and scores each player's money plus the income its ships
  and licenses can be expected to bring over the turns the deck has left
  (:func:`outlook`), in the terms of :func:`arena_bots.mcts_search.rewards`.
  A game-long rollout is some ninety decisions; a few turns tell most of
  what a decision changes, at a fraction of the cost.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.silk_road.cards import CARDS_PER_GOOD, GOOD_INDEX, GOODS, LICENSE_BONUS, SLOTS
from arena_bots.mcts_search import rewards

GOOD_RANGE = range(len(GOODS))
#: how many goods a phase-1 swap is searched towards
SWAP_TARGETS = 3
#: the least deck size (cards) at which the plan buys each special card; it never buys a ship
#: (measured against ``trader``, ships bought by rule cost more than they earned; the tree still
#: weighs buying one)
BUY_WHEN_DECK = {"license": 24, "porter": 40, "exchange": 34}
#: what a card kept in hand is worth (coins), against delivering it now
CARD_WORTH = 0.5
#: the least gain over the others (coins), net of the cards' worth, for the plan to deliver
DELIVERY_THRESHOLD = 2.5
#: turns of each player a rollout plays before it is scored
ROLLOUT_TURNS = 3
#: cards an average turn takes from the deck, and deliveries per turn (random-ish play measured)
CARDS_PER_TURN = 1.3
DELIVERIES_PER_TURN = 0.5
#: the weight of the expected future income against money in hand (it is uncertain)
OUTLOOK_WEIGHT = 0.6


def outlook(state: Any) -> list[float]:
    """Each player's money plus the weighted income its ships and licenses may still bring.

    Per turn left, a delivery of a good comes with :data:`DELIVERIES_PER_TURN`
    chance, each good alike; it pays a ship on that good the slots then
    showing it (those showing now, plus about one), and a license its bonus.
    """
    turns_left = len(state.deck) / CARDS_PER_TURN
    showing = [0] * len(GOODS)
    for good in state.market_goods:
        if good >= 0:
            showing[good] += 1
    per_good = DELIVERIES_PER_TURN / len(GOODS)
    values = []
    for coins, ships, licenses in zip(state.coins, state.ships, state.licenses):
        rate = 0.0
        goods = set()
        for good in ships:
            if good >= 0:
                rate += (showing[good] + 1) * per_good
                goods.add(good)
        rate += LICENSE_BONUS * licenses * len(goods) * per_good
        values.append(coins + OUTLOOK_WEIGHT * turns_left * rate)
    return values


class Table:
    """One seat's reading of a state: its hand by good, the market, the ships, and the plan."""

    def __init__(self, state: Any, seat: int) -> None:
        self.state = state
        self.seat = seat
        ships = state.ships
        licenses = state.licenses
        self.others = state.players - 1
        self.ships = ships[seat]
        self.license = licenses[seat]
        #: per good: this seat's ships on it, the other players' ships on it, and the license
        #: bonuses a delivery of it pays them (each other player with a ship on it earns its bonus)
        self.own_ships = own = [0] * len(GOODS)
        for cargo in self.ships:
            if cargo >= 0:
                own[cargo] += 1
        self.their_ships = theirs = [0] * len(GOODS)
        self.their_bonus = bonus = [0] * len(GOODS)
        for other, cargoes in enumerate(ships):
            if other != seat:
                for good in set(cargoes):
                    if good >= 0:
                        bonus[good] += LICENSE_BONUS * licenses[other]
                for good in cargoes:
                    if good >= 0:
                        theirs[good] += 1
        self.in_hand: list[list[int]] = [[], [], [], [], [], []]
        for card in state.hands[seat]:
            self.in_hand[card // CARDS_PER_GOOD].append(card)
        self.market = market = state.market_goods
        #: slots in the order to cover them: those paying the others most over this seat first
        others = self.others
        harm = [-1.0 if good < 0 else theirs[good] / others - own[good] for good in market]
        self.cover_order = sorted(range(SLOTS), key=harm.__getitem__, reverse=True)

    def delivery(self, good: int, ships: int | None = None) -> tuple[float, dict] | None:
        """The net gain and action of delivering every useful card of ``good`` (None: nothing useful).

        ``ships``: count this seat's ships on ``good`` as that many (a plan to swap first).
        """
        cards = self.in_hand[good]
        if not cards:
            return None
        market = self.market
        open_slots = [slot for slot in self.cover_order if market[slot] != good]
        count = min(len(cards), len(open_slots))
        if not count:
            return None
        showing = SLOTS - len(open_slots) + count
        own = self.own_ships[good] if ships is None else ships
        gain = showing * own + LICENSE_BONUS * self.license if own else 0
        others = showing * self.their_ships[good] + self.their_bonus[good]
        net = gain - others / self.others - CARD_WORTH * count
        return net, {"action": "play", "cards": cards[:count], "slots": open_slots[:count]}

    def deliveries(self) -> list[tuple[float, dict]]:
        """Every good's delivery, best first."""
        found = [option for option in map(self.delivery, GOOD_RANGE) if option is not None]
        found.sort(key=lambda option: -option[0])
        return found

    def good_promise(self, good: int) -> int:
        """How much a ship carrying ``good`` may soon earn: cards held and market slots showing it."""
        return 2 * len(self.in_hand[good]) + self.market.count(good) if good >= 0 else 0

    def name_promise(self, name: str) -> int:
        return self.good_promise(GOOD_INDEX[name])

    def swaps_to(self, good: int, most: int) -> list[dict]:
        """Move up to ``most`` of the least promising ships not carrying ``good`` onto it."""
        ships = self.ships
        order = sorted((ship for ship in range(len(ships)) if ships[ship] != good),
                       key=lambda ship: self.good_promise(ships[ship]))
        name = GOODS[good]
        return [{"ship": ship, "good": name} for ship in order[: min(most, self.state.markers[good])]]

    def planned_swap(self, swap: dict) -> list[dict]:
        """The swaps that most raise the next delivery's gain (empty when none raises it)."""
        best_gain, best = 0.0, []
        have = self.own_ships
        for name in swap["goods"]:
            good = GOOD_INDEX[name]
            if not self.in_hand[good]:
                continue
            swaps = self.swaps_to(good, swap["max_swaps"])
            if not swaps:
                continue
            now = self.delivery(good)
            after = self.delivery(good, have[good] + len(swaps))
            if after is None:
                continue
            gain = after[0] - (now[0] if now else 0.0) - sum(self.good_promise(self.ships[s["ship"]])
                                                              for s in swaps) / 2
            if gain > best_gain:
                best_gain, best = gain, swaps
        return best

    def purchase(self, affordable: list[str]) -> str | None:
        """The first affordable special card with enough of the deck left to pay back."""
        deck = len(self.state.deck)
        return next((card for card in affordable if deck >= BUY_WHEN_DECK.get(card, deck + 1)), None)


class SilkRoadPolicy:
    """Tree actions, rollout actions and rewards for one seat's search in Silk Road."""

    rollout_limit = 5000  # a whole game always fits: rollouts end with the game

    def candidates(self, state: Any) -> list[dict]:
        """The actions searched, the plan's first."""
        decision, legal = state.decision, state.legal
        if decision == "extra_draw":
            return [{"count": count} for count in range(legal["max"], -1, -1)]
        table = Table(state, state.seat)
        if decision == "load_ship":
            return [{"good": good} for good in sorted(legal["goods"], key=table.name_promise, reverse=True)]
        planned = self.plan(decision, legal, table)
        if decision == "phase2":
            options = [planned] + [option[1] for option in table.deliveries()] + [{"action": "draw"}]
        else:
            options = [planned, {"action": "pass"}] + [{"action": "buy", "card": card} for card in legal["buy"]]
            swap = legal["swap"]
            if swap is not None:
                targets = sorted(swap["goods"], key=table.name_promise, reverse=True)[:SWAP_TARGETS]
                for name in targets:
                    swaps = table.swaps_to(GOOD_INDEX[name], swap["max_swaps"])
                    if swaps:
                        options.append({"action": "swap", "swaps": swaps})
        unique = []
        for option in options:
            if option not in unique:
                unique.append(option)
        return unique

    def playout(self, state: Any, rng: random.Random) -> None:
        """Play on with rollout actions for :data:`ROLLOUT_TURNS` turns of each player, or to the end."""
        turns = ROLLOUT_TURNS * state.players
        active = state.active
        rollout = self.rollout
        while state.seat is not None:
            if state.active != active:
                active = state.active
                turns -= 1
                if not turns:
                    return
            state.apply(rollout(state, rng))

    def rollout(self, state: Any, rng: random.Random) -> dict:
        """The plan's action; a load takes the most promising good, ties broken at random."""
        decision, legal = state.decision, state.legal
        if decision == "extra_draw":
            return {"count": legal["max"]}
        table = Table(state, state.seat)
        if decision == "load_ship":
            return {"good": max(legal["goods"], key=lambda name: (table.name_promise(name), rng.random()))}
        return self.plan(decision, legal, table)

    def plan(self, decision: str, legal: dict, table: Table) -> dict:
        """Phase 1: buy a card that pays back, else swap towards the next delivery, else pass.
        Phase 2: deliver the best good when it gains enough over the others (or the deck is
        nearly out), else draw."""
        if decision == "phase2":
            best = table.deliveries()
            if best and (best[0][0] >= DELIVERY_THRESHOLD or len(table.state.deck) <= 2):
                return best[0][1]
            return {"action": "draw"}
        card = table.purchase(legal["buy"])
        if card is not None:
            return {"action": "buy", "card": card}
        if legal["swap"] is not None:
            swaps = table.planned_swap(legal["swap"])
            if swaps:
                return {"action": "swap", "swaps": swaps}
        return {"action": "pass"}

    def evaluate(self, state: Any) -> list[float]:
        return rewards(state.money() if state.seat is None else outlook(state))
