"""Modern Art's events, noted by the engine as compact tuples and built only when read.

The engine notes ``(audience, kind, field, ...)`` (see
:class:`arena.games.base.CompactLogState`); its builder in :data:`RENDERERS` turns one into the
event of docs/games/modern-art.md, with the keys in their documented order.
A reveal, rare, is noted as a ready ``(audience, event)`` pair.
"""

from __future__ import annotations

from typing import Any, Callable

from arena.games.modern_art.cards import ARTISTS, CARD_OBJECTS, MARKERS


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


def _round_start(round_: int, starter: int, dealt: tuple[int, ...], phantom_dealt: int,
                 deck_size: int) -> dict[str, Any]:
    return {"type": "round_start", "round": round_, "starter": starter, "dealt": list(dealt),
            "phantom_dealt": phantom_dealt, "deck_size": deck_size}


def _hand_dealt(round_: int, cards: tuple[int, ...]) -> dict[str, Any]:
    return {"type": "hand_dealt", "round": round_, "cards": [CARD_OBJECTS[card] for card in cards]}


def _round_end(round_: int, reason: str, ender: int | None, counts: tuple[int, ...], ranked: tuple[int, ...],
               values: tuple[int, ...], payouts: tuple[int, ...]) -> dict[str, Any]:
    return {
        "type": "round_end", "round": round_, "reason": reason, "ended_by": ender,
        "counts": {ARTISTS[artist]: count for artist, count in enumerate(counts)},
        "ranking": [ARTISTS[artist] for artist in ranked],
        "markers": {ARTISTS[artist]: MARKERS[place] for place, artist in enumerate(ranked)},
        "values": {ARTISTS[artist]: value for artist, value in enumerate(values)},
        "payouts": list(payouts),
    }


def _game_end(money: tuple[int, ...], ranks: tuple[int, ...]) -> dict[str, Any]:
    return {"type": "game_end", "money": list(money), "ranks": list(ranks)}


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
    "round_start": _round_start,
    "hand_dealt": _hand_dealt,
    "round_end": _round_end,
    "game_end": _game_end,
}

