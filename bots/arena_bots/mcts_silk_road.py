"""What ``mcts`` needs to know of Maritime Silk Road: the actions worth searching, a rollout policy, rewards.

The search runs thousands of simulated decisions per real one, so this
policy reads the (determinized) engine state directly rather than building a
view per decision, through ``trader``'s :class:`~arena_bots.silk_road_heuristic.Table`;
goods are the engine's indices into ``arena.games.silk_road.cards.GOODS`` and
become names only in actions.

- Tree actions, ``trader``'s action first (its progressive bias makes the
  search start from that play): every load and extra-draw count; in phase 1
  pass, each affordable special card, and moving the least worth ship(s) to
  each of the most promising goods; in phase 2 drawing, and each good's best
  delivery.
- Rollouts: ``trader``'s rules for every seat, which is how the usual
  opponents play (computed by :class:`~arena_bots.mcts_trader.FastTable`:
  the same actions, about 1.7 times the rollouts per second).
- A rollout stops after :data:`ROLLOUT_TURNS` turns of each player (or at
  the game's end) and scores each player's money plus the income its ships
  and licenses can be expected to bring over the turns the deck has left
  (:func:`outlook`). The reward is the lead over the best rival through a
  tanh (:func:`lead_rewards`): smooth in every coin, and about winning.
  A game-long rollout is some ninety decisions; a few turns tell most of
  what a decision changes, at a fraction of the cost.
- The bank goes mostly to the decisions once the deck is down to
  :data:`ENDGAME_DECK` cards (:meth:`SilkRoadPolicy.bank_weight`): the search
  gains most there, and its rollouts, played to the end, cost most.
"""

from __future__ import annotations

import math
import random
from typing import Any

from arena.games.silk_road.cards import GOOD_INDEX, GOODS, LICENSE_BONUS
from arena_bots.mcts_trader import FastTable
from arena_bots.silk_road_heuristic import Table, trader_action

GOOD_RANGE = range(len(GOODS))
#: how many goods a phase-1 swap is searched towards
SWAP_TARGETS = 3
#: turns of each player a rollout plays before it is scored, and the deck size (cards) from which
#: rollouts play to the game's end instead (short enough then, and scored by the final money)
ROLLOUT_TURNS = 3
ENDGAME_DECK = 20
#: cards an average turn takes from the deck, and deliveries per turn (random-ish play measured)
CARDS_PER_TURN = 1.3
DELIVERIES_PER_TURN = 0.5
#: the weight of the expected future income against money in hand (it is uncertain)
OUTLOOK_WEIGHT = 0.6
#: what a card in hand is worth (coins) with many turns left: it is a future delivery
HAND_CARD_WORTH = 1.5
#: the scale of the lead over the best rival (coins): a lead of this much earns a reward of 0.88, a
#: draw 0.5, a deficit of this much 0.12
LEAD_SCALE = 10.0
#: how much of the bank a decision spends, early in the game and once the deck is down to ENDGAME_DECK
#: cards (times mcts's share): late decisions are closer to the result and the search gains more there
#: (and its rollouts, played to the end, cost more)
EARLY_BANK_WEIGHT = 0.5
LATE_BANK_WEIGHT = 3.0
#: the margin in mean reward by which another action must beat ``trader``'s in the paired search
PREFERENCE = 0.015


def lead_rewards(money: list[float]) -> list[float]:
    """Each seat's reward in [0, 1]: its lead over the best of the others, through a tanh.

    Winning is having more than the best rival, and a smooth measure of the
    lead tells actions apart with fewer rollouts than the rank does; the tanh
    keeps a runaway lead (or deficit) from outweighing the close games, where
    actions change who wins.
    """
    order = sorted(money, reverse=True)
    top, second = order[0], order[1]
    return [0.5 + 0.5 * math.tanh((mine - (second if mine == top else top)) / LEAD_SCALE) for mine in money]


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
    card = HAND_CARD_WORTH * min(1.0, turns_left / (4 * state.players))
    return [value + card * len(hand) for value, hand in zip(values, state.hands)]


def swaps_to(table: Table, good: int, most: int) -> list[dict]:
    """Move up to ``most`` of the least worth ships not carrying ``good`` onto it (tree actions)."""
    ships = table.ships
    order = sorted((ship for ship in range(len(ships)) if ships[ship] != good),
                   key=lambda ship: table.ship_worth(ships[ship]) if ships[ship] >= 0 else -1.0)
    name = GOODS[good]
    return [{"ship": ship, "good": name} for ship in order[: min(most, table.state.markers[good])]]


class SilkRoadPolicy:
    """Tree actions, rollout actions and rewards for one seat's search in Silk Road."""


    rollout_limit = 5000  # a whole game always fits: rollouts end with the game
    #: judge the root actions on common deals (:class:`arena_bots.mcts_search.PairedSearch`)
    paired = True
    preference = PREFERENCE

    def candidates(self, state: Any) -> list[dict]:
        """The actions searched, the plan's first."""
        decision, legal = state.decision, state.legal
        table = Table(state, state.seat)
        if decision == "extra_draw":
            planned = table.extra_draws(legal["max"])
            return [{"count": planned}] + [{"count": count} for count in range(legal["max"], -1, -1)
                                           if count != planned]
        if decision == "load_ship":
            return [{"good": good} for good in sorted(legal["goods"], key=table.name_worth, reverse=True)]
        planned = trader_action(decision, legal, table)
        if decision == "phase2":
            options = [planned] + [option[1] for option in table.deliveries()] + [{"action": "draw"}]
        else:
            options = [planned, {"action": "pass"}] + [{"action": "buy", "card": card} for card in legal["buy"]]
            swap = legal["swap"]
            if swap is not None:
                targets = sorted(swap["goods"], key=table.name_worth, reverse=True)[:SWAP_TARGETS]
                for name in targets:
                    swaps = swaps_to(table, GOOD_INDEX[name], swap["max_swaps"])
                    if swaps:
                        options.append({"action": "swap", "swaps": swaps})
        unique = []
        for option in options:
            if option not in unique:
                unique.append(option)
        return unique

    def bank_weight(self, state: Any) -> float:
        """The weight of this decision in spending the bank (see ``MctsBot.budget_ms``)."""
        return LATE_BANK_WEIGHT if len(state.deck) <= ENDGAME_DECK else EARLY_BANK_WEIGHT

    def playout(self, state: Any, rng: random.Random) -> None:
        """Play on with rollout actions for :data:`ROLLOUT_TURNS` turns of each player, or to the end
        (always to the end once the deck is down to :data:`ENDGAME_DECK` cards: the score is then exact)."""
        turns = ROLLOUT_TURNS * state.players if len(state.deck) > ENDGAME_DECK else None
        active = state.active
        rollout = self.rollout
        while state.seat is not None:
            if state.active != active:
                active = state.active
                if turns is not None:
                    turns -= 1
                    if not turns:
                        return
            state.apply(rollout(state, rng))

    def rollout(self, state: Any, rng: random.Random) -> dict:
        """The plan's action (``trader``'s play)."""
        return trader_action(state.decision, state.legal, FastTable(state, state.seat))

    def evaluate(self, state: Any) -> list[float]:
        return lead_rewards(state.money() if state.seat is None else outlook(state))
