"""``mcts``: information-set Monte Carlo tree search, for Modern Art and Maritime Silk Road.

For each decision it samples states consistent with its view through the
game's own ``determinize(view, options, rng)`` (through its ``determinizer``, which
reads the view once per decision), simulates them with ``clone``/``apply``
(see ``mcts_search``), and plays the best root action.
The game-specific parts (which actions the tree considers, the rollout
policy, the evaluation of a cut-off game) live in ``mcts_modern_art`` and
``mcts_silk_road``. Modern Art grows a tree (:class:`~arena_bots.mcts_search.Search`);
Silk Road, whose rollouts play ``trader``'s good rules, judges the root
actions on common deals (:class:`~arena_bots.mcts_search.PairedSearch`).

Budget: with ``iterations`` > 0 it runs exactly that many iterations, so a
fixed ``start`` seed gives the same moves every time (tests, paired
comparisons on different machines). With ``iterations`` = 0 (the default)
it plays to a time budget: ``time_fraction`` of the move time plus a share
of the bank still left above a reserve (half the game's bank, kept for the
overruns of a loaded machine), so the spendable bank is spent a little at a
time, most of it on the early decisions that shape the game. A time budget
is not deterministic (the iterations done depend on the machine and its
load). Either way it stops early enough to answer within the time left (and
within the move time) less a safety margin that grows with the move time,
so it does not fault on time; only then can a fixed budget be cut short.

Reused work: when the seat decides again right after its own action, with
nothing but its own action's events in between (a card played and then its
fixed price, a purchase and then the ship's load, phase 1 and then phase 2),
the subtree under that action becomes the new root, statistics kept (a
tree search only).
"""

from __future__ import annotations

import random
import time

from arena.plugins import get_plugins
from arena_bots.mcts_modern_art import ModernArtPolicy
from arena_bots.mcts_search import Node, PairedSearch, Search, action_key
from arena_bots.mcts_silk_road import SilkRoadPolicy

POLICIES = {"modern-art": ModernArtPolicy, "silk-road": SilkRoadPolicy}
#: Time kept back from the time left (and from the move time), for the answer's way back, the
#: runner's measurement and a loaded machine's delays: at least MARGIN_MS, more with a longer move
#: time (a descheduled process overruns a longer search by more).
MARGIN_MS = 50
MARGIN_SHARE = 0.25
#: the share of the bank left that one decision may spend on top of its share of the move time
BANK_SHARE = 1 / 30
#: the share of the game's bank never spent by plan: it absorbs overruns on a loaded machine
BANK_RESERVE = 0.5
#: once overruns have eaten into the reserve (the machine is loaded), the share of the move time
#: shrinks with what is left of it, down to this part
LOW_BANK_FLOOR = 0.25


class MctsBot:
    """Searches every real choice with ISMCTS; options: iterations, exploration, time_fraction."""

    def __init__(self, iterations: int = 0, exploration: float = 0.5, time_fraction: float = 0.5) -> None:
        if iterations < 0 or exploration < 0 or not 0 < time_fraction <= 1:
            raise ValueError(f"expected iterations >= 0 (0: play to the clock), exploration >= 0 and "
                             f"0 < time_fraction <= 1, got {iterations}, {exploration}, {time_fraction}")
        self.iterations = iterations
        self.exploration = exploration
        self.time_fraction = time_fraction
        self.rng = random.Random(0)
        self.game = None
        self.policy = None
        self.options: dict = {}
        self.move_ms = 1000
        self.bank_ms = 0
        self.seat = 0
        self.last_search: Search | None = None
        #: the subtree under this seat's last action, kept for the next decision (reused work)
        self.kept: Node | None = None

    def start(self, info: dict) -> None:
        self.rng = random.Random(info["seed"])
        self.game = get_plugins().game(info["game"])
        self.policy = POLICIES[info["game"]]()
        self.options = info["options"]
        self.move_ms = info["time"]["move_ms"]
        self.bank_ms = info["time"].get("bank_ms", 0)
        self.seat = info.get("seat", 0)
        if hasattr(self.policy, "me"):
            self.policy.me = self.seat  # the policy's rivals are the other seats
        self.kept = None

    def decide(self, request: dict) -> dict:
        began = time.perf_counter()
        view = request["view"]
        sample = self.sampler(view)
        state = sample(self.rng)
        candidates = self.policy.candidates(state)
        if len(candidates) == 1:
            self.kept = None
            return candidates[0]
        kind = PairedSearch if getattr(self.policy, "paired", False) else Search
        search = kind(self.policy, self.exploration, self.rng, self.reusable(request))
        self.last_search = search
        weight = getattr(self.policy, "bank_weight", None)
        deadline = began + self.budget_ms(request["time_left_ms"], weight(state) if weight else 1.0) / 1000
        while True:
            search.iterate(state)
            if self.iterations and search.iterations >= self.iterations or time.perf_counter() >= deadline:
                break
            state = sample(self.rng)
        action = search.best()
        self.kept = search.root.children.get(action_key(action))
        return action

    def sampler(self, view: dict):
        """``sample(rng)``: a determinization of ``view`` (the game's ``determinizer``, which reads the view
        once for the whole search, when it has one; the same states for the same draws either way)."""
        determinizer = getattr(self.game, "determinizer", None)
        if determinizer is not None:
            return determinizer(view, self.options)
        game, options = self.game, self.options
        return lambda rng: game.determinize(view, options, rng)

    def reusable(self, request: dict) -> Node | None:
        """The subtree kept from the last decision, when only this seat's own events came since."""
        kept, self.kept = self.kept, None
        if kept is None or not kept.children:
            return None
        me = self.seat
        if any(event.get("seat") != me for event in request.get("events", ())):
            return None
        if any(child.seat != me for child in kept.children.values()):
            return None
        kept.action = None
        return kept

    def budget_ms(self, time_left_ms: float, bank_weight: float = 1.0) -> float:
        """The longest this decision may search: the time left less a margin that grows with the move
        time; without a fixed budget, ``time_fraction`` of the move time (at most the move time less
        that margin) plus ``bank_weight`` times :data:`BANK_SHARE` (at most all) of the bank left above
        a reserve of :data:`BANK_RESERVE` of the game's bank. The policy weighs the decisions (its
        ``bank_weight(state)``, if it has one): the bank goes where the search gains most."""
        margin = max(MARGIN_MS, MARGIN_SHARE * self.move_ms)
        safe = time_left_ms - margin
        if self.iterations:
            return safe
        bank_left = time_left_ms - self.move_ms
        reserve = BANK_RESERVE * self.bank_ms
        spendable = max(0.0, bank_left - reserve)
        share = min(self.time_fraction * self.move_ms, self.move_ms - margin)
        if 0 < reserve and bank_left < reserve:
            share *= max(LOW_BANK_FLOOR, bank_left / reserve)
        return min(safe, share + min(1.0, bank_weight * BANK_SHARE) * spendable)
