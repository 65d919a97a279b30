"""More cores, more games: what bounds a run of fast games, each figure beside its target, in one run.

For random self-play Modern Art (four seats, ``--sandbox none``):

1. **the rating update**: CPU microseconds of one TrueSkill update of a
   four-player game, the ``trueskill`` library's against arena's own
   (:mod:`arena.standings.trueskill_ffa`; the same ratings bit for bit).
   Target: at most 50 us.
2. **the CPU of each process**: ``arena run -j 1`` and ``-j 2`` each in a new
   interpreter, every process's CPU time taken as it ends (the workers, the
   store's writer, a rating process if any; the main process while the games
   are played and before and after), a game. On two cores whatever is not a
   worker while the games are played takes from the two workers at ``-j 2``
   (at ``-j 1`` it has the second core), and the main process's start and end
   run alone at any ``-j``: the ceilings ``2 w / (w + o)`` and
   ``(s + w) / (s + (w + o) / 2)`` follow (``w`` the workers, ``o`` the rest
   while playing, ``s`` the main process before and after), and the wall time
   before the run loop starts its processes and after they stop, which no
   worker plays at any ``-j``. CPU times, not
   wall times: others' work on a shared machine barely moves them. The
   coordinator's target: the main process of ``-j 2`` at most 50 us a game
   while playing. ``--profile FOLDER`` writes each process's cProfile there.
3. **the store**: bytes of ``results.sqlite`` per stored game. Target: at most 3 KB.
4. **parallel**: ``arena run -j 1`` and ``-j 2`` end to end (a new process each,
   start-up and leaderboard included, as a user waits for them), games/s.
   Target on two cores: ``-j 2`` at least 1.8 times ``-j 1``. Each is run
   ``--repeat`` times, alternating, and the best kept (others' work on a
   shared machine only ever slows a run).

The machine's load average is printed first: on a machine others are using,
run it twice. ``--against REV`` measures another revision's ``arena`` package
(taken out with ``git archive``, its bytecode compiled) in the same run, its
probes and timed runs alternating with this checkout's, so that both meet the
same load: each figure is then printed for both.

    python benchmarks/scale.py                  # 1,000 deals: 4,000 games a run
    python benchmarks/scale.py --deals 250 --repeat 1
    python benchmarks/scale.py --cpu-only       # the CPU table alone (no rating update, no timed runs)
    python benchmarks/scale.py --against 2adf15d --repeat 3
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ratings import UPDATE_TARGET_US, synthetic_games, update_costs  # noqa: E402
from runner import arena_script, tournament_file  # noqa: E402

COORDINATOR_TARGET_US = 50.0
BYTES_TARGET = 3 * 1024
PARALLEL_TARGET = 1.8

#: run in a fresh interpreter: ``arena run`` with the CPU time of each of its processes written to ``$SCALE_CPU``
#: as it ends (``NAME SECONDS``): each forked process (workers, the store writer, a rating process) at the end
#: of its ``run``; the main process's run loop (``main-loop SECONDS GAMES``) and its whole life (``main``).
#: With ``$SCALE_PROFILE`` set to a folder, each process's cProfile goes there too (``NAME.prof``).
PROBE_SCRIPT = """
import cProfile, multiprocessing.process, os, sys, time
out, folder = os.environ["SCALE_CPU"], os.environ.get("SCALE_PROFILE")
def note(line):
    with open(out, "a") as handle:
        handle.write(line + "\\n")
def profiled(name, call):
    profiler = cProfile.Profile(time.process_time) if folder else None
    if profiler is not None:
        profiler.enable()
    try:
        return call()
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(os.path.join(folder, name + ".prof"))
real_run = multiprocessing.process.BaseProcess.run
def run(self):
    try:
        profiled(self.name, lambda: real_run(self))
    finally:
        note(f"{self.name} {time.process_time()}")
multiprocessing.process.BaseProcess.run = run
from arena.runs import loop
from arena.runs import run as runner
real_schedule = loop.run_schedule
def run_schedule(specs, *args, **kwargs):
    began, wall = time.process_time(), time.time()
    outcome = profiled("main-loop", lambda: real_schedule(specs, *args, **kwargs))
    note(f"main-loop {time.process_time() - began} {outcome.played}")
    note(f"wall-loop {time.time() - wall}")
    note(f"wall-before {wall}")
    return outcome
runner.run_schedule = run_schedule
from arena.cli import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
finally:
    note(f"main {time.process_time()}")
