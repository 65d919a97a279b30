"""``trader``'s rules for ``mcts``'s Silk Road rollouts, computed faster: the same actions.

A rollout asks ``trader``'s rules for every simulated decision, and most of
their time goes to scoring deliveries: :meth:`Table.delivery` sorts the open
slots and sums their cover for every good and every number of cards, and a
phase 1 scores them all again to find the good about to be delivered.
:class:`FastTable` sorts each good's open slots once and scores every
number of cards from running sums, in the same order of operations, so the
scores, the ties and so the actions are those of :class:`Table` (a test
compares them on many states).
"""

from __future__ import annotations

from typing import Any

from arena.games.silk_road.cards import CARDS_PER_GOOD, GOODS, LICENSE_BONUS, SLOTS
from arena_bots.silk_road_heuristic import CARD_WORTH, CARDS_PER_TURN, COVER_WEIGHT, Table

GOOD_RANGE = range(len(GOODS))
SLOT_RANGE = range(SLOTS)


class FastTable(Table):
    """:class:`Table` with each good's deliveries scored in one pass (and no ``their_rows``)."""

    def __init__(self, state: Any, seat: int) -> None:
        # Table.__init__ not called: the same fields (but their_rows, unread), filled faster
        self.state = state
        self.seat = seat
        ships = state.ships
        licenses = state.licenses
        players = state.players
        self.others = others = players - 1
        self.ships = mine = ships[seat]
        self.license = licenses[seat]
        coins = state.coins
        money = coins[seat]
        self.leading = all(money > coins[other] for other in range(players) if other != seat)
        self.own_ships = own = [0, 0, 0, 0, 0, 0]
        for cargo in mine:
            if cargo >= 0:
                own[cargo] += 1
        self.their_ships = theirs = [0, 0, 0, 0, 0, 0]
        self.their_bonus = bonus = [0, 0, 0, 0, 0, 0]
        for other in range(players):
            if other != seat:
                extra = LICENSE_BONUS * licenses[other]
                for good in set(ships[other]):
                    if good >= 0:
                        bonus[good] += extra
                for good in ships[other]:
                    if good >= 0:
                        theirs[good] += 1
        self.in_hand = in_hand = [[], [], [], [], [], []]
        for card in state.hands[seat]:
            in_hand[card // CARDS_PER_GOOD].append(card)
        self.market = market = state.market_goods
        self.showing = showing = [0, 0, 0, 0, 0, 0]
        for good in market:
            if good >= 0:
                showing[good] += 1
        self.harm = [0.0 if good < 0 else COVER_WEIGHT * (theirs[good] / others - own[good]) for good in market]
        self.deck = deck = len(state.deck)
        self.turns_left = turns_left = deck / (CARDS_PER_TURN * players)
        self.card_worth = CARD_WORTH * min(1.0, turns_left / 4)
        self.slot_order = sorted(SLOT_RANGE, key=self.harm.__getitem__, reverse=True)

    def scores(self, good: int) -> tuple[list[float], list[int]]:
        """The scores of delivering 1, 2, ... of the held cards of ``good`` (as :meth:`Table.delivery`),
        and the open slots in the order they are covered."""
        market, harm = self.market, self.harm
        # the slots by harm, most first, ties in slot order (a stable sort), without those showing the good:
        # the order Table.delivery sorts them in
        open_slots = [slot for slot in self.slot_order if market[slot] != good]
        free = len(open_slots)
        own = self.own_ships[good]
        bonus = LICENSE_BONUS * self.license
        theirs, their_bonus, others = self.their_ships[good], self.their_bonus[good], self.others
        card_worth = self.card_worth
        base = self.showing[good]
        found = []
        cover = 0
        for count in range(1, min(len(self.in_hand[good]), SLOTS) + 1):
            if count <= free:
                cover += harm[open_slots[count - 1]]
                showing = base + count
            else:
                showing = base + free
            gain = showing * own + bonus if own else 0
            found.append(gain - (showing * theirs + their_bonus) / others + cover - card_worth * count)
        return found, open_slots

    def action(self, good: int, count: int, open_slots: list[int]) -> dict:
        """The delivery of ``count`` cards of ``good`` (the slots :meth:`Table.delivery` covers)."""
        slots = open_slots[:count]
        if len(slots) < count:
            market = self.market
            slots += [slot for slot in SLOT_RANGE if market[slot] == good][: count - len(slots)]
        return {"action": "play", "cards": self.in_hand[good][:count], "slots": slots}

    def best_counts(self) -> list[tuple[float, int, int, list[int]]]:
        """Per good held: its best score, the good, the number of cards (the fewest of equal scores)
        and the open slots."""
        found = []
        in_hand = self.in_hand
        for good in GOOD_RANGE:
            if in_hand[good]:
                scores, open_slots = self.scores(good)
                best = max(scores)
                found.append((best, good, scores.index(best) + 1, open_slots))
        return found

    def deliveries(self) -> list[tuple[float, dict]]:
        found = self.best_counts()
        found.sort(key=lambda option: -option[0])
        return [(score, self.action(good, count, open_slots)) for score, good, count, open_slots in found]

    def phase2(self) -> dict:
        if self.deck <= 2 and self.leading:
            return {"action": "draw"}
        found = self.best_counts()
        must_play = self.deck <= 2 and not self.leading
        if not found:
            return {"action": "draw"}
        score, good, count, open_slots = max(found, key=lambda option: option[0])  # the first of equals
        if score <= 2 * self.card_worth and not must_play:
            return {"action": "draw"}
        return self.action(good, count, open_slots)

    def target(self) -> int | None:
        found = self.best_counts()
        if not found:
            return None
        return max((score, GOODS[good], good) for score, good, _, _ in found)[2]
