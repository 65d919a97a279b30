"""The process adapter: hosted Python bots, reuse and restarts, clocks, and the sandbox on the command line."""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena import hookimpl
from arena.cli import cli
from arena.entrants import parse_spec
from arena.errors import BotCrashed, BotMalformed, BotTimeout, UnknownBot
from arena.match import Limits, play_game
from arena.sandbox.probe import protections
from arena.sandbox.process import ProcessBot
from arena.seating import SeatPool, close_seats, open_seat

BOTS = Path(__file__).parent / "bots"
sys.path.insert(0, str(BOTS))

from tally_game import Tally  # noqa: E402

LIMITS = Limits(start_ms=5000, move_ms=300, bank_ms=600)
START = {"type": "start", "game": "tally", "seat": 0, "seed": 1}
PICK = {"type": "decide", "decision": "pick", "legal": {"max": 3}, "view": {"totals": [0, 0]}, "events": []}


def tally(seats: list, names: list[str] | None = None, limits: Limits = LIMITS) -> dict:
    return play_game(Tally(), {}, {"players": len(seats), "notes": [1] * len(seats)}, seats,
                     names or [f"bot{i}" for i in range(len(seats))], game_id="tally", seed=1,
                     bot_seeds=list(range(len(seats))), limits=limits)


def external(bot: str) -> str:
    return f"{bot}=cmd:{sys.executable} {BOTS / bot}.py"


@pytest.fixture
def seat():
    """Opens seats and closes them after the test."""
    opened = []

    def open_(spec: str, limits: Limits = LIMITS, plugins=None, sandbox: str = "process"):
        opened.append(open_seat(parse_spec(spec), sandbox, limits, plugins))
        return opened[-1]

    yield open_
    close_seats(opened)


def test_a_hosted_python_bot_may_print_and_read_stdin_without_touching_the_protocol(seat, caplog):
    chatty = seat("chatty=py:chatty_bot:ChattyBot")
    with caplog.at_level(logging.INFO, logger="arena.bot"):
        record = tally([chatty, seat(external("honest"))])
    assert record["faults"] == []
    assert record["result"]["money"] == [12, 12]
    log = chatty.stderr_text()
    assert "hello from start" in log and "thinking about pick with [0, 0]" in log and "a raw write" in log
    logged = [r.getMessage() for r in caplog.records if r.name == "arena.bot.chatty"]
    assert "hello from start" in logged and "a raw write" in logged  # the bot's log, line by line


def test_a_hosted_bot_that_raises_is_a_crash_naming_the_exception(seat):
    record = tally([seat("failing=py:chatty_bot:FailingBot"), seat(external("honest"))])
    assert [(f["kind"], f["move"]) for f in record["faults"]] == [("crash", 0)]
    assert "decide raised ValueError('no idea what to do')" in record["faults"][0]["detail"]


def test_a_hosted_bot_returning_what_json_cannot_hold_is_malformed(seat):
    record = tally([seat("sets=py:chatty_bot:SetBot"), seat(external("honest"))])
    assert {f["kind"] for f in record["faults"]} == {"malformed"}
    assert "which is not JSON" in record["faults"][0]["detail"]


def test_a_py_bot_whose_module_does_not_exist_is_refused_before_the_game():
    with pytest.raises(UnknownBot, match="cannot find module 'no_such_module_here'"):
        open_seat(parse_spec("x=py:no_such_module_here:Bot"), "process", LIMITS, None)


def test_a_py_bot_whose_class_does_not_exist_crashes_at_start(seat):
    record = tally([seat("x=py:chatty_bot:NoSuchBot"), seat(external("honest"))])
    assert [(f["kind"], f["decision"]) for f in record["faults"]] == [("crash", "start")]
    assert "has no 'NoSuchBot'" in record["faults"][0]["detail"]


def test_a_program_that_cannot_be_started_crashes_at_start(seat):
    record = tally([seat("ghost=cmd:/no/such/program --flag"), seat(external("honest"))])
    assert [(f["kind"], f["decision"]) for f in record["faults"]] == [("crash", "start")]
    assert "cannot start '/no/such/program'" in record["faults"][0]["detail"]


