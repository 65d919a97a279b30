"""Fresh bots per game: forked from a template for Python bots, a new process for external ones."""

from __future__ import annotations

import ctypes
import json
import errno
import mmap
import os
import resource
import sys
import time
from pathlib import Path

import pytest

from arena.entrants import parse_spec
from arena.errors import BotCrashed, BotTimeout
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


DECIDE = {"type": "decide", "decision": "extra_draw", "legal": {"max": 2}, "view": {}, "events": [],
          "time_left_ms": 20000}


def test_a_forked_bots_cpu_backstop_moves_with_what_a_decision_may_spend():
    """RLIMIT_CPU is the bot's own (not its keeper's or template's): raised when a decision may need more."""
    plugins = get_plugins()
    bot = open_process_bot(parse_spec("random", plugins), Limits(start_ms=1000, move_ms=20000, bank_ms=0), plugins)
    try:
        for _ in range(2):  # the second game's bot starts again from the template's limit
            bot.start(START, 1000)
            if bot.cgroup is None or not bot.cgroup.core:
                return  # timed on the bot's own clock: the backstop follows another path
            try:
                first = resource.prlimit(bot.process.bot(), resource.RLIMIT_CPU)[0]
            except PermissionError:
                pytest.skip("the runner may not change another user's limits here (no CAP_SYS_RESOURCE)")
            bot.decide(DECIDE, 20000)
            moved = resource.prlimit(bot.process.bot(), resource.RLIMIT_CPU)[0]
            assert first < 20 <= moved, (first, moved)
            bot.finish_game()
    finally:
        bot.close()


CPUS_BOT = "import os\n\nclass Bot:\n    def decide(self, message):\n        return sorted(os.sched_getaffinity(0))\n"


@pytest.mark.parametrize("reuse", [False, True], ids=["fresh", "reuse"])
@pytest.mark.parametrize("threads", [1, 2])
def test_a_pinned_runners_bots_play_on_its_core_unless_they_may_run_threads(tmp_path, threads, reuse):
    """A worker pinned to a core (``arena run``'s local pool, sandboxed, no more workers than cores) plays its
    games' bots on that core, where they take turns with it (about a tenth less CPU a jailed game than spread
    over every core, docs/performance.md); a tournament that lets a bot run several threads (``[limits]
    threads``) lets it use every core. A fresh game's bot and a reused process alike."""
    cores = os.sched_getaffinity(0)
    if len(cores) < 2:
        pytest.skip("one core here: nothing to keep or spread")
    (tmp_path / "cpus_bot.py").write_text(CPUS_BOT)
    plugins = get_plugins()
    limits = Limits(start_ms=5000, threads=threads, reuse=reuse)
    core = max(cores)
    os.sched_setaffinity(0, {core})
    try:
        bot = open_process_bot(parse_spec("cpus=py:cpus_bot:Bot", plugins), limits, plugins)
        try:
            bot.start(START, 5000)
            seen, _ = bot.decide(DECIDE, 5000)
        finally:
            bot.close()
    finally:
        os.sched_setaffinity(0, cores)
    assert seen == ([core] if threads == 1 else list(range(os.cpu_count() or 1))), seen


THIEF_BOT = '''
import threading, time

class Bot:
    def decide(self, message):
        if message.get("burn"):  # computes between its turns: a thread burns this much CPU after the answer
            threading.Thread(target=self.burn, args=(message["burn"],), daemon=True).start()
        return 1

    def burn(self, seconds):
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass
'''


def _burnt(bot, cpu_ns: int, seconds: float) -> None:
    """Wait until ``bot``'s processes used ``seconds`` of CPU more than ``cpu_ns`` (at most 10 s)."""
    deadline = time.monotonic() + 10
    while bot.cpu_ns() - cpu_ns < seconds * 1e9 and time.monotonic() < deadline:
        time.sleep(0.02)


