"""Start-up: a run whose games are all stored starts and ends in under 1 s on two cores, its bots' check included.

In one run:

1. **the fill run**: ``arena run FILE`` (default sandbox) into a fresh
   results folder, so that every game of the file is stored; its wall time;
2. **the rerun**: the same command again, ``--repeat`` times, each a new
   process as a user starts it, with nothing left to play (the protections
   probed, every bot started once in its jail, versions, store, leaderboards
   written and printed). Wall time from the spawn to the exit, and CPU time
   (user + system of the process and of every process it waited for: the
   probe's interpreters, the bots it checked), each beside the 1 s target,
   with a breakdown by phase:

   - ``interpreter``: from the spawn until Python runs the first line;
   - ``import``: ``arena.cli`` and the modules ``arena run`` imports when it runs;
   - ``protections``: which sandbox protections this machine gives (a jailed interpreter's trial, started
     before the run's imports as ``arena run`` starts it, then awaited);
   - ``preflight``: every bot started once in the sandbox and sent ``start``;
   - ``versions``: the versions of the bots' and the games' code;
   - ``store``: opening the store, reading the stored games and the tallies;
   - ``leaderboard``: building, writing and printing the leaderboards;
   - ``rest``: what the command does besides (plugins, the file, the schedule, the plan of what is reused);
   - ``exit``: from the command's end to the process's exit.

Others' work on a shared machine only ever slows a run: the best wall time of
the repeats is the one compared with the target, the CPU time shows what a
quiet machine would need. The load average is printed before and after.

    python benchmarks/startup.py                       # demo.toml's bots and games, 10 deals (50 games)
    python benchmarks/startup.py --deals 100           # demo.toml itself (500 games: the fill takes a minute)
    python benchmarks/startup.py --tournament FILE     # any file, played as it is
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEMO = os.path.join(ROOT, "tournaments", "demo.toml")
TARGET_S = 1.0
PHASES = ("interpreter", "import", "protections", "preflight", "versions", "store", "leaderboard", "rest", "exit")

#: run in a fresh interpreter: ``arena run ARGS`` with each phase's wall and CPU time clocked, written to a file
DRIVER = r"""
import json, os, sys, time
began = time.monotonic()
usage = sys.argv.pop(2)  # the cpuacct group's usage file, or "-"
def cpu():
    if usage != "-":
        with open(usage) as handle:
            return int(handle.read()) / 1e9
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system
origin = cpu()
phases = {}
def clocked(name, function):
    def wrapper(*args, **kwargs):
        wall, used = time.monotonic(), cpu()
        try:
            return function(*args, **kwargs)
        finally:
            total = phases.setdefault(name, [0.0, 0.0])
            total[0] += time.monotonic() - wall
            total[1] += cpu() - used
    return wrapper
def imports():
    import arena.cli
def more_imports():
    import arena.standings.leaderboard
    import arena.tournament.runner
clocked("import", imports)()
if "none" not in sys.argv:  # as arena run does first thing: the probe's trial boots while the rest is imported
    from arena.sandbox import probe
    clocked("protections", probe.start_probe)()
clocked("import", more_imports)()
from arena.cli import cli
from arena.runs.store import Store
from arena.runs import run
from arena.standings import leaderboard
from arena.tournament import runner
runner.check_protections = clocked("protections", runner.check_protections)
runner._check_bots = clocked("preflight", runner._check_bots)
run.entrant_versions = clocked("versions", run.entrant_versions)
run.game_versions = clocked("versions", run.game_versions)
run.create_or_open = clocked("store", run.create_or_open)
for method in ("stored_games", "bot_totals", "run_secret"):
    setattr(Store, method, clocked("store", getattr(Store, method)))
for name in ("build_leaderboard", "write_files", "render"):
    setattr(leaderboard, name, clocked("leaderboard", getattr(leaderboard, name)))
status = 0
try:
    cli.main(sys.argv[2:], standalone_mode=False)
except SystemExit as exit:
    status = exit.code or 0
finally:
    with open(sys.argv[1], "w") as handle:
        json.dump({"began": began, "ended": time.monotonic(), "cpu": cpu() - origin, "phases": phases}, handle)
