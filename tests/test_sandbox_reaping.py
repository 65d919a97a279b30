"""A Python bot's games are the children of its template's reaper, never of the template (arena/sandbox/reaper.py).

The reaper is process 1 of the template's PID namespace and never runs the
bot's code; the template is its process 2 and forks each game with
``CLONE_PARENT``. These tests check what the runner still knows (how a game's
bot ended, from the reaper), that nothing is left behind (no zombie in the
reaper, the keeper or the runner), that a game's bot forked that way is an
ordinary process to its C library (it caches its own thread id), and
what the games' filter adds (no dumpable again, no CPU clock of a process by
its id). What the template itself cannot learn is attacked in
tests/hostile/test_hostile_template.py.
"""

from __future__ import annotations

import errno
import json
import os

import pytest

from arena.entrants import parse_spec
from arena.errors import BotCrashed
from arena.match import Limits
from arena.plugins import get_plugins
from arena.sandbox import open_process_bot
from arena.sandbox.probe import protections

START = {"type": "start", "game": "modern-art", "seat": 0, "players": ["a", "b"], "options": {}, "time": {},
         "setup_public": {}, "seed": 1}
DECIDE = {"type": "decide", "decision": "bid", "legal": {"min": 1, "max": 100}, "view": {}, "events": [],
          "time_left_ms": 10000}
BOT = '''
import ctypes, json, os, sys, threading, time

class Bot:
    def start(self, info):
        libc = ctypes.CDLL(None, use_errno=True)
        dumpable = libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE back to 1
        seen = {"dumpable": [dumpable, ctypes.get_errno()]}
        try:
            time.clock_gettime(((~1) << 3) | 2)  # the CPU clock of process 1 (this bot, named by its id)
            seen["by_id"] = "read"
        except OSError as error:
            seen["by_id"] = error.errno
        seen["own"] = time.clock_gettime(time.CLOCK_PROCESS_CPUTIME_ID) > 0
        seen["thread"] = time.clock_gettime(time.pthread_getcpuclockid(threading.get_ident())) > 0
        field = (ctypes.c_uint32 * 3).in_dll(libc, "_thread_db_pthread_tid")  # where glibc caches a thread's id
        libc.pthread_self.restype = ctypes.c_void_p
        cached = ctypes.c_int.from_address(libc.pthread_self() + field[2]).value
        seen["thread_id"] = [os.getpid(), cached == threading.get_native_id()]
        print("seen: " + json.dumps(seen), file=sys.stderr, flush=True)

    def decide(self, message):
        if message.get("end") == "exit":
            os._exit(7)
        if message.get("end") == "segfault":
            ctypes.string_at(0)
        return {"bid": 1}
'''


@pytest.fixture
def seat(tmp_path):
    if not protections().fork_template:
        pytest.fail("Python bots are not forked from a template here: " + ", ".join(protections().off()))
    (tmp_path / "reaped_bot.py").write_text(BOT)
    plugins = get_plugins()
    bot = open_process_bot(parse_spec("reaped=py:reaped_bot:Bot", plugins, base_dir=str(tmp_path)),
                           Limits(start_ms=5000), plugins)
    yield bot
    bot.close()


def children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(field) for field in handle.read().split()]
    except OSError:
        return []


def zombies(pid: int) -> list[int]:
    """The children of ``pid`` that ended and were not reaped."""
    found = []
    for child in children(pid):
        try:
            with open(f"/proc/{child}/stat") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    found.append(child)
        except OSError:
            pass
    return found


def test_a_game_that_ends_early_is_a_crash_with_its_status_or_signal_from_the_reaper(seat):
    """A game's bot that exits with status 7, and one that dies of SIGSEGV: the runner, which is not their
    parent and hears nothing of their template, records each crash with its status and signal, from the
    reaper."""
    details = []
    for end in ("exit", "segfault"):
        seat.start(START, 5000)
        with pytest.raises(BotCrashed) as crash:
            seat.decide(dict(DECIDE, end=end), 5000)
        details.append(str(crash.value))
    assert details[0].startswith("exited with status 7"), details
    assert details[1].startswith("was killed by SIGSEGV"), details


def test_games_ended_every_way_leave_no_zombie_and_the_reaper_holds_only_the_template_and_the_game_in_play(seat):
    """Four games ended by an exit, a kill at the game's end, a SIGSEGV and a kill; then a fifth starts. The
    reaper's children are the template and the fifth game's bot, nothing of the four before, and no process
    holds a zombie. Checked once the fifth game's bot is collected, not at a moment: after each game the
    template forks the next game's bot ahead (once the last is reaped), so between games the reaper holds that
    one too, and whether it was forked yet is a matter of timing."""
    for end in ("exit", "played", "segfault", "played"):
        seat.start(START, 5000)
        if end == "played":
            seat.decide(DECIDE, 5000)
            seat.finish_game()  # killed at its game's end
        else:
            with pytest.raises(BotCrashed):
                seat.decide(dict(DECIDE, end=end), 5000)
    seat.start(START, 5000)  # forked once every bot before it was reaped (launch waits for the reaper's word)
    launcher = seat.launcher
    reaper, template, keeper = launcher.reaper_pid, launcher.template_pid, launcher.template_process.pid
    assert launcher.process is not None
    playing = launcher.process.pid
    assert reaper and template and reaper != template and children(keeper) == [reaper]
    assert sorted(children(reaper)) == sorted([template, playing]), "a game's bot is left in the template's namespace"
    assert zombies(reaper) == zombies(keeper) == zombies(os.getpid()) == []
    assert seat.decide(DECIDE, 5000)[0] == {"bid": 1}


def test_a_games_bot_cannot_be_made_dumpable_again_nor_read_a_cpu_clock_by_process_id(seat):
    """Its template's filter (which it keeps) refuses PR_SET_DUMPABLE but to 0, and any process's CPU clock named
    by its id (the template would read its games'); its own CPU clocks, process and thread, still work. It is
    process 1 of its namespace, and its C library caches its own thread id (its clone wrote it there, as fork
    does), not its template's (process 2 of the template's namespace)."""
    seat.start(START, 5000)
    lines = [line for line in seat.stderr_text().splitlines() if line.startswith("seen: ")]
    seen = json.loads(lines[-1].split(" ", 1)[1])
    if not protections().seccomp:
        pytest.fail("no system-call filter here: " + ", ".join(protections().off()))
    assert seen == {"dumpable": [-1, errno.EPERM], "by_id": errno.EINVAL, "own": True, "thread": True,
                    "thread_id": [1, True]}
    assert seat.decide(DECIDE, 5000)[0] == {"bid": 1}