def test_a_plugin_bot_runs_in_the_host_from_its_importable_class(fresh_plugins, seat):
    from chatty_bot import ChattyBot

    plugin = types.SimpleNamespace(register_bots=hookimpl(
        lambda register: register("chatty", ChattyBot, games=["tally"])))
    plugins = fresh_plugins()
    plugins.register_module(plugin, "test-chatty")
    chatty = seat("chatty", plugins=plugins)
    assert isinstance(chatty, ProcessBot) and "chatty_bot:ChattyBot" in chatty.argv[-1]
    record = tally([chatty, seat(external("honest"))])
    assert record["faults"] == []
    assert "hello from start" in chatty.stderr_text()


@pytest.mark.slow  # ~8 s
def test_with_reuse_one_process_plays_several_games_and_a_broken_one_is_replaced(fresh_plugins):
    pool = SeatPool(fresh_plugins(), "process", dataclasses.replace(LIMITS, reuse=True))
    honest, sleeper = parse_spec(external("honest")), parse_spec(external("sleeper"))
    pids = []
    try:
        for _ in range(3):
            seats = pool.seats([honest, sleeper])
            pids.append([seats[0].process.pid, seats[1].process.pid])
            record = tally(seats)
            assert [(f["seat"], f["kind"]) for f in record["faults"]] == [(1, "timeout")]
            assert seats[0].healthy and not seats[1].healthy
            pool.release(seats)
    finally:
        pool.close()
    assert len({honest_pid for honest_pid, _ in pids}) == 1  # reused: a new start per game
    assert len({sleeper_pid for _, sleeper_pid in pids}) == 3  # killed after each timeout, started afresh


def test_without_reuse_every_game_gets_fresh_processes(fresh_plugins):
    pool = SeatPool(fresh_plugins(), "process", LIMITS)
    honest, hosted = parse_spec(external("honest")), parse_spec("chatty=py:chatty_bot:ChattyBot")
    pids = []
    try:
        for _ in range(3):
            seats = pool.seats([honest, hosted])
            record = tally(seats)
            assert record["faults"] == []
            pids.append([seats[0].pid, seats[1].pid])
            pool.release(seats)
            assert seats[0].process is None and seats[1].process is None  # gone with the game
    finally:
        pool.close()
    assert len({first for first, _ in pids}) == 3 and len({second for _, second in pids}) == 3


def test_a_stopped_adapter_starts_its_process_again_for_the_next_game(seat):
    bot = seat(external("infinite_loop"))
    bot.start(START, 5000)
    bot.decide(PICK, 300)
    with pytest.raises(BotTimeout):
        bot.decide(PICK, 300)
    assert not bot.running and not bot.healthy
    bot.start(START, 5000)
    assert bot.running and bot.healthy
    assert bot.decide(PICK, 300)[0] == {"n": 3}


def test_the_cpu_clock_decides_when_the_wall_clock_is_generous(seat):
    if protections().cpu_clock == "wall":
        pytest.skip("no CPU clock on this machine")
    bot = seat(external("infinite_loop"))
    bot.wall_factor = 1000  # only CPU time can run out
    bot.start(START, 5000)
    bot.decide(PICK, 300)
    with pytest.raises(BotTimeout, match=r"ms of CPU time, limit 300 ms \(cpu clock\)") as caught:
        bot.decide(PICK, 300)
    assert caught.value.clock == bot.clock == "cpu"


def test_a_reply_after_a_malformed_one_is_not_taken_for_the_next_answer(seat):
    bot = seat(external("answers_twice"))
    bot.start(START, 5000)
    with pytest.raises(BotMalformed, match="not one JSON object on one line: b'oops'"):
        bot.decide(PICK, 1000)
    with pytest.raises(BotMalformed, match="not one JSON object on one line: b'oops'"):
        bot.decide(PICK, 1000)  # the leftover {"n": 1} of the first reply was dropped


