"""One decision's exchange with a jailed bot: what it costs the runner in system calls, and the channel's parts.

The runner's side of a decision is one ``write`` of the request, one ``epoll``
wait, one ``read`` of the answer and one reading of the bot's CPU clock (its
cgroup's ``cpu.stat``); a reply that comes in pieces costs a wait and a clock
reading more per piece, so that a bot that never finishes its line is still
timed out. Fairness is tested beside it (``tests/test_sandbox_fresh.py``: CPU
used between turns is charged; ``tests/hostile/``).
"""

from __future__ import annotations

import logging
import os
import select
import sys
import time
from typing import Any

import orjson
import pytest

from arena.entrants import parse_spec
from arena.errors import BotTimeout
from arena.match import Limits
from arena.plugins import get_plugins
from arena.sandbox import cgroups, channel, clock, freezer, open_process_bot
from arena.sandbox.channel import EXTRA, STDOUT, LineChannel
from arena.sandbox.output import StderrCapture
from arena.sandbox.process import DUMP_OPTIONS, encode

START = {"type": "start", "game": "modern-art", "seat": 0, "players": ["a", "b"], "options": {}, "time": {},
         "setup_public": {}, "seed": 1}
DECIDE = {"type": "decide", "decision": "bid", "legal": {"min": 1, "max": 100},
          "view": {"hand": [{"id": n, "artist": "Yoko", "auction": "open"} for n in range(9)],
                   "money": [100, 100], "markers": {"Yoko": [0, 0]}},
          "events": [{"type": "bid", "seat": 1, "bid": 20}], "time_left_ms": 10000}
ECHO_BOT = '''
class Bot:
    def decide(self, message):
        return {"bid": len(message["view"]["hand"]), "keys": sorted(message["view"].get("by_seat", {}))}
'''
#: a program that answers each line in two pieces, the second 50 ms after the first
HALVES = '''
import os, sys, time
for line in sys.stdin.buffer:
    os.write(1, b'{"bid": ')
    time.sleep(0.05)
    os.write(1, b'7}\\n')
'''


class Counting:
    """Stands for a module or object: calls of the names in ``counted`` are counted in ``calls``, then made."""

    def __init__(self, target: Any, counted: tuple[str, ...], calls: dict[str, int]) -> None:
        self._target, self._counted, self._calls = target, counted, calls

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if name not in self._counted:
            return value

        def counted(*args: Any) -> Any:
            self._calls[name] = self._calls.get(name, 0) + 1
            return value(*args)

        return counted


@pytest.fixture(params=[True, False], ids=["reuse", "fresh"])
def echo(tmp_path, request):
    """A jailed Python bot answering at once: one process for every game (reuse), or each game's forked from
    its template (fresh)."""
    (tmp_path / "echo_bot.py").write_text(ECHO_BOT)
    plugins = get_plugins()
    bot = open_process_bot(parse_spec("echo=py:echo_bot:Bot", plugins), Limits(start_ms=5000, reuse=request.param),
                           plugins)
    try:
        bot.start(START, 5000)
        if bot.template:  # its second game: the first one's template may still be starting, not yet frozen
            bot.finish_game()
            bot.start(START, 5000)
        yield bot
    finally:
        bot.close()


def test_a_decision_costs_the_runner_one_write_one_wait_one_read_and_one_clock_reading(echo, monkeypatch):
    """The runner's system calls per decision, counted on the channel and the clock (no more than that:
    each costs more than the Python around it, and the jail's CPU a decision is issue 25's target)."""
    if echo.template:  # its template forks the next game's bot meanwhile, its cell free (and read) until then
        deadline = time.monotonic() + 10
        while not echo.launcher.cell.frozen and time.monotonic() < deadline:
            echo.decide(DECIDE, 5000)
    calls: dict[str, int] = {}
    monkeypatch.setattr(channel, "os", Counting(os, ("write", "read"), calls))
    monkeypatch.setattr(cgroups, "os", Counting(os, ("pread",), calls))
    monkeypatch.setattr(freezer, "os", Counting(os, ("pread", "pwrite"), calls))  # a template's cell
    monkeypatch.setattr(clock, "time", Counting(clock.time, ("clock_gettime_ns",), calls))
    echo.channel.poller = Counting(echo.channel.poller, ("poll",), calls)
    by_cgroup = echo.cgroup is not None and echo.cgroup.core is not None
    for _ in range(20):
        reply, charged = echo.decide(DECIDE, 5000)
        assert reply == {"bid": 9, "keys": []} and 0 < charged < 5000
    clock_readings = calls.pop("pread", 0) + calls.pop("clock_gettime_ns", 0)
    if echo.template:  # its template may still say that its last game's bot exited: one wait more
        assert calls.pop("poll") in (20, 21)
        calls["poll"] = 20
    assert calls == {"write": 20, "poll": 20, "read": 20}
    assert clock_readings == 20 if by_cgroup else clock_readings <= 40


