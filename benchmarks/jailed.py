"""A jailed game against an in-process one: issue 25's three figures for the heuristic bots, in one run.

For each table (``appraiser`` x4 at Modern Art, ``trader`` x3 at Silk Road)
the same games of one self-play schedule are played through
:func:`arena.runs.play.play_record` (what an ``arena run`` worker calls for
each game, its seat pool included), three ways:

1. in-process (``--sandbox none``): the baseline;
2. jailed with every game's bots fresh (the default sandbox, ``process``:
   each game's bot forked from its seat's template, its own namespaces,
   root, cgroup slot and filter);
3. jailed with ``reuse = true`` (one process per seat plays every game), to
   split what is per decision from what is per fresh game;
4. as plain processes with ``reuse = true``: each bot in the host loop of a
   jailed one (``python -m arena.sandbox.host``), started as a ``cmd:`` bot
   under ``--sandbox none`` (no namespaces, cgroups, filter or freezer;
   timed by its process's CPU clock): the same games speaking the same JSON
   lines, so that what the jail adds over the protocol itself is measured
   in the same run.

The ways 2-4 run with this process pinned to one core, as ``arena run -j 1``
pins its worker under the process sandbox (arena/runs/pools/local.py), its
bots keeping that core, and so does the bare round trip below (this process
and its echo on that one core), so that the two sides of the per-decision
ratio take turns on one core alike (``--unpinned``: every core for both, as
a runner that is not pinned); the in-process way is not pinned, as
``--sandbox none`` workers are not.

Each is timed on the wall clock and in CPU time of every process: this
process, and every template and game's bot, counted by a cgroup v1
``cpuacct`` group of its own that this process joins (bots keep it: they
join only the v2 and memory cgroups of their own), else by this process and
the children it waited for. The first game of each way is untimed (it starts
the templates).

Printed beside the targets:

- **games/s of fresh jailed over in-process** (target at least 0.2), on
  the wall clock and in CPU time;
- **CPU per decision** of the jail (reuse minus in-process, per decision)
  against a bare JSON-lines round trip of the games' real requests (recorded
  from in-process games as the sandbox would send them: the events since the
  seat's last decision, about 2 KB) to a trivial echo process, in CPU time of
  both its processes, the median of five passes between the runs, pinned as
  the jailed ways are (target at most 2x);
- **CPU of a fresh bot per game** (fresh minus reuse, per seat and game;
  target at most 2 ms);
- informative, on a line of its own: the jail's CPU a decision against that
  of plain processes (plain processes with reuse minus in-process, per
  decision: the protocol, the processes and their wake-ups, the view rebuilt
  from JSON), both over the same in-process games.

With ``--network-per-game`` the fresh games are also played with network and
IPC namespaces made for each game's bot (as before 2026-12-05: a Python bot's
games now share their template's), in the same turns, and a fresh bot alone
is timed both ways: 400 games of one seat's bot that starts and ends with no
decision, in turns (the fresh bot's own cost, without the decisions' noise).

    python benchmarks/jailed.py                    # 500 games of each table (about a minute each)
    python benchmarks/jailed.py --games 100        # a quick look
    python benchmarks/jailed.py --tables silk-road
    python benchmarks/jailed.py --every-bot-frozen   # also as before issue 25, in turns: every bot frozen
    python benchmarks/jailed.py --network-per-game   # also fresh games with network and IPC namespaces each
    python benchmarks/jailed.py --split              # also a fresh bot alone, split: runner, template, games' bots
    python benchmarks/jailed.py --unpinned           # the bot processes' ways on every core
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import shlex
import subprocess
import sys
import tempfile
import time
from typing import Any, Iterator, NamedTuple

import orjson

from arena.entrants import Entrant, parse_spec
from arena.match import InProcessBot, Limits, play_game
from arena.plugins import get_plugins
from arena.runs import seeds
from arena.runs.play import close_pools, play_record
from arena.sandbox import freezer, launch_template, open_process_bot
from arena.sandbox.process import DUMP_OPTIONS
from arena.sandbox.probe import protections
from arena.sandbox.seat import host_command
from arena.tournament.config import load_tournament
from arena.tournament.schedule import build_schedule

TABLES = {"modern-art": ("appraiser", 4), "silk-road": ("trader", 3)}
ECHO = ("import sys, orjson\n"
        "out = sys.stdout.buffer\n"
        "for line in sys.stdin.buffer:\n"
        "    orjson.loads(line)\n"
        "    out.write(b'{\"card\": 1}\\n'); out.flush()\n")
CPUACCT = "/sys/fs/cgroup/cpuacct"


class CpuMeter:
    """CPU seconds of this process and everything it starts: a cpuacct group of its own (bots, templates and
    games too, also those nobody waits for), else this process and its waited-for children."""

    def __init__(self) -> None:
        self.folder: str | None = os.path.join(CPUACCT, f"arena-jailed-{os.getpid()}")
        try:
            os.mkdir(self.folder)
            with open(os.path.join(self.folder, "cgroup.procs"), "w") as handle:
                handle.write(str(os.getpid()))
        except OSError:
            if os.path.isdir(self.folder):
                os.rmdir(self.folder)
            self.folder = None

    @property
    def every_process(self) -> bool:
        return self.folder is not None

    def total(self) -> float:
        if self.folder:
            with open(os.path.join(self.folder, "cpuacct.usage")) as handle:
                return int(handle.read()) / 1e9
        times = os.times()
        return times.user + times.system + times.children_user + times.children_system

    @staticmethod
    def runner() -> float:
        """This process's own CPU seconds (its threads too)."""
        return time.process_time()

    def close(self) -> None:
        if self.folder:
            with open(os.path.join(CPUACCT, "cgroup.procs"), "w") as handle:
                handle.write(str(os.getpid()))
            time.sleep(0.05)
            with contextlib.suppress(OSError):
                os.rmdir(self.folder)