sys.exit(status)
"""


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def fill(path: str, results: str) -> float:
    """``arena run PATH --results RESULTS`` as a user starts it: its wall time (every game played and stored)."""
    began = time.monotonic()
    subprocess.run([sys.executable, "-m", "arena", "run", path, "--results", results], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.monotonic() - began


class Replayed(Exception):
    """A rerun had games to play: a bot's or a game's code changed since the fill (the rerun stored them)."""


class CpuAccount:
    """CPU time of a process and of all its descendants, also those nobody waited for (a bot's jailed
    processes, killed with their namespace): a cgroup v1 ``cpuacct`` group of its own where this machine has
    one and lets us make it (root), else what the waited-for children report (``os.times``)."""

    BASE = "/sys/fs/cgroup/cpuacct"

    def __init__(self) -> None:
        self.folder: str | None = os.path.join(self.BASE, f"arena-startup-{os.getpid()}-{time.monotonic_ns()}")
        try:
            os.mkdir(self.folder)
        except OSError:
            self.folder = None
        self.usage = os.path.join(self.folder, "cpuacct.usage") if self.folder else "-"
        self.before = self._children()

    @staticmethod
    def _children() -> float:
        times = os.times()
        return times.children_user + times.children_system

    def join(self) -> None:
        """In the child, before it runs anything (a ``preexec_fn``)."""
        if self.folder:
            with open(os.path.join(self.folder, "cgroup.procs"), "w") as handle:
                handle.write("0")

    def seconds(self) -> float:
        """The CPU seconds used (call once, after the process ended); the group is removed."""
        if not self.folder:
            return self._children() - self.before
        with open(self.usage) as handle:
            used = int(handle.read()) / 1e9
        for _ in range(100):  # its last processes may still be on their way out
            try:
                os.rmdir(self.folder)
                break
            except OSError:
                time.sleep(0.01)
        return used


def rerun(path: str, results: str) -> dict[str, float]:
    """One rerun with nothing to play: total wall and CPU time, and each phase's (``PHASE`` and ``PHASE cpu``)."""
    with tempfile.NamedTemporaryFile(suffix=".json") as clock:
        account = CpuAccount()
        began = time.monotonic()
        command = [sys.executable, "-c", DRIVER, clock.name, account.usage, "run", path, "--results", results]
        done = subprocess.run(command,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                              preexec_fn=account.join)
        ended = time.monotonic()
        used = account.seconds()  # and its group removed, whatever follows
        if done.returncode != 0:
            raise SystemExit(f"the rerun failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
        reused = re.search(r"(\d+) to play", done.stderr)
        if reused is None or reused.group(1) != "0":
            raise Replayed(done.stderr[-2000:])
        inner = json.load(open(clock.name))
    figures = {"wall": ended - began, "cpu": used, "interpreter": inner["began"] - began,
               "every descendant": float(account.folder is not None),
               "exit": ended - inner["ended"]}
    for name, (phase_wall, phase_cpu) in inner["phases"].items():
        figures[name], figures[f"{name} cpu"] = phase_wall, phase_cpu
    figures["rest"] = max(inner["ended"] - inner["began"] - sum(w for w, _ in inner["phases"].values()), 0.0)
    figures["rest cpu"] = max(inner["cpu"] - sum(c for _, c in inner["phases"].values()), 0.0)
    return figures


def plain_rerun(command: list[str], check: str) -> tuple[float, float]:
    """Wall and CPU seconds of ``arena COMMAND`` as a user starts it, which must say ``check`` (all reused)."""
    account = CpuAccount()
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "arena", *command], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, preexec_fn=account.join)
    wall = time.monotonic() - began
    used = account.seconds()
    if check not in done.stderr:
        raise Replayed(f"arena {' '.join(command)} did not say {check!r}:\n{done.stderr[-2000:]}")
    return wall, used


