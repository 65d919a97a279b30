"""Modern Art's random choices: a uniformly random legal action for every decision.

It reads only ``decision`` and ``legal`` (never the view, which the runner
then never builds). An open or once-around ``bid`` passes with probability
:data:`PASS_CHANCE`, else bids uniformly in ``[min, max]``: passing and bidding
are the two kinds of answer, so each gets half. Sealed bids, prices and the
card to add to a double (or none) are uniform over their legal range; accept
and flip are coin tosses.
"""

from __future__ import annotations

import random

#: the chance of passing in an open or once-around auction
PASS_CHANCE = 0.5


def _between(low: int, high: int, rng: random.Random) -> int:
    """A uniform whole number in ``[low, high]`` (one float draw: cheaper than ``randint``)."""
    return low + int(rng.random() * (high - low + 1))


def choose(request: dict, rng: random.Random) -> dict:
    """A random legal action for ``request`` (a ``decide`` message)."""
    decision = request["decision"]
    legal = request["legal"]
    if decision == "bid":
        if rng.random() < PASS_CHANCE:
            return {"bid": None}
        return {"bid": _between(legal["min"], legal["max"], rng)}
    if decision == "play_card":
        cards = legal["cards"]
        return {"card": cards[int(rng.random() * len(cards))]}
    if decision == "sealed_bid":
        return {"bid": _between(0, legal["max"], rng)}
    if decision == "accept_price":
        return {"accept": rng.random() < 0.5}
    if decision == "set_price":
        return {"price": _between(legal["min"], legal["max"], rng)}
    if decision == "add_double":
        cards = legal["cards"]
        pick = int(rng.random() * (len(cards) + 1))
        return {"card": cards[pick] if pick < len(cards) else None}
    if decision == "flip_phantom":
        return {"flip": rng.random() < 0.5}
    raise ValueError(f"modern-art has no decision {decision!r}")