class Timed(NamedTuple):
    """One way of playing a table's games."""

    games: int
    decisions: int
    wall: float  # seconds
    cpu: float  # CPU seconds of every process
    runner: float  # CPU seconds of this process alone

    @property
    def rate(self) -> float:
        return self.games / self.wall


def schedule(folder: str, game: str, bot: str, players: int, games: int, sandbox: str, reuse: bool) -> list[Any]:
    """``games + 1`` specs of a self-play schedule (``players`` entries of ``bot``) for ``sandbox``."""
    entries = [f'spec = "{bot}"'] + [f'spec = "b{n}={bot}"' for n in range(2, players + 1)]
    path = os.path.join(folder, f"{game}.toml")
    with open(path, "w") as handle:
        handle.write(f'[tournament]\nname = "bench-{game}"\nseed = 1\ndeals = {games // players + 2}\n'
                     f'[[games]]\nname = "{game}"\nplayers = {players}\n'
                     + "".join(f"[[bots]]\n{entry}\n" for entry in entries))
    plugins = get_plugins()
    tournament = load_tournament(path, plugins)
    secret = seeds.public_secret(1)
    specs = build_schedule(tournament, plugins, secret).specs(
        sandbox, plugins, secret, {entrant.name: "v" for entrant in tournament.entrants})[:games + 1]
    if reuse:
        specs = [dataclasses.replace(spec, limits=dataclasses.replace(spec.limits, reuse=True)) for spec in specs]
    return specs


def as_plain_processes(specs: list[Any]) -> list[Any]:
    """``specs`` (``reuse = true``) with each bot a plain process: the host loop of a jailed Python bot, started
    as a ``cmd:`` bot under ``--sandbox none`` is (no jail at all, the same JSON lines)."""
    plugins = get_plugins()
    commands: dict[str, str] = {}
    for entrant in specs[0].entrants:
        argv, _ = host_command(entrant, plugins)
        commands[entrant.key] = " ".join(shlex.quote(part) for part in argv)

    def plain(entrant: Entrant) -> Entrant:
        return Entrant(entrant.name, "cmd", commands[entrant.key], {}, f"{entrant.name}=cmd:...", entrant.base_dir)

    return [dataclasses.replace(spec, sandbox="none", entrants=tuple(map(plain, spec.entrants))) for spec in specs]


