"""Search bots' inner loop: a game's determinizer deals exactly what determinize deals, and clones stay apart.

``mcts`` asks ``game.determinizer(view, options)`` once per decision and draws
thousands of samples from it; each must be the state ``determinize(view,
options, rng)`` gives for the same draws, and leave the generator where it
would (the next sample depends on it). A clone shares what the engine only
replaces, so playing one on must leave the other as it was, its log included.
"""

from __future__ import annotations

import json
import random

import pytest

TABLES = [("modern-art", 3, {"phantom": True}), ("modern-art", 4, {}), ("modern-art", 5, {"double_split": True}),
          ("silk-road", 2, {}), ("silk-road", 4, {})]


def _positions(game, players, options, games=6, every=9):
    """States of seeded games played with default actions, at every ``every``-th decision (clones: the game
    goes on)."""
    for seed in range(games):
        state = game.new_state(game.random_setup(players, options, random.Random(seed)), options)
        step = 0
        while state.seat is not None:
            if step % every == 0:
                yield state.clone()
            state.apply(state.default_action())
            step += 1


def _fingerprint(state) -> str:
    """Everything a state shows: its decision, every seat's view, and its play to the end with default actions."""
    shown = [state.seat, state.decision, state.legal] + [state.view(seat) for seat in range(state.players)]
    copy = state.clone()
    while copy.seat is not None:
        copy.apply(copy.default_action())
    return json.dumps([shown, copy.log, copy.result()])


@pytest.mark.parametrize("table", TABLES, ids=lambda table: f"{table[0]}x{table[1]}")
def test_a_determinizer_deals_what_determinize_deals_and_draws_the_same_numbers(plugins, table):
    name, players, options = table
    game = plugins.game(name)
    full = game.check_options(players, options)
    checked = 0
    for state in _positions(game, players, full):
        for seat in range(players):  # the deciding seat's view, and the others' (a double to join, bids in)
            view = state.view(seat)
            sample = game.determinizer(view, full)
            one, other = random.Random(checked), random.Random(checked)
            for _ in range(3):  # consecutive samples from one generator: the draws must line up too
                assert _fingerprint(sample(one)) == _fingerprint(game.determinize(view, full, other))
            assert one.random() == other.random()
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("table", TABLES, ids=lambda table: f"{table[0]}x{table[1]}")
def test_a_clone_played_on_leaves_its_original_as_it_was(plugins, table):
    name, players, options = table
    game = plugins.game(name)
    full = game.check_options(players, options)
    for state in _positions(game, players, full, games=3):
        before = _fingerprint(state)
        log_before = json.dumps(state.log)
        copy = state.clone()
        assert json.dumps(copy.log) == log_before  # a clone builds its own log, equal, when read
        while copy.seat is not None:
            copy.apply(copy.default_action())
        assert _fingerprint(state) == before and json.dumps(state.log) == log_before
