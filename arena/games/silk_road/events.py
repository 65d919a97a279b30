"""Silk Road's frequent events, noted by the engine as compact tuples and built only when read.

The engine notes ``(audience, kind, field, ...)`` (see
:class:`arena.games.base.CompactLogState`); its builder in :data:`RENDERERS` turns one into the
event of docs/games/silk-road.md, with the keys in their documented order.
The game's end, rare, is noted as a ready ``(audience, event)`` pair and needs
no renderer; the setup and the deals, one game each, are compact too, as a
new game's cost counts in every short one.
"""

from __future__ import annotations

from typing import Any, Callable

from arena.games.silk_road.cards import CARD_GOOD_NAMES, GOODS


def _cards(cards: tuple[int, ...]) -> list[dict[str, Any]]:
    names = CARD_GOOD_NAMES
    return [{"id": card, "good": names[card]} for card in cards]


def _setup(players: int, first: int, market: tuple[int | None, ...], deck: int, money: tuple[int, ...],
           hand_sizes: tuple[int, ...]) -> dict[str, Any]:
    names = CARD_GOOD_NAMES
    return {"type": "setup", "players": players, "first": first,
            "market": [None if card is None else {"id": card, "good": names[card]} for card in market],
            "deck": deck, "money": list(money), "hand_sizes": list(hand_sizes)}


def _deal(seat: int, cards: tuple[int, ...]) -> dict[str, Any]:
    return {"type": "deal", "seat": seat, "cards": _cards(cards)}


def _pass(seat: int) -> dict[str, Any]:
    return {"type": "pass", "seat": seat}


def _load(seat: int, ship: int, good: int) -> dict[str, Any]:
    return {"type": "load", "seat": seat, "ship": ship, "good": GOODS[good]}


def _swap(seat: int, swaps: tuple[tuple[int, int, int], ...]) -> dict[str, Any]:
    return {"type": "swap", "seat": seat,
            "swaps": [{"ship": ship, "from": GOODS[old], "good": GOODS[good]} for ship, old, good in swaps]}


def _buy(seat: int, card: str, cost: int) -> dict[str, Any]:
    return {"type": "buy", "seat": seat, "card": card, "cost": cost}


def _deliver(seat: int, good: int, cards: tuple[int, ...], slots: tuple[int, ...], showing: int,
             income: tuple[int, ...]) -> dict[str, Any]:
    return {"type": "deliver", "seat": seat, "good": GOODS[good], "cards": _cards(cards), "slots": list(slots),
            "showing": showing, "income": list(income)}


def _draw(seat: int, count: int, deck: int) -> dict[str, Any]:
    return {"type": "draw", "seat": seat, "count": count, "deck": deck}


def _extra_draw(seat: int, count: int, deck: int) -> dict[str, Any]:
    return {"type": "extra_draw", "seat": seat, "count": count, "deck": deck}


def _drawn(seat: int, cards: tuple[int, ...]) -> dict[str, Any]:
    return {"type": "drawn", "seat": seat, "cards": _cards(cards)}


#: each kind's event builder, called with the entry's fields
RENDERERS: dict[str, Callable[..., dict[str, Any]]] = {
    "setup": _setup,
    "deal": _deal,
    "pass": _pass,
    "load": _load,
    "swap": _swap,
    "buy": _buy,
    "deliver": _deliver,
    "draw": _draw,
    "extra_draw": _extra_draw,
    "drawn": _drawn,
}

