"""Lazy freezing does nothing per decision for a bot that needs nothing done.

A bot is remembered as awake after its answer (:func:`arena.sandbox.freezer.awake_here`) only when it is
to be stopped before the next bot's turn (:meth:`arena.sandbox.freezer.Freezer.stops`): an idle bot with a
cgroup v2 freezer is not (its CPU between its turns is charged anyway), so asking a bot does nothing for the
one asked before it. A bot seen computing between its turns is frozen before the next bot's turn
(``tests/test_sandbox_fresh.py``).
"""

from __future__ import annotations

import pytest

from arena.entrants import parse_spec
from arena.match import Limits
from arena.plugins import get_plugins
from arena.sandbox import open_process_bot
from arena.sandbox.freezer import awake_here

START = {"type": "start", "game": "modern-art", "seat": 0, "players": ["a", "b"], "options": {}, "time": {},
         "setup_public": {}, "seed": 1}
QUICK = {"type": "decide", "decision": "bid", "legal": {"min": 1, "max": 100}, "view": {}, "events": [],
         "time_left_ms": 10000}
BOT = '''
class Bot:
    def decide(self, message):
        return {"bid": 1}
'''


@pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "fresh"])
def test_bots_not_frozen_between_their_turns_are_not_kept_awake(tmp_path, reuse):
    (tmp_path / "quick_bot.py").write_text(BOT)
    plugins = get_plugins()
    bots = [open_process_bot(parse_spec("quick=py:quick_bot:Bot", plugins, base_dir=str(tmp_path)),
                             Limits(start_ms=5000, reuse=reuse), plugins) for _ in range(2)]
    try:
        for bot in bots:
            bot.start(START, 5000)
        if any(bot.cgroup is None or not bot.cgroup.core for bot in bots):
            pytest.skip("no cgroup v2 freezer here: every bot is stopped with SIGSTOP between its turns")
        for turn in range(6):
            assert bots[turn % 2].decide(QUICK, 5000)[0] == {"bid": 1}
            # a fresh game's bot is remembered only while its template has (or had, as it was asked) a request to
            # answer (its cell is paused with it); a template held between requests is frozen already
            asked, cell = bots[turn % 2], bots[turn % 2].cell
            assert awake_here() <= ({asked} if cell is not None else set())
            assert asked in awake_here() or cell is None or not cell.wanted
            assert not any(bot.frozen for bot in bots)
    finally:
        for bot in bots:
            bot.close()
