"""A decision's exchange kept on one core, and nothing remembered for a bot that needs nothing done.

A quick bot's process is pinned to the core its runner runs on (:mod:`arena.sandbox.placement`: a
wake-up of another, idle core costs more than the rest of the exchange on a virtual machine); one that
thinks longer, or may start several threads, runs where the kernel puts it. A bot that is not frozen
between its turns is not kept in its thread's awake set (nothing is done for it before another bot is
asked). What a bot is charged is tested beside it (``tests/test_sandbox_fresh.py``,
``tests/test_sandbox_exchange.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from arena.entrants import parse_spec
from arena.match import Limits
from arena.plugins import get_plugins
from arena.sandbox import open_process_bot
from arena.sandbox.freezer import awake_here
from arena.sandbox import placement

START = {"type": "start", "game": "modern-art", "seat": 0, "players": ["a", "b"], "options": {}, "time": {},
         "setup_public": {}, "seed": 1}
QUICK = {"type": "decide", "decision": "bid", "legal": {"min": 1, "max": 100}, "view": {}, "events": [],
         "time_left_ms": 10000}
#: what counts as quick here (ms): far above what an answer at once takes on a loaded machine
QUICK_MS = 200.0
SLOW = dict(QUICK, sleep=QUICK_MS * 2 / 1000)
BOT = '''
import time

class Bot:
    def decide(self, message):
        time.sleep(message.get("sleep", 0))
        return {"bid": 1}
'''
CORES = sorted(os.sched_getaffinity(0))
pytestmark = pytest.mark.skipif(len(CORES) < 2, reason="one core: nowhere else to run")


@pytest.fixture
def on_core(monkeypatch) -> Iterator[object]:
    """Moves this process (the runner) to a core of the caller's choice; restores its cores after the test."""
    monkeypatch.setattr(placement, "QUICK_MS", QUICK_MS)
    allowed = os.sched_getaffinity(0)

    def move(core: int) -> None:
        os.sched_setaffinity(0, {core})

    yield move
    os.sched_setaffinity(0, allowed)


def _bot(tmp_path, limits: Limits):
    (tmp_path / "quick_bot.py").write_text(BOT)
    plugins = get_plugins()
    bot = open_process_bot(parse_spec("quick=py:quick_bot:Bot", plugins, base_dir=str(tmp_path)), limits, plugins)
    bot.start(START, 5000)
    return bot


@pytest.mark.parametrize("reuse", [True, False], ids=["reuse", "fresh"])
def test_a_quick_bot_runs_on_its_runners_core_and_follows_it_and_a_slow_one_runs_anywhere(tmp_path, on_core,
                                                                                           reuse):
    bot = _bot(tmp_path, Limits(start_ms=5000, reuse=reuse))
    try:
        if not reuse:  # the first game's bot from its template: its decisions as any game's
            bot.finish_game()
            bot.start(START, 5000)
        anywhere = set(CORES)  # what it was born with (its runner's cores)
        on_core(CORES[0])
        assert bot.decide(QUICK, 5000)[0] == {"bid": 1}  # its first decision: pinned
        assert os.sched_getaffinity(bot.pid) == {CORES[0]}
        on_core(CORES[1])  # the runner moved: its bot follows at its next decision
        bot.decide(QUICK, 5000)
        assert os.sched_getaffinity(bot.pid) == {CORES[1]}
        bot.decide(SLOW, 5000)  # pinned while asked (quick last time); then not quick
        bot.decide(QUICK, 5000)
        assert os.sched_getaffinity(bot.pid) == anywhere
        bot.decide(QUICK, 5000)  # quick again: pinned again
        assert os.sched_getaffinity(bot.pid) == {CORES[1]}
    finally:
        bot.close()


def test_a_bot_that_may_start_several_threads_is_not_pinned(tmp_path, on_core):
    bot = _bot(tmp_path, Limits(start_ms=5000, reuse=True, threads=2))
    try:
        on_core(CORES[0])
        for _ in range(3):
            bot.decide(QUICK, 5000)
        assert os.sched_getaffinity(bot.pid) == set(CORES)
    finally:
        bot.close()


def test_bots_not_frozen_between_their_turns_are_not_kept_awake(tmp_path):
    """Lazy freezing remembers a bot after its answer only when it is to be stopped before the next bot's
    turn: an idle bot with a cgroup freezer is not (its CPU between turns is charged anyway), so a decision
    does nothing for the bot asked before."""
    bots = [_bot(tmp_path, Limits(start_ms=5000, reuse=True)) for _ in range(2)]
    try:
        if any(bot.cgroup is None or not bot.cgroup.core for bot in bots):
            pytest.skip("no cgroup v2 freezer here: every bot is stopped with SIGSTOP between its turns")
        for turn in range(6):
            assert bots[turn % 2].decide(QUICK, 5000)[0] == {"bid": 1}
            assert awake_here() == set()
            assert not any(bot.frozen for bot in bots)
    finally:
        for bot in bots:
            bot.close()
