"""The generic conformance kit (`arena.testing`) run over every registered game and bot."""

from __future__ import annotations

import pytest

from arena.plugins import get_plugins
from arena.testing import check_game

GAMES = sorted(get_plugins().games)
BOTS = sorted(name for name, info in get_plugins().bots.items() if name != "mcts")


@pytest.mark.parametrize("game_name", GAMES)
def test_every_game_passes_random_self_play(game_name, plugins):
    game = plugins.game(game_name)
    played = check_game(game, plugins.bot("random").factory, seeds=range(60))
    assert played == 60


@pytest.mark.parametrize("bot_name", BOTS)
def test_every_reference_bot_plays_its_games_without_faults(bot_name, plugins):
    info = plugins.bot(bot_name)
    for game_name in info.games:
        game = plugins.game(game_name)
        check_game(game, info.factory, seeds=range(8))