def others(folder: str, repeat: int) -> list[tuple[str, list[tuple[float, float]]]]:
    """The other runs with everything stored: a ladder tournament, and ``arena compare`` (filled, then rerun)."""
    ladder = os.path.join(folder, "ladder.toml")
    with open(ladder, "w") as handle:
        handle.write('[tournament]\nname = "ladder"\nseed = 1\nformat = "ladder"\nrounds = 2\ndeals = 2\n'
                     '[[games]]\nname = "silk-road"\nplayers = 2\n'
                     + "".join(f'[[bots]]\nspec = "{spec}"\n' for spec in ("random", "trader", "r2=random",
                                                                            "t2=trader")))
    results = os.path.join(folder, "others")
    compare = ["compare", "silk-road", "--candidate", "trader", "--baseline", "random", "--players", "2",
               "--deals", "5", "--no-sprt", "--results", results]
    runs = [("arena run (ladder, 2 rounds)", ["run", ladder, "--results", results], " 0 to play"),
            ("arena compare (silk-road, 5 deals)", compare, "reused")]
    figures = []
    for label, command, check in runs:
        subprocess.run([sys.executable, "-m", "arena", *command], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)  # the fill (compare exits 1 or 3 on its verdict)
        clean: list[tuple[float, float]] = []
        for _ in range(3 * repeat):
            try:
                clean.append(plain_rerun(command, check))
            except Replayed:  # code changed since the fill: it played them, the next one has nothing to play
                print(f"  ({label}: a rerun had games to play, not counted: code changed since the fill)")
            if len(clean) == repeat:
                break
        figures.append((label, clean))
    return figures


def demo_copy(folder: str, deals: int) -> str:
    """tournaments/demo.toml with ``deals`` deals a table (its games, bots, limits and seed as they are)."""
    with open(DEMO) as handle:
        text = handle.read()
    text = re.sub(r"(?m)^deals = \d+", f"deals = {deals}", text)
    path = os.path.join(folder, "demo.toml")
    with open(path, "w") as handle:
        handle.write(text)
    return path


def report(runs: list[dict[str, float]]) -> None:
    """The reruns of the tournament beside the target, and the phases of the best."""
    best = min(runs, key=lambda run: run["wall"])
    least = min(run["cpu"] for run in runs)
    print(f"rerun, nothing to play: best wall {best['wall']:.2f} s (target < {TARGET_S:.0f} s: "
          f"{'meets' if best['wall'] < TARGET_S else 'misses'}); CPU {best['cpu']:.2f} s, least {least:.2f} s "
          f"(target < {TARGET_S:.0f} s: {'meets' if least < TARGET_S else 'misses'})")
    walls = ", ".join(f"{run['wall']:.2f}" for run in runs)
    cpus = ", ".join(f"{run['cpu']:.2f}" for run in runs)
    print(f"  every rerun: wall {walls} s; CPU {cpus} s")
    source = ("of the run's cpuacct cgroup, every process in it" if best["every descendant"] else
              "of the process and the children it waited for")
    print(f"  phases of the best (wall / CPU s; CPU {source}):")
    for name in PHASES:
        cpu = f" / {best[name + ' cpu']:.3f}" if name + " cpu" in best else ""
        print(f"    {name:<12} {best.get(name, 0.0):.3f}{cpu}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tournament", help="a tournament file to use as it is (default: demo.toml's, --deals)")
    parser.add_argument("--deals", type=int, default=10, help="deals a table of the demo copy (default 10: 50 games)")
    parser.add_argument("--repeat", type=int, default=5, help="reruns (the best wall time is compared)")
    parser.add_argument("--skip-others", action="store_true", help="only the tournament, not the ladder and compare")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {load()}, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.abspath(args.tournament) if args.tournament else demo_copy(folder, args.deals)
        results = os.path.join(folder, "results")
        print(f"fill run ({os.path.basename(path)}, default sandbox): {fill(path, results):.1f} s")
        runs: list[dict[str, float]] = []
        for _ in range(3 * args.repeat):
            try:
                runs.append(rerun(path, results))
            except Replayed as replayed:  # it played them: the next one has nothing to play again
                last = (str(replayed).strip().splitlines() or [""])[-1][:100]
                print(f"  (a rerun had games to play, not counted: code changed since the fill; {last})")
            if len(runs) == args.repeat:
                break
        if not runs:
            raise SystemExit("every rerun had games to play: is the code changing under the benchmark?")
        report(runs)
        more = [] if args.skip_others else others(folder, max(args.repeat // 2, 1))
    for label, figures in more:
        if not figures:
            print(f"{label}: every rerun had games to play (code changed under the benchmark)")
            continue
        wall, cpu = min(figures)
        each = ", ".join(f"{w:.2f}/{c:.2f}" for w, c in figures)
        print(f"{label} rerun, nothing to play: best wall {wall:.2f} s, its CPU {cpu:.2f} s "
              f"(target < {TARGET_S:.0f} s: {'meets' if wall < TARGET_S else 'misses'}; each: {each} s wall/CPU)")
    print(f"load average after: {load()}")


if __name__ == "__main__":
    main()