def test_an_idle_bot_is_not_frozen_and_one_computing_between_its_turns_is_charged_then_frozen(tmp_path):
    """Lazy freezing: a bot blocked reading its next request is left alone (no freeze and thaw per decision);
    one whose thread computes between its turns is charged all of it in its next decision, and is frozen
    between its turns from then on (what it starts later computes nothing while the other bot is asked)."""
    (tmp_path / "thief_bot.py").write_text(THIEF_BOT)
    plugins = get_plugins()
    thief = open_process_bot(parse_spec("thief=py:thief_bot:Bot", plugins), Limits(start_ms=5000), plugins)
    honest = open_process_bot(parse_spec("random", plugins), Limits(start_ms=5000), plugins)
    burn = dict(DECIDE, burn=0.3)
    try:
        for bot in (thief, honest):
            bot.start(START, 5000)
        if any(bot.launcher.cgroup is None or not bot.launcher.cgroup.core for bot in (thief, honest)):
            pytest.skip("no cgroup v2 freezer here: every bot is stopped with SIGSTOP")
        before = thief.cpu_ns()
        thief.decide(burn, 5000)
        honest.decide(DECIDE, 1000)
        assert not thief.frozen and not honest.frozen  # not seen computing between its turns yet
        _burnt(thief, before, 0.29)
        _, charged = thief.decide(DECIDE, 5000)
        assert charged >= 280, charged  # its thread's CPU since its last answer, charged to this decision
        thief.decide(burn, 5000)
        honest.decide(DECIDE, 1000)
        assert thief.frozen and not honest.frozen
        frozen_at = thief.cpu_ns()
        time.sleep(0.3)
        assert thief.cpu_ns() - frozen_at < 30e6, "a frozen bot computed while the other bot was asked"
        honest.decide(DECIDE, 1000)
        assert thief.frozen and not honest.frozen
    finally:
        for bot in (thief, honest):
            bot.close()


def test_a_bot_computing_between_its_turns_past_its_time_times_out_on_the_cpu_clock(tmp_path):
    """What a bot's thread burns while another bot is asked (it is not frozen: not seen computing yet) counts
    against its next decision: over its limit, that decision is a timeout on the CPU clock, though the bot
    answered at once."""
    (tmp_path / "thief_bot.py").write_text(THIEF_BOT)
    plugins = get_plugins()
    thief = open_process_bot(parse_spec("thief=py:thief_bot:Bot", plugins), Limits(start_ms=5000), plugins)
    honest = open_process_bot(parse_spec("random", plugins), Limits(start_ms=5000), plugins)
    try:
        for bot in (thief, honest):
            bot.start(START, 5000)
        if thief.launcher.cgroup is None or not thief.launcher.cgroup.core:
            pytest.skip("no cgroup v2 clock here")
        before = thief.cpu_ns()
        thief.decide(dict(DECIDE, burn=0.3), 5000)
        honest.decide(DECIDE, 1000)
        _burnt(thief, before, 0.29)
        with pytest.raises(BotTimeout) as raised:
            thief.decide(DECIDE, 200)
        assert raised.value.clock == "cpu" and "of CPU time, limit 200 ms" in str(raised.value)
        assert not thief.healthy
    finally:
        for bot in (thief, honest):
            bot.close()


@pytest.mark.parametrize("kernel", ["procmap_query", "text"])
def test_a_forked_bot_keeps_no_shared_mapping_of_its_template(kernel, monkeypatch):
    """What a template mapped shared, writable or not (a channel between its games), is gone in every game's bot,
    found by PROCMAP_QUERY where the kernel has it, else by reading /proc/self/maps."""
    from arena.sandbox import jail
    from arena.sandbox import kernel as kernel_calls

    if kernel == "text":
        def refuse(*args):
            raise OSError(errno.ENOTTY, "no PROCMAP_QUERY")

        monkeypatch.setattr(kernel_calls.fcntl, "ioctl", refuse)
    shared = mmap.mmap(-1, 8192)
    readonly = mmap.mmap(-1, 4096, prot=mmap.PROT_READ)  # mprotect could make it writable again in a game
    private = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE)
    address = ctypes.addressof(ctypes.c_char.from_buffer(shared))
    # the test process may hold others (earlier tests' SQLite -shm files, multiprocessing's semaphores)
    assert address in [start for start, _ in jail._shared_mappings()]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through the pipe
        jail.unmap_shared_memory()
        with open("/proc/self/maps") as maps:  # read as text here: the kernel's word, not the function's
            left = [line for line in maps if line.split()[1][3] == "s"]
        os.write(write, repr(jail._shared_mappings() + left).encode())
        os._exit(0)
    os.close(write)
    seen = os.read(read, 1000)
    os.close(read)
    os.waitpid(pid, 0)
    assert seen == b"[]"
    private[0] = 1  # private mappings stay
    assert len(readonly) == 4096


