"""``mcts``: information-set Monte Carlo tree search, for Modern Art and Maritime Silk Road.

For each decision it samples states consistent with its view through the
game's own ``determinize(view, options, rng)``, simulates them with
``clone``/``apply`` (see ``mcts_search``), and plays the root action visited
most. The game-specific parts (which actions the tree considers, the rollout
policy, the evaluation of a cut-off game) live in ``mcts_modern_art`` and
``mcts_silk_road``.

Budget: with ``iterations`` > 0 it runs exactly that many iterations (a
fixed seed then gives the same moves every time, for tests and paired
comparisons); with ``iterations`` = 0 it searches for ``time_fraction`` of the
move time. Either way it stops early enough to answer within the time left
(``time_left_ms`` less a safety margin), so it never faults on time; only
then can a fixed budget be cut short.
"""

from __future__ import annotations

import random
import time

from arena.plugins import get_plugins
from arena_bots.mcts_modern_art import ModernArtPolicy
from arena_bots.mcts_search import Search
from arena_bots.mcts_silk_road import SilkRoadPolicy

POLICIES = {"modern-art": ModernArtPolicy, "silk-road": SilkRoadPolicy}
#: Time kept back from the time left, for the answer's way back and the runner's measurement.
MARGIN_MS = 50
MARGIN_SHARE = 0.1


class MctsBot:
    """Searches every real choice with ISMCTS; options: iterations, exploration, time_fraction."""

    def __init__(self, iterations: int = 0, exploration: float = 0.5, time_fraction: float = 0.5) -> None:
        self.iterations = iterations
        self.exploration = exploration
        self.time_fraction = time_fraction
        self.rng = random.Random(0)
        self.game = None
        self.policy = None
        self.options: dict = {}
        self.move_ms = 1000
        self.last_search: Search | None = None

    def start(self, info: dict) -> None:
        self.rng = random.Random(info["seed"])
        self.game = get_plugins().game(info["game"])
        self.policy = POLICIES[info["game"]]()
        self.options = info["options"]
        self.move_ms = info["time"]["move_ms"]

    def decide(self, request: dict) -> dict:
        began = time.perf_counter()
        view = request["view"]
        state = self.game.determinize(view, self.options, self.rng)
        candidates = self.policy.candidates(state)
        if len(candidates) == 1:
            return candidates[0]
        search = Search(self.policy, self.exploration, self.rng)
        self.last_search = search
        deadline = began + self.budget_ms(request["time_left_ms"]) / 1000
        while True:
            search.iterate(state)
            if self.iterations and search.iterations >= self.iterations or time.perf_counter() >= deadline:
                return search.best()
            state = self.game.determinize(view, self.options, self.rng)

    def budget_ms(self, time_left_ms: float) -> float:
        """The longest this decision may search: the time left less a margin, and without a fixed
        budget, ``time_fraction`` of the move time."""
        safe = time_left_ms - max(MARGIN_MS, MARGIN_SHARE * self.move_ms)
        if self.iterations:
            return safe
        return min(safe, self.time_fraction * self.move_ms)