def test_a_crash_detail_carries_the_last_line_of_stderr(seat):
    bot = seat(f"dies=cmd:{sys.executable} -c \"import sys; sys.stderr.write('bad things\\n'); sys.exit(7)\"")
    with pytest.raises(BotCrashed, match="exited with status 7; stderr: bad things"):
        bot.start(START, 5000)


def test_sandbox_none_still_runs_an_external_bot_as_a_process(seat):
    bot = seat(external("honest"), sandbox="none")
    assert isinstance(bot, ProcessBot) and not bot.isolate
    assert tally([bot, seat(external("honest"))])["faults"] == []


def test_arena_sandbox_reports_the_protections_in_force():
    result = CliRunner().invoke(cli, ["sandbox"])
    assert result.exit_code == 0, result.output
    for protection in ("process per bot", "time", "memory", "own user id", "no network", "private process tree"):
        assert protection in result.output
    state = protections()
    if state.core_cgroup:
        assert "cpu (cgroup) + wall cap" in result.output
    else:
        assert ("cpu (process) + wall cap" in result.output) == (state.cpu_clock == "process")


def test_arena_play_sandboxes_plugin_py_and_cmd_bots_and_the_record_replays(tmp_path):
    """A real run of the installed command: each kind of bot spec, the default --sandbox process."""
    record_path = tmp_path / "game.json"
    completed = subprocess.run(
        ["arena", "play", "modern-art", "-b", "random", "-b", "me=py:modern_art_first:FirstChoice",
         "-b", f"node=cmd:node {Path(__file__).parent.parent / 'examples' / 'node-bot' / 'bot.js'}",
         "--seed", "11", "--record", str(record_path)],
        capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(BOTS)})
    assert completed.returncode == 0, completed.stderr
    assert "Faults: none" in completed.stdout
    record = json.loads(record_path.read_text())
    assert record["players"] == ["random", "me", "node"] and record["faults"] == []
    replayed = subprocess.run(["arena", "replay", str(record_path)], capture_output=True, text=True, timeout=120)
    assert replayed.returncode == 0, replayed.stdout


class Unserved:
    """A seat adapter that raises what is not a fault (a bug, or a value from a hostile process it trusted)."""

    clock = "wall"

    def __init__(self, where: str, error: BaseException) -> None:
        self.where, self.error = where, error

    def start(self, info, limit_ms):
        if self.where == "start":
            raise self.error

    def decide(self, request, limit_ms):
        if self.where == "decide":
            raise self.error
        return {"n": 1}, 1.0

    def end(self, info):
        if self.where == "end":
            raise self.error

    def close(self):
        pass


@pytest.mark.parametrize("where", ["start", "decide", "end"])
def test_any_exception_while_serving_a_seat_is_that_seats_crash_and_the_game_goes_on(seat, where):
    record = tally([Unserved(where, KeyError("game")), seat(external("honest"))])
    assert [(f["seat"], f["kind"], f["decision"]) for f in record["faults"]] == [
        (0, "crash", "pick" if where == "decide" else where)]
    assert "the runner could not serve this seat: KeyError('game')" in record["faults"][0]["detail"]
    assert record["result"]["money"][1] == 12


def test_an_interrupt_of_the_runner_still_stops_the_game(seat):
    with pytest.raises(KeyboardInterrupt):
        tally([Unserved("decide", KeyboardInterrupt()), seat(external("honest"))])


def test_a_bots_jail_is_one_frozen_value_decided_before_its_process_starts(seat):
    from arena.sandbox.jailspec import JailSpec

    program, python = seat(external("honest")), seat("chatty=py:chatty_bot:ChattyBot")
    for bot, forks in ((program, False), (python, protections().fork_template)):
        assert isinstance(bot.jail, JailSpec) and bot.jail.forks_games is forks
        assert bot.jail.scratch_mb == LIMITS.memory_mb and bot.jail.cpu_seconds <= bot.jail.cpu_hard
        assert bot.jail.namespaces == protections().namespaces
        with pytest.raises(dataclasses.FrozenInstanceError):
            bot.jail.uid = 0
    assert program.jail.readable is not None
    assert any(str(BOTS / "honest.py").startswith(path) for path in program.jail.readable)
