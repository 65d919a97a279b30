"""Misbehaving bots, each a small program in tests/bots/: every one gives the right fault,
the game finishes, and the other seat sees exactly what it would have seen anyway."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

import pytest

from arena.entrants import parse_spec
from arena.match import InProcessBot, Limits, play_game
from arena.sandbox.probe import protections
from arena.seating import close_seats, open_seat

BOTS = Path(__file__).parent / "bots"
sys.path.insert(0, str(BOTS))

from tally_game import Tally  # noqa: E402

LIMITS = Limits(start_ms=3000, move_ms=200, bank_ms=300)
SETUP = {"players": 2, "notes": [11, 22]}


class Recorder:
    """An honest in-process bot that keeps every message it is sent."""

    def __init__(self, seen: list) -> None:
        self.seen = seen

    def start(self, info: dict) -> None:
        self.seen.append(dict(info))

    def decide(self, request: dict) -> dict:
        self.seen.append(request.full())
        return {"n": 1}

    def end(self, info: dict) -> None:
        self.seen.append(dict(info))


class Scripted:
    """Plays a given list of actions in order (the actions that took effect in another game)."""

    def __init__(self, actions: list[dict]) -> None:
        self.actions = iter(actions)

    def decide(self, request: dict) -> dict:
        return next(self.actions)


def command(bot: str, *args: str) -> str:
    return f"bad=cmd:{sys.executable} {BOTS / bot}.py {' '.join(args)}".strip()


def play(seat0, limits: Limits = LIMITS) -> tuple[dict, list]:
    """One tally game: ``seat0`` (an adapter) against a recorder; the record and what the recorder saw."""
    seen: list = []
    try:
        record = play_game(Tally(), {}, SETUP, [seat0, InProcessBot(lambda: Recorder(seen))], ["bad", "good"],
                           game_id="tally/1", seed=1, bot_seeds=[5, 6], limits=limits)
    finally:
        close_seats([seat0])
    return record, seen


def play_bot(bot: str, *args: str, limits: Limits = LIMITS, plugins=None):
    seat = open_seat(parse_spec(command(bot, *args)), "process", limits, plugins)
    record, seen = play(seat, limits)
    return record, seen, seat


def assert_other_seat_unaffected(record: dict, seen: list, limits: Limits = LIMITS) -> None:
    """The game finished, seat 1 had no fault, and seat 1 was sent exactly what it gets when seat 0's
    effective actions come from a well-behaved bot."""
    assert record["result"]["money"][1] == 4 * 1
    assert all(fault["seat"] == 0 for fault in record["faults"])
    own = [move["action"] for move in record["moves"] if move["seat"] == 0]
    _, reference = play(InProcessBot(lambda: Scripted(own)), limits)
    assert seen == reference


@pytest.mark.parametrize("bot, kind, move, detail", [
    ("infinite_loop", "timeout", 2, "no answer after"),
    ("sleeper", "timeout", 2, "(wall clock"),
    ("memory_bomb", "crash", 2, "MemoryError"),
    ("exit_midgame", "crash", 4, "exited with status 3; stderr: leaving now"),
    ("close_stdout", "crash", 2, "closed its standard output"),
    ("slow_start", "timeout", None, "start: no answer after"),
])
def test_a_stopping_fault_is_recorded_once_and_the_seat_plays_defaults(bot, kind, move, detail):
    limits = {"slow_start": Limits(start_ms=300, move_ms=200, bank_ms=300),
              "memory_bomb": Limits(start_ms=3000, move_ms=200, bank_ms=300, memory_mb=64)}.get(bot, LIMITS)
    record, seen, seat = play_bot(bot, limits=limits)
    assert [(f["kind"], f["move"]) for f in record["faults"]] == [(kind, move)]
    assert detail in record["faults"][0]["detail"]
    later = [m for m in record["moves"][(move or 0):] if m["seat"] == 0]
    assert later and all(m["action"] == {"n": 0} for m in later)
    assert not seat.healthy
    assert_other_seat_unaffected(record, seen, limits)


def test_a_timeout_records_the_clock_that_decided_it():
    record, _, _ = play_bot("sleeper")
    assert record["faults"][0]["clock"] == "wall"  # a sleeping bot uses no CPU time


def test_garbage_replies_are_malformed_until_the_fault_limit_then_defaults_without_asking():
    record, seen, seat = play_bot("garbage")
    faults = record["faults"]
    assert [f["kind"] for f in faults] == ["malformed"] * LIMITS.max_faults
    assert "not one JSON object on one line: b'hello'" in faults[0]["detail"]
    assert [f["move"] for f in faults] == [0, 2, 4]
    assert all(m["action"] == {"n": 0} for m in record["moves"] if m["seat"] == 0)
    assert seat.healthy  # malformed replies do not stop the process
    assert_other_seat_unaffected(record, seen)


def test_illegal_and_wrongly_shaped_actions_are_faults_and_the_default_applies():
    record, seen, _ = play_bot("illegal")
    assert [(f["kind"], f["move"]) for f in record["faults"]] == [("illegal", 0), ("malformed", 2), ("illegal", 4)]
    assert "outside 0..3" in record["faults"][0]["detail"]
    assert_other_seat_unaffected(record, seen)


def survivors(marker: str) -> list[int]:
    """Pids of processes whose command line holds ``marker``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                pass
    return found


