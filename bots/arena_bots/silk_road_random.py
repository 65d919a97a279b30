"""Silk Road's uniformly random legal action: ``choose(request, rng) -> action``.

Each decision picks uniformly among its kinds of action, then a random legal
instance: phase 1 swaps random ships to random goods (reading the view only
then, to know each ship's cargo), buys a random affordable card, or passes;
phase 2 delivers a random non-empty set of one good's cards on random
distinct slots, or draws; an extra draw takes a random count.

It runs in every benchmark game, so it draws its randomness cheaply: one
``rng.random()`` per choice, and random orders of up to six things as one
draw among their precomputed permutations.
"""

from __future__ import annotations

import random
from itertools import permutations

from arena.games.silk_road.cards import CARDS_PER_GOOD, SLOTS

#: every ordering of range(n), for n = 0..6
ORDERINGS = [tuple(permutations(range(n))) for n in range(SLOTS + 1)]


def choose(request: dict, rng: random.Random) -> dict:
    decision = request["decision"]
    legal = request["legal"]
    if decision == "phase2":
        if rng.random() < 0.5:
            return {"action": "draw"}
        return _delivery(legal["play"], rng)
    if decision == "phase1":
        buy = legal["buy"]
        kinds = 1 + bool(buy) + (legal["swap"] is not None)
        kind = int(rng.random() * kinds)
        if kind == 0:
            return {"action": "pass"}
        if kind == 1 and buy:
            return {"action": "buy", "card": _pick(buy, rng)}
        return {"action": "swap", "swaps": _swaps(request, rng)}
    if decision == "load_ship":
        return {"good": _pick(legal["goods"], rng)}
    return {"count": int(rng.random() * (legal["max"] + 1))}


def _pick(items: list, rng: random.Random):
    return items[int(rng.random() * len(items))]


def _ordering(count: int, rng: random.Random) -> tuple | list:
    """A uniformly random ordering of range(count)."""
    if count <= SLOTS:
        return _pick(ORDERINGS[count], rng)
    order = list(range(count))
    rng.shuffle(order)
    return order


def _delivery(hand: list[int], rng: random.Random) -> dict:
    """A random good among those in hand, then a random non-empty set of its cards on distinct slots."""
    goods = sorted({card // CARDS_PER_GOOD for card in hand})
    good = _pick(goods, rng)
    same = [card for card in hand if card // CARDS_PER_GOOD == good]
    count = 1 + int(rng.random() * min(len(same), SLOTS))
    chosen = _ordering(len(same), rng)[:count]
    return {"action": "play", "cards": [same[index] for index in chosen],
            "slots": list(_pick(ORDERINGS[SLOTS], rng)[:count])}


def _swaps(request: dict, rng: random.Random) -> list[dict]:
    """Random ships, each to a random good it does not carry that is available at that moment."""
    view = request["view"]
    cargo = view["players"][view["seat"]]["ships"]
    markers = view["markers"]
    rule = request["legal"]["swap"]
    count = 1 + int(rng.random() * min(rule["max_swaps"], rule["ships"]))
    swaps = []
    for ship in _ordering(len(cargo), rng):
        goods = [good for good, left in markers.items() if left and good != cargo[ship]]
        if goods:
            good = _pick(goods, rng)
            markers[cargo[ship]] += 1
            markers[good] -= 1
            swaps.append({"ship": ship, "good": good})
            if len(swaps) == count:
                break
    return swaps
