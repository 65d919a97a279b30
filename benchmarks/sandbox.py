"""Sandbox speed: the same games in-process and sandboxed, and what a decision costs over a pipe.

Plays `random` bots at one table, first in-process (``--sandbox none``), then
each bot in its sandboxed host process (``--sandbox process``; processes
reused across games, as a tournament worker does), and prints decisions/s and
games/s for both (after one untimed game that starts the processes). The
sandboxed overhead per decision (sandboxed minus in-process time per decision) is printed next to a bare pipe round-trip
measured in the same run: the same ``decide`` messages as JSON lines to a
trivial echo process, answered with a small action. Both runs are repeated
with every process pinned to one core (bots inherit the runner's affinity).

    python benchmarks/sandbox.py                       # modern-art, 4 players, 20 games each
    python benchmarks/sandbox.py silk-road:3 --games 10
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time

import orjson

from arena.entrants import parse_spec
from arena.match import InProcessBot, Limits, Request, derive_seed, play_game
from arena.plugins import get_plugins
from arena.sandbox import open_process_bot

LIMITS = Limits(start_ms=10000, move_ms=5000, bank_ms=10000)
ECHO = ("import sys, orjson\n"
        "out = sys.stdout.buffer\n"
        "for line in sys.stdin.buffer:\n"
        "    orjson.loads(line)\n"
        "    out.write(b'{\"card\": 1}\\n'); out.flush()\n")


def play_games(game, players: int, games: int, make_seats, plugins) -> tuple[int, float]:
    """Play ``games`` games; the decisions asked and the seconds taken."""
    options = game.check_options(players, {})
    seats = make_seats()
    decisions = 0
    try:
        for seed in range(-1, games):  # game -1 warms up: processes started, modules imported
            if seed == 0:
                decisions, began = 0, time.perf_counter()
            setup = game.random_setup(players, options, random.Random(seed))
            record = play_game(game, options, setup, seats, ["random"] * players, game_id=str(seed), seed=seed,
                               bot_seeds=[derive_seed(seed, seat) for seat in range(players)], limits=LIMITS)
            assert not record["faults"], record["faults"][:2]
            decisions += len(record["moves"])
    finally:
        elapsed = time.perf_counter() - began
        for seat in seats:
            seat.close()
    return decisions, elapsed


def decide_messages(game, players: int, plugins, count: int) -> list[bytes]:
    """Real ``decide`` messages of a game, as the sandbox sends them."""
    options = game.check_options(players, {})
    choose = plugins.bot("random").factory()
    messages: list[bytes] = []
    seed = 0
    while len(messages) < count:
        state = game.new_state(game.random_setup(players, options, random.Random(seed)), options)
        choose.start({"game": game.name, "seed": seed})
        while state.seat is not None and len(messages) < count:
            request = Request(type="decide", decision=state.decision, legal=state.legal, time_left_ms=1000)
            request._state, request._seat, request._first, request._last = state, state.seat, 0, len(state.log)
            full = request.full()
            messages.append(orjson.dumps(full, option=orjson.OPT_APPEND_NEWLINE))
            state.apply(choose.decide(full))
        seed += 1
    return messages


def bare_round_trip(messages: list[bytes]) -> float:
    """Microseconds per JSON-lines round trip to a trivial echo process (blocking reads and writes)."""
    echo = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    to_echo, from_echo = echo.stdin.fileno(), echo.stdout.fileno()

    def ask(message: bytes) -> bytes:
        os.write(to_echo, message)
        reply = os.read(from_echo, 65536)
        while not reply.endswith(b"\n"):
            reply += os.read(from_echo, 65536)
        return reply

    for message in messages[:50]:  # warm up
        ask(message)
    began = time.perf_counter()
    for message in messages:
        orjson.loads(ask(message))
    elapsed = time.perf_counter() - began
    echo.stdin.close()
    echo.wait()
    return elapsed / len(messages) * 1e6


def run(game_name: str, players: int, games: int, plugins) -> None:
    game = plugins.game(game_name)
    entrant = parse_spec("random", plugins)
    factory = plugins.bot("random").factory
    print(f"{game_name}, {players} x random, {games} games per row")
    print(f"{'':<22}{'decisions/s':>12}{'games/s':>9}{'us/decision':>13}")
    rows = {}
    for label, make_seats in (
        ("in-process", lambda: [InProcessBot(factory) for _ in range(players)]),
        ("sandboxed", lambda: [open_process_bot(entrant, LIMITS, plugins) for _ in range(players)]),
    ):
        decisions, elapsed = play_games(game, players, games, make_seats, plugins)
        rows[label] = elapsed / decisions * 1e6
        print(f"{label:<22}{decisions / elapsed:>12.0f}{games / elapsed:>9.1f}{rows[label]:>13.1f}")
    overhead = rows["sandboxed"] - rows["in-process"]
    bare = bare_round_trip(decide_messages(game, players, plugins, 2000))
    print(f"sandboxed overhead per decision: {overhead:.0f} us; bare pipe round-trip: {bare:.0f} us "
          f"(ratio {overhead / bare:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", nargs="?", default="modern-art:4", help="GAME:PLAYERS")
    parser.add_argument("--games", type=int, default=20, help="games per measurement")
    arguments = parser.parse_args()
    game_name, _, players = arguments.table.partition(":")
    plugins = get_plugins()
    print("all cores:")
    run(game_name, int(players or 4), arguments.games, plugins)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        print("\none core (runner and bots pinned together):")
        run(game_name, int(players or 4), arguments.games, plugins)


if __name__ == "__main__":
    main()
