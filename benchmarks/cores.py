"""Issue 25's many-core figures in one run: ``-j 1`` against ``-j N``, Dask against ``-j N``, and what saturates.

Made to be run once on a machine of many cores (sixteen in the issue) as one
prepared script, inside a short lease of it; on two cores ``--quick`` checks
that it works. Every run is ``arena run FILE --fresh --sandbox none`` started
as a user starts it (a new process, the ``arena`` script beside this
interpreter), timed from start to exit:

1. **random self-play** (Modern Art, four ``random`` seats): ``-j 1`` and
   ``-j N``, alternating, the best of ``--repeat`` kept (target: ``-j N`` at
   least 12x ``-j 1`` on sixteen cores);
2. **heuristic self-play** (four ``appraiser`` seats): the same (target: at
   least 14x);
3. **Dask**: ``--scheduler local:N`` on the random file, against its ``-j N``
   (target: at least 0.9x; the local cluster's start is counted, as a user
   waits for it too; left out when Dask is not installed, and said so);
4. **which process saturates**: the CPU a game of every process of ``-j 1``
   and ``-j N`` on the random file (``scale.probe``): the workers, the main
   process while the games are played, the store writer, and the main
   process before and after them. The ceilings that follow are printed:
   while playing, ``N w / (w + others)`` when no process but the workers
   saturates, and the store writer's own ``w / writer`` (it rates and stores
   every game, in order, alone); end to end, the main process's start and end
   come on top, one after another (Amdahl's serial part), about 250 ms plus
   some 24 us a game on two cores on 2026-12-05 (the schedule's specs before,
   the leaderboard's reading of every seat after).

Targets are the issue's; with fewer than sixteen cores the ratios are printed
beside ``N`` for what they are. ``--random-deals`` and ``--heuristic-deals``
size the files (four games a deal): the defaults give about 15 s of ``-j 1``
each on the machine the issue measured.

    python benchmarks/cores.py                 # every core
    python benchmarks/cores.py --quick         # a two-core check that it runs
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from runner import arena_script, tournament_file  # noqa: E402
from scale import Cpu, probe  # noqa: E402

RANDOM_TARGET, HEURISTIC_TARGET, DASK_TARGET = 12.0, 14.0, 0.9


def games_per_second(path: str, games: int, options: list[str]) -> float:
    """``arena run PATH --fresh --sandbox none OPTIONS`` as a user starts it: games over seconds, start to exit."""
    began = time.perf_counter()
    subprocess.run([arena_script(), "run", path, "--fresh", "--sandbox", "none", *options], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=os.path.dirname(path))
    return games / (time.perf_counter() - began)


def best_rates(path: str, games: int, ways: dict[str, list[str]], repeat: int) -> dict[str, float]:
    """The best games/s of each way of running ``path``, the ways taken in turn ``repeat`` times."""
    rates: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(repeat):
        for name, options in ways.items():
            rates[name].append(games_per_second(path, games, options))
    for name, seen in rates.items():
        print(f"  {name}: {', '.join(f'{rate:,.0f}' for rate in seen)} games/s")
    return {name: max(seen) for name, seen in rates.items()}


def ratio_line(what: str, ratio: float, target: float, jobs: int) -> str:
    verdict = "meets" if ratio >= target else "misses"
    return f"{what}: {ratio:.2f}x (target on sixteen cores >= {target}x: {verdict} on {jobs} cores)"


def saturation(one: Cpu, many: Cpu, jobs: int) -> None:
    """The CPU a game of each process at ``-j 1`` and ``-j JOBS``, and the ceilings it sets."""
    names = sorted({*one.others, *many.others})
    rows = [("workers (all)", one.workers, many.workers),
            ("main, while playing", one.main_loop, many.main_loop),
            *((name, one.others.get(name, 0.0), many.others.get(name, 0.0)) for name in names),
            ("main, before and after (serial)", one.main_rest, many.main_rest)]
    print(f"  {'CPU us a game':<34}{'-j 1':>10}{f'-j {jobs}':>10}")
    for name, first, second in rows:
        print(f"  {name:<34}{first:>10.1f}{second:>10.1f}")
    writer = many.others.get("store-writer", 0.0)
    print(f"  ceiling while playing, workers bound: {many.ceiling(jobs):.2f}x; the store writer alone "
          f"(w / writer): {one.workers / writer if writer else float('inf'):.2f}x; end to end with the main "
          f"process's start and end: {many.end_to_end(jobs):.2f}x")
    print(f"  wall before the run loop {1000 * many.before:.0f} ms, after it {1000 * many.after:.0f} ms "
          f"({many.games:,} games)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="N (default: every core)")
    parser.add_argument("--random-deals", type=int, default=5000, help="deals of random self-play (default 5000)")
    parser.add_argument("--heuristic-deals", type=int, default=600, help="deals of appraiser self-play (default 600)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each way, in turn; the best is kept")
    parser.add_argument("--quick", action="store_true", help="small files, one run each: a check that it works")
    args = parser.parse_args()
    if args.jobs < 1:
        parser.error(f"--jobs {args.jobs}: give a number of worker processes, 1 or more")
    if args.quick:
        args.random_deals, args.heuristic_deals, args.repeat = 300, 30, 1
    jobs = args.jobs
    print(f"{os.cpu_count()} cores, -j {jobs}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
          f"Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as folder:
        random_file = tournament_file(folder, "modern-art", 4, args.random_deals)
        heuristic_file = tournament_file(folder, "modern-art", 4, args.heuristic_deals, bot="appraiser",
                                         label="-appraiser")
        ways = {"-j 1": ["-j", "1"], f"-j {jobs}": ["-j", str(jobs)]}
        dask = importlib.util.find_spec("distributed") is not None
        if dask:
            ways[f"local:{jobs}"] = ["--scheduler", f"local:{jobs}"]
        print(f"random self-play, {4 * args.random_deals:,} games:")
        rates = best_rates(random_file, 4 * args.random_deals, ways, args.repeat)
        print(ratio_line(f"random self-play -j {jobs} / -j 1", rates[f"-j {jobs}"] / rates["-j 1"],
                         RANDOM_TARGET, jobs))
        if dask:
            ratio = rates[f"local:{jobs}"] / rates[f"-j {jobs}"]
            print(f"Dask local:{jobs} / -j {jobs}: {ratio:.2f}x (target >= {DASK_TARGET}x: "
                  f"{'meets' if ratio >= DASK_TARGET else 'misses'})")
        else:
            print("Dask: not measured (the `distributed` package is not installed: pip install -e '.[dask]')")
        print(f"heuristic self-play (appraiser), {4 * args.heuristic_deals:,} games:")
        rates = best_rates(heuristic_file, 4 * args.heuristic_deals,
                           {"-j 1": ["-j", "1"], f"-j {jobs}": ["-j", str(jobs)]}, args.repeat)
        print(ratio_line(f"heuristic self-play -j {jobs} / -j 1", rates[f"-j {jobs}"] / rates["-j 1"],
                         HEURISTIC_TARGET, jobs))
        print("which process saturates (random self-play):")
        saturation(probe(random_file, 1), probe(random_file, jobs), jobs)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