#: whether the ways that play bot processes (and the bare round trip, runner and echo) run pinned to one core, as
#: ``arena run -j 1`` pins its worker under the process sandbox (arena/runs/pools/local.py; its bots keep that
#: core): ``--unpinned`` turns it off
PIN_WORKER = True


def worker_core() -> int | None:
    """The core a pinned ``-j 1`` worker takes (the pool's first worker's: the lowest of this process's), or None
    where nothing is pinned (:data:`PIN_WORKER` off, or this process has one core: pinned already)."""
    cores = os.sched_getaffinity(0)
    return min(cores) if PIN_WORKER and len(cores) > 1 else None


@contextlib.contextmanager
def as_worker(pin: bool) -> Iterator[None]:
    """This process (and the bot processes it starts inside) on one core, as a pinned ``-j 1`` worker, when
    ``pin`` and :data:`PIN_WORKER`; its own cores again after."""
    cores = os.sched_getaffinity(0)
    core = worker_core() if pin else None
    if core is None:
        yield
        return
    os.sched_setaffinity(0, {core})
    try:
        yield
    finally:
        os.sched_setaffinity(0, cores)


def play(specs: list[Any], meter: CpuMeter, pin: bool = True) -> Timed:
    """Play the specs in this process as a ``-j 1`` worker does (the first one untimed: it starts the bots):
    with ``pin``, on one core (:func:`as_worker`); every bot process ends before it returns."""
    with as_worker(pin):
        play_record(specs[0])
        decisions = 0
        wall, cpu, runner = time.perf_counter(), meter.total(), meter.runner()
        for spec in specs[1:]:
            record = play_record(spec)
            assert not record["faults"], record["faults"][:2]
            decisions += len(record["moves"])
        wall = time.perf_counter() - wall
        time.sleep(0.05)  # the last game's bots are gone (their exit counts)
        cpu, runner = meter.total() - cpu, meter.runner() - runner
        close_pools()
    return Timed(len(specs) - 1, decisions, wall, cpu, runner)


class Recorder(InProcessBot):
    """An in-process seat that also keeps each request as the sandbox sends it (one JSON line)."""

    def __init__(self, factory: Any, lines: list[bytes]) -> None:
        super().__init__(factory)
        self.lines = lines

    def decide(self, request: dict[str, Any], limit_ms: float) -> tuple[Any, float]:
        message = request.full() if hasattr(request, "full") else request
        self.lines.append(orjson.dumps(message, option=DUMP_OPTIONS))
        return super().decide(request, limit_ms)


def real_requests(specs: list[Any], count: int) -> list[bytes]:
    """``decide`` lines of real games, as a jailed bot receives them."""
    plugins = get_plugins()
    lines: list[bytes] = []
    for spec in specs:
        if len(lines) >= count:
            break
        seats = [Recorder(plugins.bot(entrant.target).factory, lines) for entrant in spec.entrants]
        play_game(plugins.game(spec.game), spec.options, spec.setup, seats, spec.names, game_id=spec.id,
                  seed=spec.seed, bot_seeds=list(spec.bot_seeds), limits=spec.limits)
    return lines[:count]