def test_what_a_template_computes_forking_a_game_counts_in_that_games_start_however_late_it_starts(monkeypatch):
    """A template (the bot's code, between games) computes nothing for free: what it uses from its last game's
    end on (it forks the next game's bot then) counts in the next game's start, also when the runner starts
    that game long after (it had other games to play). The template here computes 0.6 s on each request for a
    game; each later start, over its 300 ms, is a timeout on the CPU clock (the runner's start used to read the
    template's clock again, leaving what it had computed meanwhile uncharged)."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent / "hostile" / "bots"))
    plugins = get_plugins()
    limits = Limits(start_ms=300, move_ms=1000, bank_ms=2000)
    bot = open_process_bot(parse_spec("attacker=py:hostile_template:Bot", options={"burn": 0.6}), limits, plugins)
    try:
        if bot.launcher.cell is None or not bot.launcher.cgroup.core:
            pytest.skip("no cgroup v2 clock for a template here")
        bot.start(START, 5000)  # its first game (its template's import and first fork count in this start)
        bot.finish_game()
        timeouts = []
        for _ in range(2):
            time.sleep(1.5)  # the runner busy elsewhere: the template forks this game's bot (and computes) now
            try:
                bot.start(START, 300)
            except BotTimeout as error:  # the seat ended that game's bot already (and asked for the next)
                timeouts.append(error)
            else:
                bot.finish_game()
        assert len(timeouts) == 2, "a start did not count what its template computed before it"
        assert all(error.clock == "cpu" and "limit 300 ms" in str(error) for error in timeouts), timeouts
    finally:
        bot.close()


def test_a_seat_whose_template_died_plays_its_next_game_with_a_new_template():
    """One failed start (its template killed between games) costs that game only, not every later one."""
    bot = open_process_bot(parse_spec("random", get_plugins()), Limits(start_ms=3000), get_plugins())
    try:
        bot.start(START, 3000)
        bot.finish_game()
        first = bot.launcher.template_pid
        os.kill(first, 9)
        bot.launcher.template_process.wait(timeout=10)  # its keeper is gone once it and its games are
        with pytest.raises(BotCrashed):
            bot.start(START, 3000)
        bot.finish_game()
        for _ in range(3):
            bot.start(START, 3000)
            bot.finish_game()
        assert bot.launcher.template_pid != first
    finally:
        bot.close()


@pytest.mark.slow  # ~5 s: the race it guards against failed a start once in 200-1500 games here
def test_a_thousand_games_in_a_row_each_find_their_bot():
    """The runner learns a game's bot from the pidfd its template sends, not from the template's list of
    children, which misses a child while another exits (that failed a start about once in a thousand)."""
    bot = open_process_bot(parse_spec("random", get_plugins()), Limits(start_ms=3000), get_plugins())
    try:
        for _ in range(1000):
            bot.start(START, 3000)
            bot.end({"type": "end"})
            bot.finish_game()
    finally:
        bot.close()


MODES_BOT = '''
import json, os, stat, sys

def modes():
    return {place: [oct(stat.S_IMODE(os.stat(place).st_mode)), os.stat(place).st_uid == os.getuid()]
            for place in ("/tmp", "/dev/shm", os.path.expanduser("~"), os.getcwd())}

class Bot:
    def start(self, message):
        print("modes: " + json.dumps(modes()), file=sys.stderr, flush=True)

    def decide(self, message):
        return None

if __name__ == "__main__":
    for line in sys.stdin:
        if json.loads(line)["type"] == "start":
            Bot().start({})
            print(json.dumps({"type": "ready"}), flush=True)
'''


@pytest.mark.parametrize("kind", ["py", "cmd"])
def test_a_bots_scratch_folders_are_its_own_with_their_modes(tmp_path, kind):
    """/tmp and /dev/shm sticky and open to all (1777), its home its own (700), every game (made in the jail)."""
    (tmp_path / "modes_bot.py").write_text(MODES_BOT)
    spec = "m=py:modes_bot:Bot" if kind == "py" else f"m=cmd:{sys.executable} {tmp_path / 'modes_bot.py'}"
    bot = open_process_bot(parse_spec(spec, get_plugins()), Limits(start_ms=5000), get_plugins())
    seen = []
    try:
        for _ in range(2):
            bot.start(START, 5000)
            bot._drain_stderr()
            seen.append(bot.stderr_text().rsplit("modes: ", 1)[1].splitlines()[0])
            bot.finish_game()
    finally:
        bot.close()
    expected = {"/tmp": ["0o1777", True], "/dev/shm": ["0o1777", True], "/home/bot": ["0o700", True]}
    assert [json.loads(text) for text in seen] == [expected, expected]
