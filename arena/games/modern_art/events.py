"""Modern Art's frequent events, noted by the engine as compact tuples and built only when read.

The engine notes ``(audience, kind, field, ...)`` (see
:class:`arena.games.base.CompactLogState`); its builder in :data:`RENDERERS` turns one into the
event of docs/games/modern-art.md, with the keys in their documented order.
Rare events (a round's start and end, a dealt hand, a reveal, the game's
end) are noted as ready ``(audience, event)`` pairs and need no renderer.
"""

from __future__ import annotations

from typing import Any, Callable

from arena.games.modern_art.cards import CARD_OBJECTS


def _pass(seat: int) -> dict[str, Any]:
    return {"type": "pass", "seat": seat}


def _decline(seat: int) -> dict[str, Any]:
    return {"type": "decline", "seat": seat}


def _bid(seat: int, bid: int) -> dict[str, Any]:
    return {"type": "bid", "seat": seat, "bid": bid}


def _sealed_bid(seat: int, bid: int) -> dict[str, Any]:
    return {"type": "sealed_bid", "seat": seat, "bid": bid}


def _price(seat: int, price: int) -> dict[str, Any]:
    return {"type": "price", "seat": seat, "price": price}


def _play(seat: int, card: int) -> dict[str, Any]:
    return {"type": "play", "seat": seat, "card": CARD_OBJECTS[card]}


def _double_added(seat: int, card: int) -> dict[str, Any]:
    return {"type": "double_added", "seat": seat, "card": CARD_OBJECTS[card]}


def _flip(seat: int, card: int) -> dict[str, Any]:
    return {"type": "flip", "seat": seat, "card": CARD_OBJECTS[card]}


def _sale(auctioneer: int, buyer: int, price: int, cards: tuple[int, ...],
          payments: tuple[tuple[int, int | None, int], ...]) -> dict[str, Any]:
    return {"type": "sale", "auctioneer": auctioneer, "buyer": buyer, "price": price, "cards": list(cards),
            "payments": [{"from": payer, "to": to, "amount": amount} for payer, to, amount in payments]}


#: each kind's event builder, called with the entry's fields
RENDERERS: dict[str, Callable[..., dict[str, Any]]] = {
    "pass": _pass,
    "decline": _decline,
    "bid": _bid,
    "sealed_bid": _sealed_bid,
    "price": _price,
    "play": _play,
    "double_added": _double_added,
    "flip": _flip,
    "sale": _sale,
}

