"""Fresh bots per game: forked from a template for Python bots, a new process for external ones."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from arena.entrants import parse_spec
from arena.match import Limits
from arena.plugins import get_plugins
from arena.sandbox import open_process_bot

BOTS = Path(__file__).parent / "bots"
START = {"type": "start", "game": "silk-road", "seat": 0, "players": ["a", "b"], "options": {}, "time": {},
         "setup_public": {}, "seed": 1}


def test_games_that_ask_nothing_still_get_a_fresh_bot_each_without_waiting():
    """A game's end and the next start with no decision between: the template must not wait frozen."""
    bot = open_process_bot(parse_spec("random", get_plugins()), Limits(start_ms=3000), get_plugins())
    pids = []
    try:
        for _ in range(5):
            began = time.monotonic()
            bot.start(START, 3000)
            assert time.monotonic() - began < 3
            pids.append(bot.process.pid)
            bot.finish_game()
            assert bot.process is None
    finally:
        bot.close()
    assert len(set(pids)) == 5


def test_an_external_bot_is_a_new_process_every_game():
    spec = parse_spec(f"honest=cmd:{sys.executable} {BOTS / 'honest.py'}")
    bot = open_process_bot(spec, Limits(), get_plugins())
    pids = []
    try:
        for _ in range(3):
            bot.start(START, 5000)
            pids.append(bot.process.pid)
            bot.finish_game()
    finally:
        bot.close()
    assert len(set(pids)) == 3