class Echo:
    """A trivial echo process for the bare round trip: each :meth:`pass_us` sends every message as one JSON line
    (blocking reads and writes), the echo parses it and answers a small action.

    With ``pin`` (and :data:`PIN_WORKER`) the echo lives on the pinned worker's core and each pass runs with this
    process on it too, as the jailed ways' bots and runner take turns on one core (:func:`as_worker`); ``core``
    says which (None: every core, or pinned already by the caller)."""

    def __init__(self, messages: list[bytes], pin: bool = True) -> None:
        self.messages = messages
        self.core = worker_core() if pin else None
        self.process = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        bufsize=0)
        if self.core is not None:
            os.sched_setaffinity(self.process.pid, {self.core})
        self.to_echo = self.process.stdin.fileno()  # type: ignore[union-attr]
        self.from_echo = self.process.stdout.fileno()  # type: ignore[union-attr]
        with as_worker(self.core is not None):
            for message in messages[:100]:  # warm up
                self.ask(message)
        self.passes: list[float] = []

    def ask(self, message: bytes) -> bytes:
        os.write(self.to_echo, message)
        reply = os.read(self.from_echo, 65536)
        while not reply.endswith(b"\n"):
            reply += os.read(self.from_echo, 65536)
        return reply

    def pass_us(self) -> None:
        """One pass: CPU microseconds of both processes a round trip, kept (pinned as :meth:`__init__` says)."""
        with as_worker(self.core is not None):
            began = time.process_time() + _process_cpu(self.process.pid)
            for message in self.messages:
                orjson.loads(self.ask(message))
            used = time.process_time() + _process_cpu(self.process.pid) - began
        self.passes.append(used / len(self.messages) * 1e6)

    def median(self) -> float:
        return sorted(self.passes)[len(self.passes) // 2]

    def close(self) -> None:
        self.process.stdin.close()  # type: ignore[union-attr]
        self.process.wait()


def _process_cpu(pid: int) -> float:
    """CPU seconds of process ``pid`` so far (its schedstat: nanoseconds, not clock ticks)."""
    with open(f"/proc/{pid}/schedstat") as handle:
        return int(handle.read().split()[0]) / 1e9


@contextlib.contextmanager
def every_bot_frozen() -> Iterator[None]:
    """Bots started inside are frozen between their turns whatever they do (the freezer before issue 25)."""
    original = freezer.Freezer.__init__

    def frozen_always(self: freezer.Freezer, isolate: bool) -> None:
        original(self, isolate)
        self.between_turns = True

    freezer.Freezer.__init__ = frozen_always  # type: ignore[method-assign]
    try:
        yield
    finally:
        freezer.Freezer.__init__ = original  # type: ignore[method-assign]


@contextlib.contextmanager
def network_per_game() -> Iterator[None]:
    """Bots started inside get network and IPC namespaces per game (as before 2026-12-05), not their template's."""
    launch_template.SHARE_NAMESPACES = False
    try:
        yield
    finally:
        launch_template.SHARE_NAMESPACES = True


@contextlib.contextmanager
def meter() -> Iterator[CpuMeter]:
    found = CpuMeter()
    try:
        yield found
    finally:
        found.close()


def fresh_alone(game: str, bot: str, games: int, cpu: CpuMeter) -> tuple[float, float]:
    """CPU ms of every process per game of a fresh bot that only starts and ends (no decision): the fresh bot's
    own cost without the noise of the decisions around it; now, and with network and IPC namespaces per game
    (before 2026-12-05), in turns."""
    limits = Limits(start_ms=10000, move_ms=5000, bank_ms=10000)
    start = {"type": "start", "game": game, "seat": 0, "players": ["a", "b", "c"], "options": {},
             "time": limits.time_message(), "setup_public": {}, "seed": 1}
    used = {True: 0.0, False: 0.0}
    for turn in range(8):
        shared = turn % 2 == 0
        with contextlib.nullcontext() if shared else network_per_game():
            seat = open_process_bot(parse_spec(bot, get_plugins()), limits, get_plugins())
            try:
                seat.start(start, 10000)
                seat.finish_game()
                seat.start(start, 10000)  # its template started, its first games played: untimed
                began = cpu.total()
                for _ in range(games // 8):
                    seat.end({"type": "end", "scores": [0, 0, 0]})
                    seat.finish_game()
                    seat.start(start, 10000)
                time.sleep(0.05)  # the last game's bot is gone (its exit counts)
                used[shared] += cpu.total() - began
            finally:
                seat.close()
    return used[True] / (games // 8 * 4) * 1000, used[False] / (games // 8 * 4) * 1000


class Split(NamedTuple):
    """A fresh bot alone, per game: CPU ms of every process and of each part, and page faults."""

    every: float  # every process of the run
    runner: float  # this process
    template: float  # the seat's template (forking, reaping, its loop)
    bots: float  # the games' bots (the template's reaper's reaped children: their jail, start, end and exit)
    template_faults: float
    bot_faults: float


def _stat(pid: int) -> tuple[int, int, int, int]:
    """Process ``pid``'s own page faults, its reaped children's, and their CPU clock ticks (its own, theirs)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return int(fields[7]), int(fields[8]), int(fields[11]) + int(fields[12]), int(fields[13]) + int(fields[14])


def fresh_split(game: str, bot: str, games: int, cpu: CpuMeter) -> Split:
    """A fresh bot alone (``games`` games of one seat that start and end with no decision), its CPU split
    between this process, the seat's template and the games' bots (the children of its reaper, which reaps
    them: their clock ticks), with page faults (each game's bot's are mostly copies on write of its template's)."""
    limits = Limits(start_ms=10000, move_ms=5000, bank_ms=10000)
    start = {"type": "start", "game": game, "seat": 0, "players": ["a", "b", "c"], "options": {},
             "time": limits.time_message(), "setup_public": {}, "seed": 1}
    seat = open_process_bot(parse_spec(bot, get_plugins()), limits, get_plugins())
    try:
        seat.start(start, 10000)
        seat.finish_game()
        seat.start(start, 10000)  # its template started, its first games played: untimed
        template = seat.launcher.template_pid
        reaper = getattr(seat.launcher, "reaper_pid", 0) or template  # the games' parent
        before, began, runner = _stat(template), cpu.total(), cpu.runner()
        reaped = _stat(reaper)
        template_began = _process_cpu(template)
        for _ in range(games):
            seat.end({"type": "end", "scores": [0, 0, 0]})
            seat.finish_game()
            seat.start(start, 10000)
        time.sleep(0.05)  # the last game's bot is gone and reaped
        after, every, runner = _stat(template), cpu.total() - began, cpu.runner() - runner
        reaped_after = _stat(reaper)
        template_used = _process_cpu(template) - template_began
    finally:
        seat.close()
    tick = os.sysconf("SC_CLK_TCK")
    return Split(every / games * 1000, runner / games * 1000, template_used / games * 1000,
                 (reaped_after[3] - reaped[3]) / tick / games * 1000, (after[0] - before[0]) / games,
                 (reaped_after[1] - reaped[1]) / games)


def total(parts: list[Timed]) -> Timed:
    """The sum of several runs of one way."""
    return Timed(sum(part.games for part in parts), sum(part.decisions for part in parts),
                 sum(part.wall for part in parts), sum(part.cpu for part in parts),
                 sum(part.runner for part in parts))


def chunks(specs: list[Any], count: int) -> list[list[Any]]:
    """``specs`` (the first one the untimed warm-up) cut in ``count`` runs, each with the warm-up first."""
    size = -(-(len(specs) - 1) // count)
    return [[specs[0]] + specs[1 + n * size:1 + (n + 1) * size] for n in range(count)]


def table(game: str, games: int, decision_games: int, cpu: CpuMeter, compare: bool, network: bool = False) -> None:
    bot, players = TABLES[game]
    before: list[tuple[str, Timed]] = []
    with tempfile.TemporaryDirectory() as folder:
        lines = real_requests(schedule(folder, game, bot, players, 40, "none", False), 3000)
        echo = Echo(lines)
        try:
            plain = play(schedule(folder, game, bot, players, games, "none", False), cpu, pin=False)
            echo.pass_us()
            fresh_specs = schedule(folder, game, bot, players, games, "process", False)
            reuse_specs = schedule(folder, game, bot, players, decision_games, "process", True)
            plain_specs = as_plain_processes(schedule(folder, game, bot, players, decision_games, "none", True))
            # in turns of a quarter, a bare round trip after each (the load drifts on a shared machine), and with
            # ``compare`` the freezer of before in the same turns
            runs: dict[str, list[Timed]] = {"fresh": [], "reused": [], "fresh before": [], "reused before": [],
                                            "fresh, network per game": [], "plain processes": []}
            for fresh_part, reuse_part, plain_part in zip(chunks(fresh_specs, 4), chunks(reuse_specs, 4),
                                                          chunks(plain_specs, 4)):
                if network:
                    with network_per_game():
                        runs["fresh, network per game"].append(play(fresh_part, cpu))
                runs["fresh"].append(play(fresh_part, cpu))
                runs["reused"].append(play(reuse_part, cpu))
                runs["plain processes"].append(play(plain_part, cpu))
                echo.pass_us()
                if compare:
                    with every_bot_frozen():
                        runs["fresh before"].append(play(fresh_part, cpu))
                        runs["reused before"].append(play(reuse_part, cpu))
        finally:
            echo.close()
    bare = echo.median()
    fresh, reused, processes = total(runs["fresh"]), total(runs["reused"]), total(runs["plain processes"])
    if compare:
        before = [("fresh, every bot frozen", total(runs["fresh before"])),
                  ("reuse, every bot frozen", total(runs["reused before"]))]
    own_network = [("fresh, network per game", total(runs["fresh, network per game"]))] if network else []
    size = sum(map(len, lines)) / len(lines)
    per = {name: timed.cpu / timed.decisions * 1e6 for name, timed in
           (("plain", plain), ("fresh", fresh), ("reused", reused), ("processes", processes))}
    runner = {name: timed.runner / timed.decisions * 1e6 for name, timed in
              (("plain", plain), ("fresh", fresh), ("reused", reused))}
    decision = per["reused"] - per["plain"]
    seat_game = (per["fresh"] - per["reused"]) * fresh.decisions / fresh.games / players / 1000
    print(f"{game}, {players} x {bot}, {fresh.games} games ({fresh.decisions / fresh.games:.0f} decisions a game; "
          f"reuse: {reused.games} games)")
    for name, timed in (("in-process", plain), ("jailed, fresh bots", fresh), ("jailed, reuse = true", reused),
                        ("plain processes, reuse", processes), *before, *own_network):
        print(f"  {name:<24} {timed.rate:8.1f} games/s  {timed.cpu / timed.games * 1000:7.2f} ms CPU a game "
              f"(this process {timed.runner / timed.games * 1000:6.2f})")
    print(f"  fresh jailed / in-process: {fresh.rate / plain.rate:.3f} on the wall clock, "
          f"{plain.cpu / plain.games / (fresh.cpu / fresh.games):.3f} in CPU time (target >= 0.2)")
    bots = {name: (timed.cpu - timed.runner) / timed.decisions * 1e6 for name, timed in
            (("plain", plain), ("reused", reused))}
    pinned = "runner and echo pinned to one core, as the jailed ways" if echo.core is not None else "on every core"
    print(f"  jail per decision: {decision:.1f} us CPU; bare round trip of a real request ({size:.0f} bytes on "
          f"average; {pinned}) {bare:.1f} us: {decision / bare:.2f}x (target <= 2x); a decision's CPU in this process "
          f"{runner['reused']:.1f} us jailed, {runner['plain']:.1f} us in-process (the bots' thought in it), in "
          f"the bots' processes {bots['reused']:.1f} us jailed")
    protocol = per["processes"] - per["plain"]
    print(f"  informative: plain processes speaking JSON lines (a `cmd:` bot's host loop under --sandbox none, "
          f"reuse) {protocol:.1f} us CPU a decision over in-process; the jailed {decision:.1f} us is "
          f"{decision / protocol:.2f}x that, {decision - protocol:.1f} us a decision the jail's own")
    print(f"  a fresh bot: {seat_game:.2f} ms CPU per seat and game more than reuse (target <= 2 ms)")
    if network:
        alone, alone_before = fresh_alone(game, bot, 400, cpu)
        print(f"  a fresh bot alone (its start and end, no decision; every process): {alone:.2f} ms CPU a game, "
              f"{alone_before:.2f} ms with network and IPC namespaces per game (before 2026-12-05), in turns")
    if own_network:
        (_, netns), = own_network
        netns_seat = (netns.cpu / netns.decisions * 1e6 - per["reused"]) * netns.decisions / netns.games / players \
            / 1000
        print(f"  with network and IPC namespaces per game (before 2026-12-05): fresh/in-process "
              f"{plain.cpu / plain.games / (netns.cpu / netns.games):.3f} in CPU time, a fresh bot {netns_seat:.2f} ms "
              f"({netns_seat - seat_game:+.2f} ms against the shared namespaces)")
    if before:
        (_, frozen_fresh), (_, frozen_reused) = before
        print(f"  every bot frozen between turns (before issue 25): fresh/in-process "
              f"{plain.cpu / plain.games / (frozen_fresh.cpu / frozen_fresh.games):.3f} in CPU time; jail per "
              f"decision {frozen_reused.cpu / frozen_reused.decisions * 1e6 - per['plain']:.1f} us CPU "
              f"({(frozen_reused.cpu / frozen_reused.decisions * 1e6 - per['plain']) / bare:.2f}x the bare round trip)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games of each way (default 500)")
    parser.add_argument("--decision-games", type=int, default=0,
                        help="games of the reuse = true way (default: as --games)")
    parser.add_argument("--tables", nargs="*", default=list(TABLES), choices=list(TABLES))
    parser.add_argument("--every-bot-frozen", action="store_true",
                        help="also play fresh and reuse with every bot frozen between turns (as before issue 25)")
    parser.add_argument("--split", action="store_true",
                        help="also time a fresh bot alone (400 games of one seat, no decision), split between this "
                             "process, the template and the games' bots, with their page faults")
    parser.add_argument("--network-per-game", action="store_true",
                        help="also play fresh with network and IPC namespaces per game (as before 2026-12-05)")
    parser.add_argument("--unpinned", action="store_true",
                        help="play the bot processes' ways and the bare round trip on every core (a -j 1 worker is "
                             "pinned under the process sandbox, and its bots keep its core)")
    arguments = parser.parse_args()
    global PIN_WORKER
    PIN_WORKER = not arguments.unpinned
    found = protections()
    print(f"{os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}; "
          f"jail: cgroups {found.cgroups}, namespaces {found.namespaces}, private root {found.filesystem}, "
          f"templates {found.fork_template}, clock {found.cpu_clock}; bot processes' ways and the bare round trip "
          + ("pinned to one core, as a -j 1 worker" if worker_core() is not None else "on every core"))
    with meter() as cpu:
        print("CPU: " + ("every process (a cpuacct group of this run's own)" if cpu.every_process else
                         "this process and the children it waited for (no cpuacct group here)"))
        for game in arguments.tables:
            table(game, arguments.games, arguments.decision_games or arguments.games, cpu, arguments.every_bot_frozen,
                  arguments.network_per_game)
            if arguments.split:
                bot, _ = TABLES[game]
                part = fresh_split(game, bot, 400, cpu)
                print(f"  a fresh bot alone, split (CPU ms a game): every process {part.every:.2f}, this process "
                      f"{part.runner:.2f}, its template {part.template:.2f}, the games' bots {part.bots:.2f} "
                      f"(reaped, exit included); page faults a game: the template {part.template_faults:.0f}, "
                      f"each game's bot {part.bot_faults:.0f}")
    print(f"load average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