def test_a_fork_bomb_is_bounded_and_every_process_it_made_dies_with_the_bot():
    marker = f"fork-bomb-marker-{os.getpid()}"
    seat = open_seat(parse_spec(command("fork_bomb", marker)), "process", LIMITS, None)
    seat.start({"type": "start", "game": "tally", "seed": 1}, LIMITS.start_ms)
    try:
        seat.decide({"type": "decide", "decision": "pick", "legal": {"max": 3}}, 2000)
    except Exception as error:  # bounded by the kernel: forking fails and the bot dies of it
        assert protections().own_user and "Resource temporarily unavailable" in str(error)
    else:
        assert survivors(marker)  # not bounded by a process limit here: the children live on for now
    seat.close()
    assert survivors(marker) == []


def test_the_fork_bomb_in_a_game_gives_a_crash_where_processes_are_limited():
    if not protections().own_user:
        pytest.skip("the process limit applies only to bots with a user id of their own (root runner)")
    record, seen, _ = play_bot("fork_bomb", "bomb-in-game")
    assert [(f["kind"], f["move"]) for f in record["faults"]] == [("crash", 0)]
    assert_other_seat_unaffected(record, seen)
    assert survivors("bomb-in-game") == []


def test_a_bot_cannot_write_outside_its_home_and_its_home_goes_with_it(isolated):
    if not protections().own_user:
        pytest.skip("file protection needs a user id of the bot's own (root runner)")
    results = isolated / "results"
    results.mkdir()
    record, _, seat = play_bot("file_writer", str(results / "forged.json"))
    assert record["faults"] == []
    assert not (results / "forged.json").exists()
    report = seat.stderr_text()
    outside = report.split("outside: ")[1].split(";")[0]
    assert outside in ("PermissionError", "FileNotFoundError", "OSError") and "home: ok" in report
    home = report.split("home is ")[1].split()[0]
    assert home == "/home/bot" if protections().filesystem else not os.path.exists(home)


def test_a_bot_cannot_signal_its_parent_or_the_runner():
    if not (protections().own_user or protections().namespaces):
        pytest.skip("neither a user id of its own nor a PID namespace here: the bot could kill the runner")
    record, seen, seat = play_bot("signal_parent", str(os.getpid()))
    assert record["faults"] == []
    report = seat.stderr_text()
    assert "signals:" in report and "killed" not in report
    assert_other_seat_unaffected(record, seen)


def test_a_bot_has_no_network():
    if not protections().namespaces:
        pytest.skip("no network namespace here")
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        record, _, seat = play_bot("network", str(server.getsockname()[1]))
    assert record["faults"] == []
    assert "network: " in seat.stderr_text()
    assert "network: connected" not in seat.stderr_text()


def test_a_bot_sees_a_private_home_and_none_of_the_runners_environment(monkeypatch):
    monkeypatch.setenv("ARENA_TEST_SECRET_TOKEN", "do-not-leak")
    record, _, seat = play_bot("snoop")
    assert record["faults"] == []
    seen = json.loads(seat.stderr_text().split("snoop: ")[1].splitlines()[0])
    assert "ARENA_TEST_SECRET_TOKEN" not in seen["env"]
    if protections().filesystem:  # a private root: its working folder is its fresh private home
        assert seen["home"] == seen["cwd"] == "/home/bot"
    else:
        assert os.path.basename(seen["home"]).startswith("arena-bot-")
        assert seen["cwd"] == os.getcwd()  # an external bot runs where the runner runs: its paths work
    if protections().own_user:
        assert seen["uid"] != 0
