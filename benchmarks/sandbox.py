"""Sandbox speed: the same games in-process and sandboxed, and what a decision and a fresh game cost.

Plays `random` bots at one table, in-process (``--sandbox none``), then
sandboxed with ``reuse = true`` (one process per seat plays every game: the
path before fresh-per-game bots, and the cost of a decision alone), then
sandboxed fresh per game (the default: each game's bot forked from its
template), and prints decisions/s and games/s for each (after one untimed game
that starts the processes). The sandboxed overhead per decision is printed
next to a bare pipe round-trip measured in the same run: the same ``decide``
messages (the events since the seat's last decision, as the sandbox sends
them) as JSON lines to a trivial echo process, answered with a small action.
``benchmarks/jailed.py`` gives issue 25's figures for the heuristic bots.
Then the cost of a fresh game's bot, from the end of one game to its
answer to the next ``start``: forked from a template, a new host interpreter
(what a fresh game would cost without templates), an external program; and
what freezing costs per decision (a thaw and a freeze of the bot's cgroup), and the floor of
any fresh Python process per game: the CPU time of a bare fork and exit of a
process the size of a template.
Each row also gives its CPU time per decision: the runner's and every bot
process's (their cgroups: templates and games too), and the bare round trip's
is the CPU time of both its processes; on a shared machine these move far less
than wall-clock figures. Both runs are repeated with every process pinned to
one core (bots keep the runner's cores, unless ``[limits] threads`` lets them
run several: arena.sandbox.jailspec).
Last, the system-call filter's cost (arena/sandbox/seccomp.py): decisions
(``reuse = true``) and fresh bots with the filter and without it, alternated
in the same run, and the cost of loading it in a new process: the exported
BPF program with one ``seccomp(2)`` call (what bots do) against building and
loading it with libseccomp in the child.

    python benchmarks/sandbox.py                       # modern-art, 4 players, 20 games each
    python benchmarks/sandbox.py silk-road:3 --games 10
    python benchmarks/sandbox.py --filter-only         # the system-call filter's cost alone
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import dataclasses
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

import orjson

from arena.entrants import parse_spec
from arena.match import InProcessBot, Limits, Request, derive_seed, play_game
from arena.plugins import get_plugins
from arena.sandbox import keyring, open_process_bot, seccomp

LIMITS = Limits(start_ms=10000, move_ms=5000, bank_ms=10000)
REUSE = dataclasses.replace(LIMITS, reuse=True)
START = {"type": "start", "game": "modern-art", "seat": 0, "players": ["a", "b", "c"], "options": {},
         "time": LIMITS.time_message(), "setup_public": {}, "seed": 1}
READY_BOT = ("import sys\n"
             "for line in sys.stdin:\n"
             "    if '\"start\"' in line: print('{\"type\": \"ready\"}', flush=True)\n")
ECHO = ("import sys, orjson\n"
        "out = sys.stdout.buffer\n"
        "for line in sys.stdin.buffer:\n"
        "    orjson.loads(line)\n"
        "    out.write(b'{\"card\": 1}\\n'); out.flush()\n")


def bots_cpu(seats) -> float:
    """CPU seconds used so far by every process of these seats' bots (their cgroups; 0 without, or in-process)."""
    total = 0.0
    for seat in seats:
        folder = getattr(getattr(seat, "cgroup", None), "core", None)
        if folder:
            with open(os.path.join(folder, "cpu.stat")) as handle:
                total += int(handle.readline().split()[1]) / 1e6  # usage_usec: its template and games too
    return total


def play_games(game, players: int, games: int, make_seats, plugins, fresh: bool = False) -> tuple[int, float, float]:
    """Play ``games`` games; the decisions asked, the seconds taken and the CPU seconds used by the runner and
    every bot process (``fresh``: new bots every game)."""
    options = game.check_options(players, {})
    seats = make_seats()
    decisions = 0
    try:
        for seed in range(-1, games):  # game -1 warms up: processes started, modules imported
            if seed == 0:
                decisions, began = 0, time.perf_counter()
                cpu = time.process_time() + bots_cpu(seats)
            setup = game.random_setup(players, options, random.Random(seed))
            record = play_game(game, options, setup, seats, ["random"] * players, game_id=str(seed), seed=seed,
                               bot_seeds=[derive_seed(seed, seat) for seat in range(players)], limits=LIMITS)
            assert not record["faults"], record["faults"][:2]
            decisions += len(record["moves"])
            if fresh:
                for seat in seats:
                    seat.finish_game()
        elapsed = time.perf_counter() - began
        time.sleep(0.05)  # the last game's bots exit
        cpu = time.process_time() + bots_cpu(seats) - cpu
    finally:
        for seat in seats:
            seat.close()
    return decisions, elapsed, cpu


