"""One decision's exchange with a jailed bot against a bare JSON-lines round trip, in short alternating rounds.

Issue 25's per-decision target (the jail's CPU a decision at most 2x a bare
round trip of a real request) is measured on whole games by
``benchmarks/jailed.py``, where a bot's thought, the engine and the load's
drift (one bare pass after each quarter) move it by up to 2x between runs on
a shared machine. This one isolates the exchange: the same real requests (the
``decide`` lines of Modern Art games as the sandbox sends them, about 2 KB)
sent, in turn,

- **jailed**: to ``--seats`` jailed seats of a bot that answers at once (one
  process per seat, ``reuse = true``: what is per decision, not per game),
  through :meth:`ProcessBot.decide` (request encoded, written, waited for,
  read, the bot's CPU clock read, charged);
- **bare**: to as many trivial echo processes (``benchmarks/jailed.py``'s),
  already encoded, blocking writes and reads.

Where the kernel wakes each process moves a run by up to 2x on a virtual
machine (an exchange that wakes the other, idle core costs its interrupt
and the hypervisor's way back in; a run tends to stay in one mode), on
both sides: compare runs, not rounds. So both sides run pinned to one core
by default, as ``arena run -j 1`` pins its worker and its bots keep that
core (``benchmarks/jailed.py``'s :func:`as_worker`): this process, the
seats' bots and the echoes take turns there alike (``--unpinned``: every
core for both sides).

Rounds of ``--decisions`` alternate (jailed, bare, jailed, ...); each
round's ratio is taken between neighbours, so that a change of the machine's
load moves both sides, and the median of the rounds is printed with the load
average. CPU: the runner's own (``time.process_time``), the seats' cgroups
(every process and thread of the bot), the echo processes' ``schedstat``.
One seat is the bare round trip's own shape; four seats in turn are a game's
(each process wakes with its caches cold).

    python benchmarks/decision.py                       # 1 and 4 seats, 15 rounds of 400 decisions
    python benchmarks/decision.py --seats 4 --rounds 30
    python benchmarks/decision.py --unpinned            # both sides on every core
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time

import orjson

from arena.entrants import parse_spec
from arena.match import Limits
from arena.plugins import get_plugins
from arena.sandbox import open_process_bot
from arena.sandbox.process import ProcessBot

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jailed  # noqa: E402  (benchmarks/jailed.py: the real requests and the echo process)

ANSWER_BOT = "class Bot:\n    def decide(self, message):\n        return {'card': 1}\n"
START = {"type": "start", "game": "modern-art", "seat": 0, "players": ["a", "b", "c", "d"], "options": {},
         "time": {}, "setup_public": {}, "seed": 1}


def seats_cpu_ns(seats: list[ProcessBot]) -> int:
    return sum(seat.cpu_ns() for seat in seats)


def echoes_cpu_ns(echoes: list[jailed.Echo]) -> int:
    return sum(int(jailed._process_cpu(echo.process.pid) * 1e9) for echo in echoes)


def rounds(count: int, decisions: int, seats: list[ProcessBot], echoes: list[jailed.Echo],
           messages: list[dict], lines: list[bytes]) -> dict[str, list[float]]:
    """``count`` rounds of each side in turn; the µs a decision of each part, per round."""
    found: dict[str, list[float]] = {}
    width = len(seats)
    for number in range(count):
        first = number * decisions
        runner, bots = time.process_time(), seats_cpu_ns(seats)
        for index in range(first, first + decisions):
            seats[index % width].decide(messages[index % len(messages)], 5000)
        runner, bots = time.process_time() - runner, seats_cpu_ns(seats) - bots
        found.setdefault("jailed runner", []).append(runner * 1e6 / decisions)
        found.setdefault("jailed bots", []).append(bots / 1e3 / decisions)
        runner, bots = time.process_time(), echoes_cpu_ns(echoes)
        for index in range(first, first + decisions):
            orjson.loads(echoes[index % width].ask(lines[index % len(lines)]))
        runner, bots = time.process_time() - runner, echoes_cpu_ns(echoes) - bots
        found.setdefault("bare runner", []).append(runner * 1e6 / decisions)
        found.setdefault("bare echoes", []).append(bots / 1e3 / decisions)
        jailed_us = found["jailed runner"][-1] + found["jailed bots"][-1]
        found.setdefault("ratio", []).append(jailed_us / (found["bare runner"][-1] + found["bare echoes"][-1]))
    return found


def measure(width: int, count: int, decisions: int, lines: list[bytes], folder: str) -> None:
    plugins = get_plugins()
    messages = [orjson.loads(line) for line in lines]
    seats = [open_process_bot(parse_spec(f"answer{n}=py:answer_bot:Bot", plugins, base_dir=folder),
                              Limits(start_ms=5000, reuse=True), plugins) for n in range(width)]
    echoes: list[jailed.Echo] = []
    try:
        for seat in seats:
            seat.start(START, 5000)
        echoes = [jailed.Echo(lines) for _ in range(width)]
        rounds(1, decisions, seats, echoes, messages, lines)  # warm up
        found = {name: statistics.median(values) for name, values in
                 rounds(count, decisions, seats, echoes, messages, lines).items()}
    finally:
        for seat in seats:
            seat.close()
        for echo in echoes:
            echo.close()
    jailed_us = found["jailed runner"] + found["jailed bots"]
    bare_us = found["bare runner"] + found["bare echoes"]
    print(f"  {width} seat{'s in turn' if width > 1 else ''}: jailed {jailed_us:.1f} us CPU a decision (runner "
          f"{found['jailed runner']:.1f}, bot {found['jailed bots']:.1f}); bare {bare_us:.1f} us (runner "
          f"{found['bare runner']:.1f}, echo {found['bare echoes']:.1f}); jailed / bare {found['ratio']:.2f}x "
          f"(median of {count} rounds' ratios; target of the jail's part <= 2x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seats", type=int, nargs="*", default=[1, 4], help="seats asked in turn (default 1 4)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--decisions", type=int, default=400, help="decisions a round")
    parser.add_argument("--unpinned", action="store_true",
                        help="both sides on every core (by default on one, as a pinned -j 1 worker and its bots)")
    arguments = parser.parse_args()
    jailed.PIN_WORKER = not arguments.unpinned
    where = "pinned to one core, as a -j 1 worker" if jailed.worker_core() is not None else "on every core"
    print(f"{os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; "
          f"both sides (this process, the seats' bots, the echoes) {where}")
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "answer_bot.py"), "w") as handle:
            handle.write(ANSWER_BOT)
        lines = jailed.real_requests(jailed.schedule(folder, "modern-art", "appraiser", 4, 40, "none", False), 2000)
        print(f"{len(lines)} real requests, {sum(map(len, lines)) / len(lines):.0f} bytes on average")
        with jailed.as_worker(True):  # the seats' bots and the echoes are started inside: they keep its core
            for width in arguments.seats:
                measure(width, arguments.rounds, arguments.decisions, lines, folder)
    print(f"load average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