def test_a_reply_in_pieces_is_read_whole_and_a_bot_that_never_ends_its_line_is_timed_out(tmp_path):
    """Each piece of an answer costs one more wait (and a clock reading); the answer is the whole line."""
    (tmp_path / "halves.py").write_text(HALVES)
    plugins = get_plugins()
    bot = open_process_bot(parse_spec(f"halves=cmd:{sys.executable} halves.py"), Limits(start_ms=5000), plugins)
    try:
        for _ in range(2):
            reply, charged = bot.decide(DECIDE, 5000)
            assert reply == {"bid": 7}
            assert charged >= 50 / bot.wall_factor  # the wall clock counts at 1/wall_factor
        with pytest.raises(BotTimeout) as raised:
            bot.decide(DECIDE, 10)  # its line ends after 50 ms of wall time: more than wall_factor x 10 ms
        assert raised.value.clock == "wall" and "no answer after" in str(raised.value)
    finally:
        bot.close()


def test_keys_that_are_not_strings_go_out_as_the_same_bytes_as_before(echo):
    """A request with integer keys (a game's table by seat) is sent, written as strings, as orjson's
    non-string-key option writes it; every other request without that option's cost, to the same bytes."""
    with_seats = {**DECIDE, "view": {**DECIDE["view"], "by_seat": {0: "a", 1: "b"}}}
    for message in (DECIDE, with_seats):
        assert encode(message) == orjson.dumps(message, option=DUMP_OPTIONS)
    reply, _ = echo.decide(with_seats, 5000)
    assert reply["keys"] == ["0", "1"]


@pytest.fixture
def pipes():
    """A channel on three new pipes and an extra socket-like pipe; the far ends to write and read."""
    ours: dict[str, int] = {}
    theirs: dict[str, int] = {}
    for name in ("stdin", "stdout", "stderr", "extra"):
        read_end, write_end = os.pipe()
        ours[name], theirs[name] = (write_end, read_end) if name == "stdin" else (read_end, write_end)
    lines = LineChannel(ours["stdin"], ours["stdout"], ours["stderr"], StderrCapture(logging.getLogger("test")))
    lines.watch(ours["extra"])
    yield lines, theirs
    lines.close(descriptors=True)
    for fd in (*theirs.values(), ours["extra"]):
        try:
            os.close(fd)
        except OSError:
            pass


def test_one_wait_takes_the_answer_and_the_stderr_ready_with_it(pipes):
    lines, theirs = pipes
    assert lines.pump(0) is None and lines.line() is None
    os.write(theirs["stderr"], b"thinking\n")
    os.write(theirs["stdout"], b'{"bid": 3}\n')
    assert lines.pump(1) is None
    assert lines.line() == b'{"bid": 3}' and lines.line() is None
    assert "thinking" in lines.capture.text()


def test_a_wait_says_when_the_bot_closed_its_stdout_or_its_launcher_has_news(pipes):
    lines, theirs = pipes
    os.write(theirs["extra"], b"x")
    assert lines.pump(1) == EXTRA
    os.read(lines.extra, 1)
    os.close(theirs["stdout"])
    assert lines.pump(1) == STDOUT
    assert lines.pump(1) == STDOUT  # reported again at the next wait: nothing is lost


def test_a_message_the_pipe_takes_whole_is_one_write_and_a_longer_one_comes_back_in_part(pipes):
    lines, theirs = pipes
    assert lines.write(b"x" * 1000) == b""
    assert os.read(theirs["stdin"], 2000) == b"x" * 1000
    size = 1 << 20  # more than a pipe holds
    rest = lines.write(b"y" * size)
    assert isinstance(rest, memoryview) and 0 < len(rest) < size
    taken = b""
    while len(taken) < size - len(rest):
        taken += os.read(theirs["stdin"], 1 << 16)
    assert taken == b"y" * (size - len(rest))
    assert select.select([], [lines.stdin], [], 0)[1]  # writable again once read
