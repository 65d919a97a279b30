"""How a template forks each game's bot: without Python's fork handlers where it runs one thread (the pages
their code writes are not copied into every game), with them where it runs more; ``random`` seeded afresh
in every game either way."""

from __future__ import annotations

import pytest

from arena.entrants import parse_spec
from arena.match import Limits
from arena.plugins import get_plugins
from arena.sandbox import open_process_bot

START = {"type": "start", "game": "silk-road", "seat": 0, "players": ["a", "b"], "options": {}, "time": {},
         "setup_public": {}, "seed": 1}
DECIDE = {"type": "decide", "decision": "extra_draw", "legal": {"max": 2}, "view": {}, "events": [],
          "time_left_ms": 20000}

#: a bot that tells what its process saw after the fork: whether a callback its module registered for
#: forked children ran, its global random numbers, and what ``threading`` counts there
FORK_BOT = '''
import os, random, threading, time

HANDLED = []
os.register_at_fork(after_in_child=lambda: HANDLED.append(os.getpid()))
if os.environ.get("OMP_NUM_THREADS") == "2":  # the test's second case: a template running a second thread
    threading.Thread(target=time.sleep, args=(600,), daemon=True).start()


class Bot:
    def decide(self, message):
        return {"handled": len(HANDLED), "random": random.random(), "threads": threading.active_count(),
                "main": threading.current_thread() is threading.main_thread()}
'''


def _games(tmp_path, monkeypatch, threads: int) -> list[dict]:
    (tmp_path / "fork_bot.py").write_text(FORK_BOT)
    monkeypatch.chdir(tmp_path)
    plugins = get_plugins()
    bot = open_process_bot(parse_spec("f=py:fork_bot:Bot", plugins), Limits(start_ms=5000, threads=threads),
                           plugins)
    seen = []
    try:
        for _ in range(3):
            bot.start(START, 5000)
            if not bot.launcher.forks:
                pytest.skip("no template here: each game's bot is a new interpreter")
            seen.append(bot.decide(DECIDE, 5000)[0])
            bot.finish_game()
    finally:
        bot.close()
    return seen


def test_a_template_of_one_thread_forks_its_games_without_pythons_fork_handlers(tmp_path, monkeypatch):
    """No ``os.register_at_fork`` callback runs in a game's bot forked by a template of one thread (``threading``'s,
    ``logging``'s and ``random``'s would write about 200 pages each game copies); its global random numbers
    are still its own each game (seeded afresh, as after ``os.fork``), and ``threading`` sees one main thread."""
    seen = _games(tmp_path, monkeypatch, threads=1)
    assert [game["handled"] for game in seen] == [0, 0, 0]
    assert len({game["random"] for game in seen}) == 3
    assert all(game["threads"] == 1 and game["main"] for game in seen)


def test_a_template_running_a_second_thread_forks_its_games_with_pythons_fork_handlers(tmp_path, monkeypatch):
    """Where the template runs more threads (``[limits] threads`` above one lets it), Python's fork handlers
    run in each game's bot: the other thread's state and locks are reset, and the bot's own callbacks run."""
    seen = _games(tmp_path, monkeypatch, threads=2)
    assert [game["handled"] for game in seen] == [1, 1, 1]
    assert len({game["random"] for game in seen}) == 3
    assert all(game["threads"] == 1 and game["main"] for game in seen)


def test_a_template_makes_what_its_games_jails_pass_the_kernel_once():
    """``limits.prepare_games`` (the template, before each fork) makes each game's id maps and scratch mounts
    as the kernel takes them, once per user and size: each game's bot finds them made (no object of its own to
    make, no page more to copy), the same for every game, a new plan only for another size or user."""
    from arena.sandbox import jail, limits

    limits.prepare_games((1000, 1001), 64)
    plan = jail.scratch_plan(64, (1000, 1001))
    assert jail.scratch_plan(64, (1000, 1001)) is plan and limits.id_maps((1000, 1001)) is limits.id_maps((1000, 1001))
    assert plan.tmpfs == (b"tmpfs", b"/.scratch", b"tmpfs", jail.MS_NOSUID | jail.MS_NODEV,
                          b"mode=0755,size=64m,nr_inodes=16384,uid=1000,gid=1001")
    assert plan.folders == ((b"/.scratch/tmp", 0o1777, b"/tmp"), (b"/.scratch/shm", 0o1777, b"/dev/shm"),
                            (b"/.scratch/home", 0o700, b"/home/bot"))
    assert limits.id_maps((1000, 1001)) == ((b"/proc/self/setgroups", b"deny"), (b"/proc/self/uid_map", b"1000 1000 1"),
                                            (b"/proc/self/gid_map", b"1001 1001 1"))
    assert jail.scratch_plan(32, (1000, 1001)).tmpfs[4].startswith(b"mode=0755,size=32m,")
    assert jail.scratch_plan(64, (7, 7), "/newroot").folders[0] == (b"/newroot/.scratch/tmp", 0o1777, b"/newroot/tmp")