"""


def stale_bytecode() -> tuple[int, int]:
    """How many of arena's modules have no up-to-date bytecode beside them, of how many: with
    ``PYTHONDONTWRITEBYTECODE`` set, every interpreter of a run compiles those again before its first game."""
    import importlib.util

    import arena

    stale = total = 0
    for folder, _, names in os.walk(os.path.dirname(arena.__file__)):
        for name in names:
            if name.endswith(".py"):
                source = os.path.join(folder, name)
                cached = importlib.util.cache_from_source(source)
                total += 1
                stale += not os.path.exists(cached) or os.path.getmtime(cached) < os.path.getmtime(source)
    return stale, total


def verdict(ok: bool) -> str:
    return "meets" if ok else "misses"


class Cpu(NamedTuple):
    """CPU microseconds a game of each kind of process of one ``arena run`` (probed), its games and its store."""

    workers: float  # every worker together
    main_loop: float  # the main process while the games are played (receiving, storing, progress)
    main_rest: float  # the main process before and after (interpreter, imports, schedule, leaderboard)
    others: dict[str, float]  # every other process by name (the store writer, a rating process)
    games: int
    bytes_a_game: float
    before: float = 0.0  # wall seconds from the command's start to its run loop's (workers not started yet)
    after: float = 0.0  # wall seconds from the run loop's end (every game stored) to the command's exit

    @property
    def beside(self) -> float:
        """What is not a worker while the games are played, a game."""
        return self.main_loop + sum(self.others.values())

    def ceiling(self, jobs: int = 2) -> float:
        """``-j JOBS`` over ``-j 1`` on JOBS cores while games are played: ``JOBS w / (w + others)``."""
        return jobs * self.workers / (self.workers + self.beside)

    def end_to_end(self, jobs: int = 2) -> float:
        """The same for the whole command, the main process's own start and end (one after another) counted."""
        return (self.main_rest + self.workers) / (self.main_rest + (self.workers + self.beside) / jobs)