def decide_messages(game, players: int, plugins, count: int) -> list[bytes]:
    """Real ``decide`` messages of a game, as the sandbox sends them: each with the events since that seat's
    previous decision (not the whole history, which would make a bare round trip dearer than a real one)."""
    options = game.check_options(players, {})
    choose = plugins.bot("random").factory()
    messages: list[bytes] = []
    seed = 0
    while len(messages) < count:
        state = game.new_state(game.random_setup(players, options, random.Random(seed)), options)
        choose.start({"game": game.name, "seed": seed})
        cursors = [0] * players
        while state.seat is not None and len(messages) < count:
            request = Request(type="decide", decision=state.decision, legal=state.legal, time_left_ms=1000)
            request._state, request._seat, request._first = state, state.seat, cursors[state.seat]
            request._last = cursors[state.seat] = len(state.log)
            full = request.full()
            messages.append(orjson.dumps(full, option=orjson.OPT_APPEND_NEWLINE))
            state.apply(choose.decide(full))
        seed += 1
    return messages


def bare_round_trip(messages: list[bytes]) -> tuple[float, float]:
    """Microseconds per JSON-lines round trip to a trivial echo process (blocking reads and writes): on the
    wall clock, and in CPU time of both processes."""
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
    with open(f"/proc/{echo.pid}/stat") as handle:  # the echo's CPU so far (start-up, warm-up), in clock ticks
        fields = handle.read().rsplit(")", 1)[1].split()
    echo_before = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    began, cpu = time.perf_counter(), time.process_time()
    for message in messages:
        orjson.loads(ask(message))
    elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    echo.stdin.close()
    echo.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    echo_cpu = after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime - echo_before
    return elapsed / len(messages) * 1e6, (cpu + echo_cpu) / len(messages) * 1e6


def fresh_start_ms(make_bot, games: int = 20) -> float:
    """Milliseconds from the end of one game to the bot's answer to the next ``start`` (median)."""
    bot = make_bot()
    times = []
    try:
        bot.start(START, 10000)
        for _ in range(games):
            began = time.perf_counter()
            bot.finish_game()
            bot.start(START, 10000)
            times.append((time.perf_counter() - began) * 1000)
    finally:
        bot.close()
    return sorted(times)[len(times) // 2]


def freezer_us(make_bot, rounds: int = 2000) -> float | None:
    """Microseconds for a thaw and a freeze of a bot's cgroup (None without a freezer)."""
    bot = make_bot()
    try:
        if bot.cgroup is None or not bot.cgroup.core:
            return None
        began = time.perf_counter()
        for _ in range(rounds):
            bot.cgroup.thaw()
            bot.cgroup.freeze()
        return (time.perf_counter() - began) / rounds * 1e6
    finally:
        bot.close()


FORK_FLOOR = """
import gc, os, resource, sys, time
from arena.sandbox import host
host.load_factory({"factory": sys.argv[1]})
gc.collect(); gc.freeze()
def cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
for rounds in (20, 300):  # warm up, then measure
    began = cpu()
    for _ in range(rounds):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
rss = int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) >> 10
print(f"{(cpu() - began) / rounds * 1000:.2f} {rss}")
"""


def fork_floor(factory: str) -> tuple[float, int]:
    """CPU ms of a bare fork and exit of a process like a template of ``factory`` (no namespaces, no jail,
    no game), and that process's resident size in MiB: the floor of any fresh Python process per game."""
    out = subprocess.run([sys.executable, "-c", FORK_FLOOR, factory], check=True, capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))).stdout.split()
    return float(out[0]), int(out[1])


@contextlib.contextmanager
def ready_program():
    """An external bot that answers ``start``, written where its jail shows it: a folder of its own beside this
    file (the host's /tmp is not the bot's)."""
    folder = tempfile.mkdtemp(prefix="ready-bot-", dir=os.path.dirname(os.path.abspath(__file__)))
    path = os.path.join(folder, "ready.py")
    try:
        with open(path, "w") as handle:
            handle.write(READY_BOT)
        os.chmod(folder, 0o755)  # the bot runs as a user of its own
        os.chmod(path, 0o644)
        yield parse_spec(f"ready=cmd:{sys.executable} {path}")
    finally:
        os.unlink(path)
        os.rmdir(folder)


