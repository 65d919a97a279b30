"""``random``: a uniformly random legal action, in every game it knows.

Each game's choices live in their own module (``modern_art_random``,
``silk_road_random``) as ``choose(request, rng) -> action``; this class picks
the module from the ``start`` message and draws all randomness from the seed
it carries, so the same seed plays the same game again.
"""

from __future__ import annotations

import random

from arena_bots import modern_art_random, silk_road_random

CHOOSERS = {
    "modern-art": modern_art_random.choose,
    "silk-road": silk_road_random.choose,
}


class RandomBot:
    """Plays a uniformly random legal action; bids spread over the legal range, with passing."""

    def __init__(self) -> None:
        #: the game's generator, seeded once by ``start``: nothing is drawn before it (a throw-away
        #: ``Random(0)`` here cost about a seeding per seat and game, some 35 us a game)
        self.rng: random.Random | None = None
        self.choose = None

    def start(self, info: dict) -> None:
        self.rng = random.Random(info["seed"])
        self.choose = CHOOSERS[info["game"]]

    def decide(self, request: dict) -> dict:
        return self.choose(request, self.rng)