def code_tree(folder: str, revision: str) -> str:
    """``revision``'s ``arena`` package taken out into ``folder`` (``git archive``) and compiled, for ``PYTHONPATH``."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.makedirs(folder)
    archive = subprocess.run(["git", "archive", revision, "arena"], cwd=root, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(folder, "arena")], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    return folder


def tree_env(tree: str | None) -> dict[str, str]:
    """The environment of a run of ``tree``'s arena (None: this checkout's, the one installed)."""
    if tree is None:
        return dict(os.environ)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tree, os.environ.get("PYTHONPATH", "")]))}


def probe(path: str, jobs: int, profile: str | None = None, tree: str | None = None) -> Cpu:
    """``arena run PATH --fresh --sandbox none -j JOBS`` in a new interpreter, the CPU of each process probed."""
    folder = os.path.dirname(path)
    cpu_file = os.path.join(folder, f"cpu-{jobs}.txt")
    with contextlib.suppress(FileNotFoundError):
        os.remove(cpu_file)
    env = {**tree_env(tree), "SCALE_CPU": cpu_file, **({"SCALE_PROFILE": profile} if profile else {})}
    started = time.time()
    subprocess.run([sys.executable, "-c", PROBE_SCRIPT, "run", path, "--fresh", "--sandbox", "none", "-j", str(jobs)],
                   cwd=folder, capture_output=True, text=True, check=True, env=env)
    ended = time.time()
    seconds: dict[str, float] = {}
    games = 0
    with open(cpu_file) as handle:
        for line in handle:
            name, value, *rest = line.split()
            seconds[name] = seconds.get(name, 0.0) + float(value)
            if rest:
                games = int(rest[0])
    loop_began, loop_wall = seconds.pop("wall-before"), seconds.pop("wall-loop")
    name = os.path.splitext(os.path.basename(path))[0]
    store = os.path.join(folder, "results", name, "results.sqlite")
    size = sum(os.path.getsize(store + suffix) for suffix in ("", "-wal") if os.path.exists(store + suffix))
    per_game = {key: value / games * 1e6 for key, value in seconds.items()}
    workers = sum(value for key, value in per_game.items() if key.startswith("worker-"))
    others = {key: value for key, value in per_game.items() if not key.startswith(("worker-", "main"))}
    return Cpu(workers, per_game["main-loop"], per_game["main"] - per_game["main-loop"], others, games, size / games,
               loop_began - started, ended - loop_began - loop_wall)


def cpu_table(runs: dict[int, Cpu]) -> str:
    """The CPU a game of each process of each run, and the ceilings that follow."""
    names = sorted({name for cpu in runs.values() for name in cpu.others})
    rows = [("workers (all)", *(f"{cpu.workers:.1f}" for cpu in runs.values())),
            ("main, while playing", *(f"{cpu.main_loop:.1f}" for cpu in runs.values())),
            *((name, *(f"{cpu.others.get(name, 0.0):.1f}" for cpu in runs.values())) for name in names),
            ("not a worker, while playing", *(f"{cpu.beside:.1f}" for cpu in runs.values())),
            ("  the same, % of the workers (load inflates both)", *(f"{100 * cpu.beside / cpu.workers:.1f}%"
                                                                   for cpu in runs.values())),
            ("main, before and after", *(f"{cpu.main_rest:.1f}" for cpu in runs.values())),
            ("ceiling of -j 2 / -j 1 while playing: 2w/(w+others)", *(f"{cpu.ceiling():.2f}" for cpu in runs.values())),
            ("the same end to end (main's start and end alone)", *(f"{cpu.end_to_end():.2f}" for cpu in runs.values())),
            ("wall ms before the run loop (alone at any -j)", *(f"{1000 * cpu.before:.0f}" for cpu in runs.values())),
            ("wall ms after it (alone at any -j)", *(f"{1000 * cpu.after:.0f}" for cpu in runs.values()))]
    width = max(len(row[0]) for row in rows)
    lines = [f"{'CPU us a game':<{width}}  " + "  ".join(f"{'-j ' + str(jobs):>8}" for jobs in runs)]
    lines += [f"{row[0]:<{width}}  " + "  ".join(f"{cell:>8}" for cell in row[1:]) for row in rows]
    return "\n".join(lines)


def games_per_second(path: str, games: int, jobs: int, tree: str | None = None) -> float:
    """``arena run PATH --fresh --sandbox none -j JOBS`` as a user starts it: games over seconds, start to exit."""
    began = time.perf_counter()
    subprocess.run([arena_script(), "run", path, "--fresh", "--sandbox", "none", "-j", str(jobs)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=os.path.dirname(path), env=tree_env(tree))
    return games / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="deals of the Modern Art tournament (4 games each)")
    parser.add_argument("--update-games", type=int, default=3000, help="games to time the rating update over")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each -j, alternating; the best is kept")
    parser.add_argument("--profile", metavar="FOLDER", help="write each process's cProfile to FOLDER/j1, FOLDER/j2")
    parser.add_argument("--cpu-only", action="store_true", help="the CPU table alone: no rating update, no timed runs")
    parser.add_argument("--against", metavar="REV", help="measure git revision REV's arena too, alternating with this "
                                                         "checkout's (its figures printed first)")
    args = parser.parse_args()
    for jobs in (1, 2):
        if args.profile:
            os.makedirs(os.path.join(args.profile, f"j{jobs}"), exist_ok=True)
    print(f"{os.cpu_count()} cores, load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}, "
          f"Python {sys.version.split()[0]}")
    stale, modules = stale_bytecode()
    if stale:
        print(f"note: {stale} of arena's {modules} modules have no up-to-date bytecode"
              f"{' and PYTHONDONTWRITEBYTECODE is set' if sys.flags.dont_write_bytecode else ''}: each run's "
              "interpreter may compile them before its first game (tens of ms, alone at any -j); an installed "
              "arena has them compiled (`python -m compileall -q arena` without that variable)")
    if not args.cpu_only:
        library_us, ours_us = update_costs(synthetic_games(args.update_games), 3)
        print(f"rating update (TrueSkill, four players): library {library_us:.1f} us, arena {ours_us:.1f} us CPU "
              f"(target <= {UPDATE_TARGET_US:.0f} us: {verdict(ours_us <= UPDATE_TARGET_US)}; "
              f"{library_us / ours_us:.1f}x)")
    with tempfile.TemporaryDirectory() as folder:
        trees: dict[str, str | None] = {"this checkout": None}
        if args.against:
            trees = {args.against: code_tree(os.path.join(folder, "against"), args.against), **trees}
        path = tournament_file(folder, "modern-art", 4, args.deals)
        runs: dict[str, dict[int, Cpu]] = {name: {} for name in trees}
        for jobs in (1, 2):
            for name, tree in trees.items():
                runs[name][jobs] = probe(path, jobs, args.profile and os.path.join(args.profile, f"j{jobs}"), tree)
        games = runs["this checkout"][2].games
        for name in trees:
            two_cpu = runs[name][2]
            print(f"CPU of each process of `arena run --sandbox none`, {name} ({games} games; load average "
                  f"{' '.join(f'{load:.2f}' for load in os.getloadavg())}):")
            print(cpu_table(runs[name]))
            print(f"coordinator (main process of -j 2 while playing): {two_cpu.main_loop:.1f} us CPU a game "
                  f"(target <= {COORDINATOR_TARGET_US:.0f} us: {verdict(two_cpu.main_loop <= COORDINATOR_TARGET_US)})")
            print(f"store: {two_cpu.bytes_a_game:,.0f} bytes a game "
                  f"(target <= {BYTES_TARGET:,} bytes: {verdict(two_cpu.bytes_a_game <= BYTES_TARGET)})")
        if args.cpu_only:
            return
        rates: dict[tuple[str, int], list[float]] = {(name, jobs): [] for name in trees for jobs in (1, 2)}
        for _ in range(args.repeat):
            for jobs in (1, 2):
                for name, tree in trees.items():
                    rates[name, jobs].append(games_per_second(path, games, jobs, tree))
        for name in trees:
            one, two = max(rates[name, 1]), max(rates[name, 2])
            met = verdict(two / one >= PARALLEL_TARGET)
            print(f"random self-play, --sandbox none, {name}: -j 1 {one:.0f} games/s, -j 2 {two:.0f} games/s: "
                  f"{two / one:.2f}x (target on two cores >= {PARALLEL_TARGET}x: {met}; "
                  f"runs: -j 1 {', '.join(f'{rate:.0f}' for rate in rates[name, 1])}, "
                  f"-j 2 {', '.join(f'{rate:.0f}' for rate in rates[name, 2])})")
    print(f"load average after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