def start_costs(plugins) -> None:
    entrant = parse_spec("random", plugins)
    with ready_program() as external:
        forked = fresh_start_ms(lambda: open_process_bot(entrant, LIMITS, plugins))
        interpreter = fresh_start_ms(lambda: open_process_bot(entrant, REUSE, plugins))
        program = fresh_start_ms(lambda: open_process_bot(external, LIMITS, plugins))
    print(f"fresh game's bot (end of a game to ready): forked from its template {forked:.1f} ms; "
          f"a new host interpreter {interpreter:.1f} ms; an external program (python) {program:.1f} ms")
    floor, size = fork_floor("arena_bots.random_bot:RandomBot")
    print(f"the floor: a bare fork and exit of a template-sized Python process ({size} MiB) costs {floor:.2f} ms "
          f"of CPU (no namespaces, no jail, no game)")
    freezing = freezer_us(lambda: open_process_bot(entrant, LIMITS, plugins))
    print("freezer: " + (f"{freezing:.0f} us for a thaw and a freeze of a bot's cgroup (per decision only for a bot "
                         "seen computing between its turns)"
                         if freezing is not None else "none here (no cgroup v2 folder)"))


def run(game_name: str, players: int, games: int, plugins) -> None:
    game = plugins.game(game_name)
    entrant = parse_spec("random", plugins)
    factory = plugins.bot("random").factory
    print(f"{game_name}, {players} x random, {games} games per row")
    print(f"{'':<30}{'decisions/s':>12}{'games/s':>9}{'us/decision':>13}{'CPU us/decision':>17}")
    rows, cpu_rows = {}, {}
    for label, make_seats, fresh in (
        ("in-process", lambda: [InProcessBot(factory) for _ in range(players)], False),
        ("sandboxed, reuse = true", lambda: [open_process_bot(entrant, REUSE, plugins) for _ in range(players)],
         False),
        ("sandboxed, fresh per game", lambda: [open_process_bot(entrant, LIMITS, plugins) for _ in range(players)],
         True),
    ):
        decisions, elapsed, cpu = play_games(game, players, games, make_seats, plugins, fresh)
        rows[label] = elapsed / decisions * 1e6
        cpu_rows[label] = cpu / decisions * 1e6
        print(f"{label:<30}{decisions / elapsed:>12.0f}{games / elapsed:>9.1f}{rows[label]:>13.1f}"
              f"{cpu_rows[label]:>17.1f}")
    overhead = rows["sandboxed, reuse = true"] - rows["in-process"]
    cpu_overhead = cpu_rows["sandboxed, reuse = true"] - cpu_rows["in-process"]
    bare, bare_cpu = bare_round_trip(decide_messages(game, players, plugins, 2000))
    print(f"sandboxed overhead per decision (reuse, freezer included): {overhead:.0f} us; bare pipe round-trip: "
          f"{bare:.0f} us (ratio {overhead / bare:.2f}); in CPU time of every process {cpu_overhead:.0f} us against "
          f"{bare_cpu:.0f} us (ratio {cpu_overhead / bare_cpu:.2f})")
    fresh_cost = (cpu_rows["sandboxed, fresh per game"] - cpu_rows["sandboxed, reuse = true"]) * decisions / games
    print(f"fresh per game against reuse: {rows['sandboxed, reuse = true'] / rows['sandboxed, fresh per game']:.0%} "
          f"of the speed; in CPU time {fresh_cost / players / 1000:.1f} ms more per seat and game")
    start_costs(plugins)


@contextlib.contextmanager
def system_call_filter(on: bool):
    """Bots started inside get the filter (``on``) or none, as on a machine without it (and then, to compare
    like with like, no clearing of keyrings either)."""
    if on:
        yield
        return
    saved = seccomp.refusal, keyring.clear_user_keyrings
    seccomp.refusal = lambda: "off for the benchmark"  # type: ignore[assignment]
    keyring.clear_user_keyrings = lambda uid: None  # type: ignore[assignment]
    try:
        yield
    finally:
        seccomp.refusal, keyring.clear_user_keyrings = saved


LOAD_IN_CHILD = 0  # build with libseccomp and load, in the child
LOAD_EXPORTED = 1  # one seccomp(2) call with the program exported in the parent


