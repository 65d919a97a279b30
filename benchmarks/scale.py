"""More cores, more games: what bounds a run of fast games, each figure beside its target, in one run.

For random self-play Modern Art (four seats, ``--sandbox none``):

1. **the rating update**: CPU microseconds of one TrueSkill update of a
   four-player game, the ``trueskill`` library's against arena's own
   (:mod:`arena.standings.trueskill_ffa`; the same ratings bit for bit).
   Target: at most 50 us.
2. **the coordinator**: CPU microseconds the main process of ``arena run -j 2``
   spends per game while the games are played (receiving, handing the rows
   to the store's writer process, logging, the progress display, handing
   games to the rating process), from its own CPU clock around the run loop.
   Target: at most 50 us.
3. **the store**: bytes of ``results.sqlite`` per stored game. Target: at most 3 KB.
4. **parallel**: ``arena run -j 1`` and ``-j 2`` end to end (a new process each,
   start-up and leaderboard included, as a user waits for them), games/s.
   Target on two cores: ``-j 2`` at least 1.8 times ``-j 1``. Each is run
   ``--repeat`` times, alternating, and the best kept (others' work on a
   shared machine only ever slows a run).

The machine's load average is printed first: on a machine others are using,
run it twice.

    python benchmarks/scale.py                  # 1,000 deals: 4,000 games a run
    python benchmarks/scale.py --deals 250 --repeat 1
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from ratings import UPDATE_TARGET_US, synthetic_games, update_costs  # noqa: E402
from runner import tournament_file  # noqa: E402

COORDINATOR_TARGET_US = 50.0
BYTES_TARGET = 3 * 1024
PARALLEL_TARGET = 1.8

#: run in a fresh interpreter: ``arena run`` with the run loop's main-process CPU clocked and printed
COORDINATOR_SCRIPT = """
import sys, time
from arena.runs import loop
from arena.runs import run as runner
clocked = []
real = loop.run_schedule
def run_schedule(specs, *args, **kwargs):
    began = time.process_time()
    outcome = real(specs, *args, **kwargs)
    clocked.append((time.process_time() - began, outcome.played))
    return outcome
runner.run_schedule = run_schedule
from arena.cli import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
finally:
    print("CLOCKED", *clocked[0], file=sys.stderr)
"""


def verdict(ok: bool) -> str:
    return "meets" if ok else "misses"


def coordinator(path: str, jobs: int) -> tuple[float, int, float]:
    """CPU us per game of the main process's run loop in ``arena run PATH -j JOBS``; games; bytes per game stored."""
    folder = os.path.dirname(path)
    done = subprocess.run([sys.executable, "-c", COORDINATOR_SCRIPT, "run", path, "--fresh", "--sandbox", "none",
                           "-j", str(jobs)], cwd=folder, capture_output=True, text=True, check=True)
    line = next(line for line in done.stderr.splitlines() if line.startswith("CLOCKED"))
    cpu, games = float(line.split()[1]), int(line.split()[2])
    name = os.path.splitext(os.path.basename(path))[0]
    store = os.path.join(folder, "results", name, "results.sqlite")
    size = sum(os.path.getsize(store + suffix) for suffix in ("", "-wal") if os.path.exists(store + suffix))
    return cpu / games * 1e6, games, size / games


def games_per_second(path: str, games: int, jobs: int) -> float:
    """``arena run PATH --fresh --sandbox none -j JOBS`` as a user starts it: games over seconds, start to exit."""
    began = time.perf_counter()
    subprocess.run(["arena", "run", path, "--fresh", "--sandbox", "none", "-j", str(jobs)], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=os.path.dirname(path))
    return games / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="deals of the Modern Art tournament (4 games each)")
    parser.add_argument("--update-games", type=int, default=3000, help="games to time the rating update over")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each -j, alternating; the best is kept")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}, "
          f"Python {sys.version.split()[0]}")
    library_us, ours_us = update_costs(synthetic_games(args.update_games), 3)
    print(f"rating update (TrueSkill, four players): library {library_us:.1f} us, arena {ours_us:.1f} us CPU "
          f"(target <= {UPDATE_TARGET_US:.0f} us: {verdict(ours_us <= UPDATE_TARGET_US)}; {library_us / ours_us:.1f}x)")
    with tempfile.TemporaryDirectory() as folder:
        path = tournament_file(folder, "modern-art", 4, args.deals)
        per_game, games, size = coordinator(path, 2)
        print(f"coordinator (main process of -j 2, {games} random Modern Art games): {per_game:.1f} us CPU a game "
              f"(target <= {COORDINATOR_TARGET_US:.0f} us: {verdict(per_game <= COORDINATOR_TARGET_US)})")
        print(f"store: {size:,.0f} bytes a game (target <= {BYTES_TARGET:,} bytes: {verdict(size <= BYTES_TARGET)})")
        rates: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(args.repeat):
            for jobs in (1, 2):
                rates[jobs].append(games_per_second(path, games, jobs))
        one, two = max(rates[1]), max(rates[2])
        print(f"random self-play, --sandbox none: -j 1 {one:.0f} games/s, -j 2 {two:.0f} games/s: {two / one:.2f}x "
              f"(target on two cores >= {PARALLEL_TARGET}x: {verdict(two / one >= PARALLEL_TARGET)}; "
              f"runs: -j 1 {', '.join(f'{rate:.0f}' for rate in rates[1])}, "
              f"-j 2 {', '.join(f'{rate:.0f}' for rate in rates[2])})")
    print(f"load average after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
