"""What ``mcts`` needs to know of Maritime Silk Road: the actions worth searching, a rollout policy, rewards.

Everything is read from the seat's view of a (determinized) state, through
the public ``view``/``legal`` interface only. Both the tree and the rollouts
follow one plan per turn: the good the seat would deliver (the one its hand
and ships make pay most over the other players), ships moved onto it first.

- Tree actions, the plan's action first: every load and extra-draw count; in
  phase 1 pass, each affordable special card, and moving the least useful
  ship(s) to each of the most promising goods; in phase 2 drawing, and
  delivering each good held on the slots where it pays the seat most against
  the others.
- Rollouts: the plan's action; special cards (but ships) bought while
  enough of the deck is left for them to pay back.
- Rewards: see :func:`arena_bots.mcts_search.rewards`; games are played to the end.
"""

from __future__ import annotations

import random
from typing import Any

from arena_bots.mcts_search import rewards

GOODS = ("porcelain", "silk", "tea", "spice", "glass", "ore")
SLOTS = 6
LICENSE_BONUS = 2
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


class Table:
    """One seat's reading of a view: its hand by good, the market, the ships, and the plan."""

    def __init__(self, view: dict) -> None:
        self.view = view
        seat = view["seat"]
        players = view["players"]
        self.mine = players[seat]
        others = [player for other, player in enumerate(players) if other != seat]
        #: per good: this seat's ships on it, and each other player's (ships, licenses)
        self.own_ships = {good: self.mine["ships"].count(good) for good in GOODS}
        self.their_ships = {good: [(player["ships"].count(good), player["license"]) for player in others]
                            for good in GOODS}
        self.in_hand = {good: [] for good in GOODS}
        for card in view["hand"]:
            self.in_hand[card["good"]].append(card["id"])
        self.market = [None if card is None else card["good"] for card in view["market"]]
        #: slots in the order to cover them: those paying the others most over this seat first
        harm = [-1.0 if good is None else
                sum(ships for ships, _ in self.their_ships[good]) / len(others) - self.own_ships[good]
                for good in self.market]
        self.cover_order = sorted(range(SLOTS), key=lambda slot: -harm[slot])

    def delivery(self, good: str, ships: int | None = None) -> tuple[float, dict] | None:
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
        gain = showing * own + LICENSE_BONUS * self.mine["license"] if own else 0
        theirs = self.their_ships[good]
        others = sum(showing * ships + LICENSE_BONUS * licenses for ships, licenses in theirs if ships)
        net = gain - others / len(theirs) - CARD_WORTH * count
        return net, {"action": "play", "cards": cards[:count], "slots": open_slots[:count]}

    def deliveries(self) -> list[tuple[float, dict]]:
        """Every good's delivery, best first."""
        found = [option for option in map(self.delivery, GOODS) if option is not None]
        found.sort(key=lambda option: -option[0])
        return found

    def good_promise(self, good: str) -> int:
        """How much a ship carrying ``good`` may soon earn: cards held and market slots showing it."""
        return 2 * len(self.in_hand[good]) + self.market.count(good)

    def swaps_to(self, good: str, most: int) -> list[dict]:
        """Move up to ``most`` of the least promising ships not carrying ``good`` onto it."""
        ships = self.mine["ships"]
        order = sorted((ship for ship in range(len(ships)) if ships[ship] != good),
                       key=lambda ship: self.good_promise(ships[ship]))
        return [{"ship": ship, "good": good} for ship in order[: min(most, self.view["markers"][good])]]

    def planned_swap(self, swap: dict) -> list[dict]:
        """The swaps that most raise the next delivery's gain (empty when none raises it)."""
        best_gain, best = 0.0, []
        have = self.own_ships
        for good in swap["goods"]:
            if not self.in_hand[good]:
                continue
            swaps = self.swaps_to(good, swap["max_swaps"])
            if not swaps:
                continue
            now = self.delivery(good)
            after = self.delivery(good, have[good] + len(swaps))
            if after is None:
                continue
            gain = after[0] - (now[0] if now else 0.0) - sum(self.good_promise(self.mine["ships"][s["ship"]])
                                                              for s in swaps) / 2
            if gain > best_gain:
                best_gain, best = gain, swaps
        return best

    def purchase(self, affordable: list[str]) -> str | None:
        """The first affordable special card with enough of the deck left to pay back."""
        deck = self.view["deck"]
        return next((card for card in affordable if deck >= BUY_WHEN_DECK.get(card, deck + 1)), None)


class SilkRoadPolicy:
    """Tree actions, rollout actions and rewards for one seat's search in Silk Road."""

    rollout_limit = 5000  # a whole game always fits: rollouts end with the game

    def candidates(self, state: Any) -> list[dict]:
        """The actions searched, the plan's first."""
        decision, legal = state.decision, state.legal
        if decision == "extra_draw":
            return [{"count": count} for count in range(legal["max"], -1, -1)]
        table = Table(state.view(state.seat))
        if decision == "load_ship":
            return [{"good": good} for good in sorted(legal["goods"], key=table.good_promise, reverse=True)]
        planned = self.plan(decision, legal, table)
        if decision == "phase2":
            options = [planned] + [option[1] for option in table.deliveries()] + [{"action": "draw"}]
        else:
            options = [planned, {"action": "pass"}] + [{"action": "buy", "card": card} for card in legal["buy"]]
            swap = legal["swap"]
            if swap is not None:
                targets = sorted(swap["goods"], key=table.good_promise, reverse=True)[:SWAP_TARGETS]
                for good in targets:
                    swaps = table.swaps_to(good, swap["max_swaps"])
                    if swaps:
                        options.append({"action": "swap", "swaps": swaps})
        unique = []
        for option in options:
            if option not in unique:
                unique.append(option)
        return unique

    def rollout(self, state: Any, rng: random.Random) -> dict:
        """The plan's action; a load takes the most promising good, ties broken at random."""
        decision, legal = state.decision, state.legal
        if decision == "extra_draw":
            return {"count": legal["max"]}
        table = Table(state.view(state.seat))
        if decision == "load_ship":
            return {"good": max(legal["goods"], key=lambda good: (table.good_promise(good), rng.random()))}
        return self.plan(decision, legal, table)

    def plan(self, decision: str, legal: dict, table: Table) -> dict:
        """Phase 1: buy a card that pays back, else swap towards the next delivery, else pass.
        Phase 2: deliver the best good when it gains enough over the others (or the deck is
        nearly out), else draw."""
        if decision == "phase2":
            best = table.deliveries()
            if best and (best[0][0] >= DELIVERY_THRESHOLD or table.view["deck"] <= 2):
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
        return rewards(state.money())