def load_cost_us(how: int, rounds: int = 100) -> float:
    """CPU microseconds a new process spends loading the bots' filter ``how`` (median, timed in the child on
    its own CPU clock)."""
    load = seccomp.loader(seccomp.program(seccomp.BOT))
    library = ctypes.CDLL("libseccomp.so.2")
    libc = ctypes.CDLL(None)
    times = []
    for _ in range(rounds):
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:
            libc.prctl(38, 1, 0, 0, 0)  # NO_NEW_PRIVS
            began = time.thread_time_ns()
            if how == LOAD_EXPORTED:
                load()
            else:
                library.seccomp_load(ctypes.c_void_p(seccomp.build(seccomp.BOT)))
            os.write(writer, str(time.thread_time_ns() - began).encode())
            os._exit(0)
        os.close(writer)
        times.append(int(os.read(reader, 64)) / 1000)
        os.close(reader)
        os.waitpid(pid, 0)
    return sorted(times)[len(times) // 2]


SYSCALL_LOOP = 100_000


def syscall_ns() -> dict[str, tuple[float, float]]:
    """Nanoseconds of CPU per system call in a child, without the bots' filter and then with it (best of three):
    ``read`` of 0 bytes (a call the kernel's seccomp cache answers without running the filter, as it answers the
    reads, writes and polls of a decision) and ``fcntl(F_GETFL)`` (a call whose arguments the filter checks)."""
    load = seccomp.loader(seccomp.program(seccomp.BOT))
    libc = ctypes.CDLL(None)
    reader, writer = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(reader)
        nothing = os.open(os.devnull, os.O_RDONLY)
        calls = {"read": lambda: os.read(nothing, 0), "fcntl": lambda: libc.fcntl(nothing, 3)}  # F_GETFL
        found = {}
        for state in ("without", "with"):
            if state == "with":
                libc.prctl(38, 1, 0, 0, 0)
                load()
            for name, call in calls.items():
                best = float("inf")
                for _ in range(3):
                    began = time.thread_time_ns()
                    for _ in range(SYSCALL_LOOP):
                        call()
                    best = min(best, (time.thread_time_ns() - began) / SYSCALL_LOOP)
                found[f"{name} {state}"] = best
        os.write(writer, orjson.dumps(found))
        os._exit(0)
    os.close(writer)
    found = orjson.loads(os.read(reader, 4096))
    os.close(reader)
    os.waitpid(pid, 0)
    return {name: (found[f"{name} without"], found[f"{name} with"]) for name in ("read", "fcntl")}


def filter_costs(game_name: str, players: int, games: int, plugins) -> None:
    """The filter's cost per decision and per fresh bot: with it and without it, alternated, best of four."""
    if seccomp.refusal() is not None:
        print(f"system-call filter: off here ({seccomp.refusal()}), nothing to measure")
        return
    game = plugins.game(game_name)
    entrant = parse_spec("random", plugins)
    best: dict[tuple[str, bool], float] = {}
    with ready_program() as external:
        for round_ in range(4):
            for on in ((True, False) if round_ % 2 else (False, True)):  # either first, in turn
                with system_call_filter(on):
                    decisions, elapsed, cpu = play_games(
                        game, players, games, lambda: [open_process_bot(entrant, REUSE, plugins)
                                                       for _ in range(players)], plugins)
                    figures = {"decision": elapsed / decisions * 1e6, "decision CPU": cpu / decisions * 1e6,
                               "forked": fresh_start_ms(lambda: open_process_bot(entrant, LIMITS, plugins), 20),
                               "program": fresh_start_ms(lambda: open_process_bot(external, LIMITS, plugins), 10)}
                for name, value in figures.items():
                    best[name, on] = min(best.get((name, on), value), value)

    def compared(name: str, unit: str) -> str:
        on, off = best[name, True], best[name, False]
        return f"{on:.1f} {unit} with, {off:.1f} without ({(on - off) / off:+.1%})"

    print(f"system-call filter, {game_name}: per decision (reuse) {compared('decision', 'us')}; in CPU "
          f"{compared('decision CPU', 'us')}")
    print(f"system-call filter: a fresh game's bot forked from its template {compared('forked', 'ms')}; "
          f"an external program {compared('program', 'ms')}")
    calls = syscall_ns()
    print("system-call filter, per call (CPU, Python loop included): " + "; ".join(
        f"{name} {without:.0f} ns without, {with_:.0f} ns with ({with_ - without:+.0f} ns)"
        for name, (without, with_) in calls.items()))
    added = 4 * (calls["read"][1] - calls["read"][0]) / 1000  # a decision's bot: a poll, a read, a write, a spare
    print(f"so the filter adds about {added:.2f} us of CPU to a decision's bot (a few such calls), "
          f"{added / best['decision CPU', False]:.2%} of a decision's CPU without it")
    print(f"loading the filter in a new process: the exported program {load_cost_us(LOAD_EXPORTED):.0f} us of "
          f"CPU; built and loaded with libseccomp in the child {load_cost_us(LOAD_IN_CHILD):.0f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("table", nargs="?", default="modern-art:4", help="GAME:PLAYERS")
    parser.add_argument("--games", type=int, default=20, help="games per measurement")
    parser.add_argument("--filter-only", action="store_true", help="measure the system-call filter's cost only")
    arguments = parser.parse_args()
    game_name, _, players = arguments.table.partition(":")
    plugins = get_plugins()
    if arguments.filter_only:
        filter_costs(game_name, int(players or 4), arguments.games, plugins)
        return
    print("all cores:")
    run(game_name, int(players or 4), arguments.games, plugins)
    filter_costs(game_name, int(players or 4), arguments.games, plugins)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        print("\none core (runner and bots pinned together):")
        run(game_name, int(players or 4), arguments.games, plugins)


if __name__ == "__main__":
    main()
