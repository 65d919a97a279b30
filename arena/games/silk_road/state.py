"""The rules of Maritime Silk Road as a state machine (rules/silk-road.md).

The state holds everything (every hand, the deck order). After every
``apply`` it stands at the next real choice: ``seat``, ``decision`` and
``legal`` are set, and moves with a single legal action (a phase 2 with an
empty hand, a load with one good left, ...) have been played by the engine.

Inside the engine a good is its index in ``GOODS`` and a ship's cargo is a
good index, or -1 while the ship waits to be loaded. The deck is kept with
its top card last, so drawing pops from the end.

Phases (``phase``, also shown in views): ``loading`` (the setup's loading
round), ``phase1``, ``phase2``, ``extra_draw``, ``over``. Loading a ship bought
in phase 1 happens in ``phase1``: it completes the purchase.
"""

from __future__ import annotations

from bisect import insort
from typing import Any

from arena.errors import IllegalAction, SetupError
from arena.games.base import UNBUILT, CompactLogState, competition_ranks
from arena.games.silk_road.actions import check_extra_draw, check_load, check_phase1, check_phase2
from arena.games.silk_road.cards import (
    CARD_COUNT,
    COSTS,
    DRAW_COUNT,
    GOOD_INDEX,
    GOODS,
    LICENSE_BONUS,
    MARKERS_PER_GOOD,
    SETUP_SHIPS,
    SLOTS,
    SPECIALS,
    good_of,
    special_supply,
)
from arena.games.silk_road.events import RENDERERS
from arena.games.silk_road.views import build_view

CHEAPEST = min(COSTS.values())
_new = object.__new__


