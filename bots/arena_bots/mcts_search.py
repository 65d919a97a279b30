"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS, Cowling et al. 2012).

One tree is grown over the searching seat's information set: every iteration
samples a full state consistent with the seat's view (a determinization),
walks the tree from the root choosing among the actions legal in *that*
state, adds one node (the policy's first untried action: policies list their
preferred actions first), plays the rest out with a cheap rollout policy, and
backs the result up. Each node keeps the reward of the seat that chose its
action, so opponents choose in the tree as they would for themselves.
Because different determinizations allow different actions, a child's
exploration term counts the times it was available rather than the parent's
visits. A policy with ``own_tree`` (Modern Art) gets nodes for the searching
seat's decisions only: the other seats play the policy's rollout actions in
the tree too, up to the policy's ``horizon`` (:meth:`Search.iterate_own`).

The game-specific parts come from a policy object (see ``mcts_modern_art``
and ``mcts_silk_road``): ``candidates(state)`` (the actions the tree
considers, a discretised subset of ``legal``), ``rollout(state, rng)`` (one
cheap action), ``evaluate(state)`` (a reward in [0, 1] per seat, for a
finished or cut-off game) and ``rollout_limit`` (decisions per rollout before
the cut-off).
"""

from __future__ import annotations

import math
import random
from typing import Any

import orjson


#: the progressive bias of each node's first candidate (the policy's own choice), in rewards:
#: it counts as that much extra reward, so it fades as 1/visits (Chaslot et al. 2008)
PREFERENCE = 1.0


def action_key(action: dict) -> bytes:
    """A hashable name of an action: equal actions, equal keys (its JSON with sorted keys, by ``orjson``:
    a twentieth of ``json.dumps``'s time, which was an eighth of a Modern Art iteration)."""
    return orjson.dumps(action, option=orjson.OPT_SORT_KEYS)


def play_out(policy: Any, state: Any, rng: random.Random) -> None:
    """Play ``state`` on with ``policy``'s rollout actions until the game ends or the cut-off.

    A policy with a ``playout(state, rng)`` method plays the whole rollout
    itself (with its own cut-off); otherwise ``rollout`` is asked one action
    at a time, up to ``rollout_limit`` actions.
    """
    playout = getattr(policy, "playout", None)
    if playout is not None:
        playout(state, rng)
        return
    rollout = policy.rollout
    for _ in range(policy.rollout_limit):
        if state.seat is None:
            return
        state.apply(rollout(state, rng))


class Node:
    """The statistics of one action in one information set, and the actions after it."""

    __slots__ = ("action", "seat", "bias", "visits", "reward", "available", "children")

    def __init__(self, action: dict | None, seat: int | None, bias: float = 0.0) -> None:
        self.action = action
        self.seat = seat  # the seat that chose ``action``
        self.bias = bias  # the policy's preference, fading as visits grow
        self.visits = 0
        self.reward = 0.0  # summed rewards of ``seat`` through this node
        self.available = 1  # the times this action was legal when its parent was walked
        self.children: dict[bytes, Node] = {}

    def score(self, exploration: float) -> float:
        """UCB1 over availability, plus the progressive bias towards the policy's preferred action."""
        visits = self.visits
        return (self.reward + self.bias) / visits + exploration * math.sqrt(math.log(self.available) / visits)


class Search:
    """One decision's search tree, grown an iteration at a time from determinized states."""

    def __init__(self, policy: Any, exploration: float, rng: random.Random, root: Node | None = None) -> None:
        """``root``: a subtree kept from an earlier search whose statistics still hold (reused work)."""
        self.policy = policy
        self.exploration = exploration
        self.preference = PREFERENCE
        self.rng = rng
        self.root = root or Node(None, None)
        #: the iterations run by this search (the reused root's visits are not counted)
        self.iterations = 0
        self.reused = sum(child.visits for child in self.root.children.values())
        #: a policy with ``own_tree`` grows nodes for the searching seat's decisions only (see
        #: :meth:`iterate_own`); the seat and the policy's ``horizon`` are read from the first state
        self.own_tree = getattr(policy, "own_tree", False)
        self.me: int | None = None
        self.horizon: Any = None

    def iterate(self, state: Any) -> None:
        """One iteration on ``state`` (a determinization, consumed): select, expand, roll out, back up."""
        if self.own_tree:
            self.iterate_own(state)
            return
        node = self.root
        path = []
        while state.seat is not None:
            seat = state.seat
            untried = []
            known = []
            for index, action in enumerate(self.policy.candidates(state)):
                key = action_key(action)
                child = node.children.get(key)
                if child is None:
                    untried.append((key, action, index))
                else:
                    known.append(child)
            for child in known:
                child.available += 1
            if untried:
                key, action, index = untried[0]
                child = node.children[key] = Node(action, seat, self.preference if index == 0 else 0.0)
                state.apply(action)
                path.append(child)
                break
            exploration = self.exploration
            node = max(known, key=lambda child: child.score(exploration))
            state.apply(node.action)
            path.append(node)
        self.rollout(state)
        rewards = self.policy.evaluate(state)
        for child in path:
            child.visits += 1
            child.reward += rewards[child.seat]
        self.iterations += 1

    def iterate_own(self, state: Any) -> None:
        """One iteration of a tree over the searching seat's own decisions: the other seats play the
        policy's rollout actions, in the tree as after it, so they play as the policy expects rivals to
        (a rival's node searched for its own best reply would model a cleverer rival than the usual
        opponents, the more so the more iterations); the walk ends at the policy's ``horizon``
        (Modern Art: the round's end), where the rollout would have stopped."""
        policy, rng = self.policy, self.rng
        if self.me is None:
            self.me, self.horizon = state.seat, policy.horizon(state)
        me, horizon, rollout = self.me, self.horizon, policy.rollout
        node = self.root
        path = []
        expanded = False
        while state.seat is not None and policy.horizon(state) == horizon:
            if state.seat != me:
                state.apply(rollout(state, rng))
                continue
            untried = None
            known = []
            for index, action in enumerate(policy.candidates(state)):
                key = action_key(action)
                child = node.children.get(key)
                if child is None:
                    if untried is None:
                        untried = (key, action, index)
                else:
                    known.append(child)
            for child in known:
                child.available += 1
            if untried is not None:
                key, action, index = untried
                child = node.children[key] = Node(action, me, self.preference if index == 0 else 0.0)
                state.apply(action)
                path.append(child)
                expanded = True
                break
            exploration = self.exploration
            node = max(known, key=lambda child: child.score(exploration))
            state.apply(node.action)
            path.append(node)
        if expanded and state.seat is not None and policy.horizon(state) == horizon:
            self.rollout(state)
        reward = policy.evaluate(state)[me]
        for child in path:
            child.visits += 1
            child.reward += reward
        self.iterations += 1

    def rollout(self, state: Any) -> None:
        """Play on with the policy's rollout actions until the game ends or the cut-off."""
        play_out(self.policy, state, self.rng)

    def best(self) -> dict | None:
        """The most visited root action (ties: the better mean), or None before any iteration."""
        if not self.root.children:
            return None
        chosen = max(self.root.children.values(), key=lambda child: (child.visits, child.reward / max(1, child.visits)))
        return chosen.action

    def statistics(self) -> list[dict]:
        """The root actions with their visits and mean rewards, most visited first (for logs and tests)."""
        children = sorted(self.root.children.values(), key=lambda child: -child.visits)
        return [{"action": child.action, "visits": child.visits,
                 "mean": child.reward / child.visits if child.visits else 0.0} for child in children]


class PairedSearch:
    """Flat Monte Carlo over the root actions, compared on common determinizations.

    Each determinization (a sampled deal) is used for one round: every root
    action is applied to a clone of it and played out with the policy's
    rollout, one action per iteration. Every action is thus judged on the
    same deals, and the differences between actions, which are what the
    choice rests on, are far less noisy than a tree's separately sampled
    visits. It improves on the rollout policy by one step of policy
    iteration, which is what a good rollout policy (``trader``'s rules in
    Silk Road) calls for. Same interface as :class:`Search`.

    Another action replaces the policy's own only when its mean paired
    difference over their common deals beats the margin by
    :data:`SIGNIFICANCE` standard errors: with few deals (a short budget, a
    loaded machine) the differences are mostly noise, and the policy's own
    action stands.
    """

    def __init__(self, policy: Any, exploration: float, rng: random.Random, root: Node | None = None) -> None:
        self.policy = policy
        self.preference = getattr(policy, "preference", PAIRED_PREFERENCE)
        self.rng = rng
        self.root = Node(None, None)
        self.iterations = 0
        self.reused = 0
        self.deal: Any = None
        self.round: list[Node] = []
        self.next = 0
        #: the rounds played (deals drawn), and each root action's reward per round it was played in
        self.rounds = 0
        self.samples: dict[Node, dict[int, float]] = {}
        #: the policy's own action (its first candidate), which the others must beat
        self.planned: Node | None = None

    def iterate(self, state: Any) -> None:
        """One root action played out on this round's deal; ``state`` starts a new round when one is due."""
        if self.next == len(self.round):
            self.deal, self.round, self.next = state, [], 0
            self.rounds += 1
            children = self.root.children
            for index, action in enumerate(self.policy.candidates(state)):
                key = action_key(action)
                child = children.get(key)
                if child is None:
                    child = children[key] = Node(action, state.seat, self.preference if index == 0 else 0.0)
                else:
                    child.available += 1
                if index == 0 and self.planned is None:
                    self.planned = child
                self.round.append(child)
        child = self.round[self.next]
        self.next += 1
        simulated = self.deal.clone()
        simulated.apply(child.action)
        play_out(self.policy, simulated, self.rng)
        reward = self.policy.evaluate(simulated)[child.seat]
        child.visits += 1
        child.reward += reward
        self.samples.setdefault(child, {})[self.rounds] = reward
        self.iterations += 1

    def best(self) -> dict | None:
        """The policy's own action, or the one whose mean paired difference from it, over their common
        deals, beats the margin by the most, by at least :data:`SIGNIFICANCE` standard errors."""
        planned = self.planned
        if planned is None or not planned.visits:
            return None
        base = self.samples[planned]
        chosen, chosen_mean = planned, 0.0
        for child, rewards in self.samples.items():
            if child is planned:
                continue
            diffs = [reward - base[deal] for deal, reward in rewards.items() if deal in base]
            count = len(diffs)
            if count < 2:
                continue
            mean = sum(diffs) / count
            variance = sum((diff - mean) ** 2 for diff in diffs) / (count - 1)
            if mean - self.preference > SIGNIFICANCE * math.sqrt(variance / count) and mean > chosen_mean:
                chosen, chosen_mean = child, mean
        return chosen.action

    statistics = Search.statistics


#: the margin in mean reward by which another action must beat the policy's own in a paired search
#: (a policy's ``preference`` replaces it), and by how many standard errors of the mean difference
PAIRED_PREFERENCE = 0.12
SIGNIFICANCE = 1.0


#: how much of a reward is the rank; the rest is the money's place between the poorest and richest
RANK_WEIGHT = 0.3


def rewards(money: list[int]) -> list[float]:
    """Each seat's reward in [0, 1] for final ``money``.

    Partly the rank (1 for the richest, 0 for the poorest, equal money sharing
    a rank), which is what leaderboards count; mostly the money's place between
    the poorest and the richest seat, which varies smoothly with every coin, so
    a few hundred noisy rollouts still tell a better action from a worse one.
    """
    players = len(money)
    low, high = min(money), max(money)
    spread = high - low
    scores = []
    for mine in money:
        above = sum(1 for other in money if other > mine)
        level = sum(1 for other in money if other == mine) - 1
        rank_score = (players - 1 - above - level / 2) / (players - 1)
        margin = (mine - low) / spread if spread else 0.5
        scores.append(RANK_WEIGHT * rank_score + (1 - RANK_WEIGHT) * margin)
    return scores