class SilkRoadState(CompactLogState):
    """One game of Maritime Silk Road in progress.

    Events are noted compactly (module ``events`` renders them) and built when ``log`` is read.
    """

    renderers = RENDERERS
    #: every field (no ``__dict__``: a state is copied field by field, thousands of times a search)
    __slots__ = ("players", "hands", "market", "market_goods", "covered", "deck", "coins", "ships", "markers",
                 "free_goods", "licenses", "porters", "exchanges", "supply", "first", "active", "phase", "loading",
                 "absent", "seat", "decision", "legal")

    def __init__(self, setup: dict[str, Any], start_money: int) -> None:
        """The state at the first real decision of the (checked) ``setup``."""
        players = setup["players"]
        self.place(
            hands=setup["hands"], market=setup["market"], covered=[], deck=setup["deck"],
            coins=setup.get("money", [start_money] * players),
            ships=[[-1] * SETUP_SHIPS for _ in range(players)],
            specials=[{"license": 0, "porter": 0, "exchange": 0} for _ in range(players)],
            supply=special_supply(players), first=setup["first"], active=setup["first"], phase="loading",
        )
        self._entries.append((None, "setup", players, self.first, tuple(self.market), len(self.deck),
                              tuple(self.coins), tuple(map(len, self.hands))))
        for seat, hand in enumerate(self.hands):
            self._entries.append((seat, "deal", seat, tuple(hand)))
        self.resume()

    def place(self, *, hands: list[list[int]], market: list[int | None], covered: list[int], deck: list[int],
              coins: list[int], ships: list[list[int]], specials: list[dict[str, Any]], supply: dict[str, Any],
              first: int, active: int, phase: str) -> None:
        """Set every field from a position (``deck`` top first; ``ships`` as good indices, -1 unloaded).

        The log starts empty; :meth:`resume` then stands the state at its decision.
        """
        self.players = len(hands)
        self.log = []
        self.hands = [sorted(hand) for hand in hands]
        self.market = list(market)
        self.market_goods = [-1 if card is None else good_of(card) for card in self.market]
        self.covered = sorted(covered)
        self.deck = deck[::-1]
        self.coins = list(coins)
        #: each seat's ships' cargo: tuples, replaced when a ship is bought, loaded or swapped
        self.ships: list[tuple[int, ...]] = [tuple(cargo) for cargo in ships]
        self.markers = [MARKERS_PER_GOOD] * len(GOODS)
        for cargo in self.ships:
            for good in cargo:
                if good >= 0:  # (-1: not loaded yet)
                    self.markers[good] -= 1
        self._count_free_goods()
        # the special cards held and in supply change only on a purchase, which replaces them: clones share them
        self.licenses: tuple[int, ...] = tuple([held["license"] for held in specials])
        self.porters: tuple[int, ...] = tuple([held["porter"] for held in specials])
        self.exchanges: tuple[int, ...] = tuple([held["exchange"] for held in specials])
        self.supply = dict(supply)
        self.first = first
        self.active = active
        self.phase = phase
        self.loading: list[tuple[int, int]] = []
        in_game = sum(map(len, self.hands)) + len(self.deck) + len(self.covered) + SLOTS - self.market.count(None)
        if in_game == CARD_COUNT:
            self.absent: tuple[int, ...] = ()
        else:
            present: set[int | None] = {card for hand in self.hands for card in hand}
            present.update(self.deck, self.covered, self.market)
            self.absent = tuple(card for card in range(CARD_COUNT) if card not in present)

    def resume(self) -> None:
        """Stand at the decision the phase calls for (a game with an empty deck is over)."""
        if not self.deck or self.phase == "over":
            self._finish()
        elif self.phase == "loading":
            self.loading = loading_order(self.players, self.first, self.ships)
            self._ask_load()
        elif self.phase == "phase1":
            ships = self.ships[self.active]
            if -1 in ships:  # a ship bought this turn, not yet loaded
                self.loading = [(self.active, ships.index(-1))]
                self._ask_load()
            else:
                self._begin_phase1()
        elif self.phase == "phase2":
            self._begin_phase2()
        elif self.phase == "extra_draw":
            self._offer_extra_draw()
        else:
            raise SetupError(f"silk-road: unknown phase {self.phase!r} "
                             "(phases: loading, phase1, phase2, extra_draw, over)")

    # -- reading --

    def money(self) -> list[int]:
        return list(self.coins)

    def default_action(self) -> dict[str, Any]:
        decision = self.decision
        if decision == "load_ship":
            assert self.legal is not None  # a seat is deciding
            return {"good": self.legal["goods"][0]}
        if decision == "phase1":
            return {"action": "pass"}
        if decision == "phase2":
            return {"action": "draw"}
        return {"count": 0}

    def view(self, seat: int) -> dict[str, Any]:
        return build_view(self, seat)

    def clone(self) -> "SilkRoadState":
        """A copy of every list the game changes in place; what is only ever replaced is shared (each
        seat's ships and special cards, as tuples; the supply; the free goods; the absent cards). The
        clone builds its own ``log`` from the entries when read (equal events): search bots clone
        thousands of times a decision and never read it."""
        other = _new(SilkRoadState)
        other.players = self.players
        other._entries = self._entries[:]
        other._log = UNBUILT
        other.hands = list(map(list.copy, self.hands))
        other.market = self.market[:]
        other.market_goods = self.market_goods[:]
        other.covered = self.covered[:]
        other.deck = self.deck[:]
        other.coins = self.coins[:]
        other.ships = self.ships[:]
        other.markers = self.markers[:]
        other.free_goods = self.free_goods
        other.licenses = self.licenses
        other.porters = self.porters
        other.exchanges = self.exchanges
        other.supply = self.supply
        other.first = self.first
        other.active = self.active
        other.phase = self.phase
        loading = self.loading
        other.loading = loading[:] if loading else loading
        other.absent = self.absent
        other.seat = self.seat
        other.decision = self.decision
        other.legal = self.legal
        return other

    # -- acting --

    def apply(self, action: dict[str, Any]) -> None:
        decision = self.decision
        if decision == "phase2":
            delivery = check_phase2(self, action)
            if delivery is None:
                self._draw(DRAW_COUNT, "draw")
            else:
                self._deliver(*delivery)
            if self.phase != "over":
                self._offer_extra_draw()
        elif decision == "phase1":
            kind, detail = check_phase1(self, action)
            if kind == "swap":
                self._swap(detail)
            elif kind == "buy":
                self._buy(detail)
                return
            else:
                self._entries.append((None, "pass", self.active))
            self._begin_phase2()
        elif decision == "extra_draw":
            count = check_extra_draw(self, action)
            self._draw(count, "extra_draw")
            if self.phase != "over":
                self._end_turn()
        elif decision == "load_ship":
            self._load(check_load(self, action))
        else:
            raise IllegalAction(f"the game is over; no action is expected, got {action!r}")

    # -- loading --

    def _ask_load(self) -> None:
        seat = self.loading[-1][0]
        goods = self.free_goods
        if len(goods) == 1:
            self._load(GOOD_INDEX[goods[0]])
            return
        self.seat = seat
        self.decision = "load_ship"
        self.legal = {"goods": list(goods)}

    def _load(self, good: int) -> None:
        seat, ship = self.loading.pop()
        ships = self.ships
        cargo = ships[seat]
        ships[seat] = cargo[:ship] + (good,) + cargo[ship + 1:]
        self.markers[good] -= 1
        if not self.markers[good]:
            self._count_free_goods()
        self._entries.append((None, "load", seat, ship, good))
        if self.loading:
            self._ask_load()
        elif self.phase == "loading":
            self.phase = "phase1"
            self._begin_phase1()
        else:
            self._begin_phase2()

    def _count_free_goods(self) -> None:
        """Note the goods with a marker in the supply (after a good ran out or came back)."""
        self.free_goods = tuple([name for name, left in zip(GOODS, self.markers) if left])

    # -- phase 1: swap, buy or pass --

    def _begin_phase1(self) -> None:
        seat = self.active
        free = self.free_goods
        ships = self.ships[seat]
        if len(free) > 1 or (free and any(cargo != GOOD_INDEX[free[0]] for cargo in ships)):
            swap = {"ships": len(ships), "goods": list(free), "max_swaps": 1 + self.porters[seat]}
        else:
            swap = None
        money = self.coins[seat]
        if money < CHEAPEST:
            buy = []
        else:
            supply = self.supply
            buy = [card for card in SPECIALS if supply[card] and COSTS[card] <= money]
        if swap is None and not buy:
            self._entries.append((None, "pass", seat))
            self._begin_phase2()
            return
        self.seat = seat
        self.decision = "phase1"
        self.legal = {"swap": swap, "buy": buy}

    def _swap(self, swaps: list[tuple[int, int]]) -> None:
        ships = list(self.ships[self.active])
        markers = self.markers
        done = []
        for ship, good in swaps:
            old = ships[ship]
            markers[old] += 1
            markers[good] -= 1
            ships[ship] = good
            done.append((ship, old, good))
        self.ships[self.active] = tuple(ships)
        if 0 in markers or len(self.free_goods) < len(GOODS):
            self._count_free_goods()
        self._entries.append((None, "swap", self.active, tuple(done)))

    def _buy(self, card: str) -> None:
        seat = self.active
        cost = COSTS[card]
        self.coins[seat] -= cost
        supply = self.supply.copy()  # replaced, never changed in place: clones share it
        supply[card] -= 1
        self.supply = supply
        self._entries.append((None, "buy", seat, card, cost))
        if card == "ship":
            ships = self.ships[seat] + (-1,)
            self.ships[seat] = ships
            self.loading = [(seat, len(ships) - 1)]
            self._ask_load()
            return
        if card == "license":
            self.licenses = _one_more(self.licenses, seat)
        elif card == "porter":
            self.porters = _one_more(self.porters, seat)
        else:
            self.exchanges = _one_more(self.exchanges, seat)
        self._begin_phase2()

    # -- phase 2: deliver or draw, then an exchange's extra draw --

    def _begin_phase2(self) -> None:
        self.phase = "phase2"
        hand = self.hands[self.active]
        if not hand:
            self._draw(DRAW_COUNT, "draw")
            if self.phase != "over":
                self._offer_extra_draw()
            return
        self.seat = self.active
        self.decision = "phase2"
        self.legal = {"play": list(hand), "draw": True}

    def _deliver(self, good: int, cards: list[int], slots: list[int]) -> None:
        seat = self.active
        hand = self.hands[seat]
        market = self.market
        market_goods = self.market_goods
        covered = self.covered
        for card, slot in zip(cards, slots):
            hand.remove(card)
            old = market[slot]
            if old is not None:
                insort(covered, old)
            market[slot] = card
            market_goods[slot] = good
        showing = market_goods.count(good)
        money = self.coins
        licenses = self.licenses
        income = []
        for other, ships in enumerate(self.ships):
            pay = showing * ships.count(good)
            if pay:
                pay += LICENSE_BONUS * licenses[other]
                money[other] += pay
            income.append(pay)
        self._entries.append((None, "deliver", seat, good, tuple(cards), tuple(slots), showing, tuple(income)))

    def _draw(self, count: int, kind: str) -> None:
        """Draw ``count`` cards (fewer when the deck runs out); the game ends when it is empty."""
        seat = self.active
        deck = self.deck
        count = min(count, len(deck))
        drawn = deck[-count:] if count else []
        del deck[len(deck) - count:]
        hand = self.hands[seat]
        for card in drawn:
            insort(hand, card)
        self._entries.append((None, kind, seat, count, len(deck)))
        if count:
            self._entries.append((seat, "drawn", seat, tuple(reversed(drawn))))
        if not deck:
            self._finish()

    def _offer_extra_draw(self) -> None:
        most = min(self.exchanges[self.active], len(self.deck))
        if not most:
            self._end_turn()
            return
        self.phase = "extra_draw"
        self.seat = self.active
        self.decision = "extra_draw"
        self.legal = {"max": most}

    def _end_turn(self) -> None:
        self.active = (self.active + 1) % self.players
        self.phase = "phase1"
        self._begin_phase1()

    def _finish(self) -> None:
        self.phase = "over"
        self.seat = self.decision = self.legal = None
        self.loading = []
        money = self.money()
        self._entries.append((None, {"type": "game_end", "money": money, "ranks": competition_ranks(money)}))


def _one_more(held: tuple[int, ...], seat: int) -> tuple[int, ...]:
    """``held`` with one more for ``seat`` (a new tuple: clones share the old one)."""
    return held[:seat] + (held[seat] + 1,) + held[seat + 1:]


def loading_order(players: int, first: int, ships: list[tuple[int, ...]]) -> list[tuple[int, int]]:
    """The setup's loads still to make, last one first: clockwise from ``first``, first ships then second."""
    order = [
        ((first + turn) % players, ship)
        for ship in range(SETUP_SHIPS)
        for turn in range(players)
        if ships[(first + turn) % players][ship] < 0
    ]
    order.reverse()
    return order
