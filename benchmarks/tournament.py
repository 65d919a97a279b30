"""Tournament speed: games/s with one and two workers, and the cost of rating 100,000 stored games.

Part 1 plays the demo tournament (tournaments/demo.toml, default process
sandbox) from scratch with ``-j 1`` and then ``-j 2``, into a temporary
results folder, and prints games/s for each and their ratio (two workers on
two cores should give at least 1.8 times one worker), next to the ratio a
bare ``multiprocessing.Pool`` reaches on pure CPU work at the same moment
(on a machine others are using, neither reaches 2). Then it plays it on a
local Dask cluster of two worker processes (``--scheduler local:2``, when the
``dask`` extra is installed) and prints its games/s and its ratio to ``-j 2``.

Part 2 stores 100,000 synthetic five-player games (eight bots, random
finishing orders with some ties) and times, on the same games:
- the bare trueskill library rating them in order (``env.rate`` in a loop);
- the first leaderboard of the store (SQL reads, the TrueSkill pass, standings
  and head-to-head), with nothing cached;
- the leaderboard again, with its figures cached in the store.
Each in wall and CPU seconds: on a machine others are using, compare the CPU times.

    python benchmarks/tournament.py                     # the whole demo and 100,000 games
    python benchmarks/tournament.py --deals 100 --games 20000
"""

from __future__ import annotations

import argparse
import dataclasses
import multiprocessing
import os
import random
import tempfile
import time

import trueskill

from arena.errors import ArenaError
from arena.plugins import get_plugins
from arena.tournament.config import load_tournament
from arena.tournament.leaderboard import build_leaderboard
from arena.tournament.ratings import ENVIRONMENT
from arena.tournament.runner import run_tournament
from arena.match import Limits
from arena.runs.spec import FinishedGame, GameSpec
from arena.runs.store import create_or_open

DEMO = os.path.join(os.path.dirname(__file__), "..", "tournaments", "demo.toml")
BOTS = [f"bot{i}" for i in range(8)]
PLAYERS = 5


def games_per_second(tournament, jobs: int, sandbox: str, root: str, executor=None) -> tuple[int, float, float]:
    """Play the whole tournament with ``jobs`` workers (or on ``executor``, ``jobs`` blocks at a time);
    games played, games/s, main-process CPU ms per game."""
    plugins = get_plugins()
    began, cpu = time.perf_counter(), time.process_time()
    with open(os.devnull, "w") as quiet:
        outcome = run_tournament(tournament, plugins, root=root, jobs=jobs, sandbox=sandbox, fresh=True,
                                 progress_stream=quiet, executor=executor)
    elapsed, cpu = time.perf_counter() - began, time.process_time() - cpu
    assert outcome.played == outcome.total and not outcome.failed, outcome
    return outcome.played, outcome.played / elapsed, 1000 * cpu / outcome.played


def local_cluster_games_per_second(tournament, workers: int, sandbox: str, root: str) -> tuple[float, float, float]:
    """``--scheduler local:N``: start a local Dask cluster, then play the whole tournament on it;
    games/s (start-up not counted), main-process CPU ms per game (with Dask's scheduler), start-up seconds."""
    from arena.cluster.executor import open_cluster

    began = time.perf_counter()
    with open_cluster(f"local:{workers}", get_plugins()) as cluster:
        started = time.perf_counter() - began
        _, rate, main_cpu = games_per_second(tournament, cluster.slots(), sandbox, root, cluster.executor)
    return rate, main_cpu, started


def spin(rounds: int) -> int:
    """Pure CPU work for the bare-pool yardstick."""
    total = 0
    for number in range(rounds):
        total += number * number
    return total


def bare_pool_ratio(tasks: int = 200, rounds: int = 200_000) -> float:
    """How much faster a bare ``multiprocessing.Pool`` of two runs pure CPU work than a pool of one, right now."""
    context = multiprocessing.get_context("fork")
    rates = []
    for jobs in (1, 2):
        with context.Pool(jobs) as pool:
            began = time.perf_counter()
            pool.map(spin, [rounds] * tasks, chunksize=1)
            rates.append(tasks / (time.perf_counter() - began))
    return rates[1] / rates[0]


def synthetic_games(count: int, seed: int = 1) -> list[tuple[list[str], list[int], list[int]]]:
    """``count`` games: five of the eight bots each, their money and competition ranks."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        players = rng.sample(BOTS, PLAYERS)
        money = [rng.randrange(0, 40) for _ in players]  # a few ties, as in real games
        ranks = [1 + sum(other > mine for other in money) for mine in money]
        games.append((players, money, ranks))
    return games


def store_games(folder: str, games: list) -> object:
    plan = {"games": [{"name": "modern-art", "players": PLAYERS, "games": len(games), "entries": BOTS,
                       "left_out": [], "tables": []}], "bots": BOTS}
    store = create_or_open(folder, {"name": "bench", "kind": "tournament", "definition": {"name": "bench"},
                                    "plan": plan, "total": len(games)})
    finished = []
    for order, (players, money, ranks) in enumerate(games):
        record = {"id": f"bench/{order}", "game": "modern-art", "players": players,
                  "result": {"money": money, "ranks": ranks}, "faults": []}
        spec = GameSpec(order=order, id=record["id"], game="modern-art", table="t1", deal=order, rotation=1,
                        options={}, setup={}, entrants=(), seed=order, bot_seeds=(), limits=Limits(), sandbox="none")
        finished.append(FinishedGame(spec, record))
    store.add_many(finished)
    return store


def timed(work) -> tuple[float, float]:
    """Wall and CPU seconds of ``work()`` (CPU time is what a busy machine does not blur)."""
    began, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - began, time.process_time() - cpu


def bare_trueskill(games: list) -> None:
    """The trueskill library alone rating ``games`` in order."""
    env = trueskill.TrueSkill(**ENVIRONMENT)
    ratings = {bot: env.create_rating() for bot in BOTS}
    for players, _, ranks in games:
        new = env.rate([(ratings[bot],) for bot in players], ranks=ranks)
        for bot, (rating,) in zip(players, new):
            ratings[bot] = rating


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, help="deals per table instead of the demo file's")
    parser.add_argument("--sandbox", default="process", choices=["process", "none"])
    parser.add_argument("--games", type=int, default=100_000, help="stored games to rate")
    args = parser.parse_args()

    tournament = load_tournament(DEMO, get_plugins())
    if args.deals:
        tournament = dataclasses.replace(tournament, deals=args.deals)
    with tempfile.TemporaryDirectory() as root:
        played, one, main_one = games_per_second(tournament, 1, args.sandbox, root)
        _, two, main_two = games_per_second(tournament, 2, args.sandbox, root)
        try:
            on_cluster = local_cluster_games_per_second(tournament, 2, args.sandbox, root)
        except ArenaError as error:  # the dask extra is not installed
            on_cluster = error
    print(f"demo tournament, {played} games, sandbox {args.sandbox}, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.1f}:")
    print(f"  -j 1: {one:7.1f} games/s  (main process: {main_one:.2f} ms CPU per game)")
    print(f"  -j 2: {two:7.1f} games/s  (main process: {main_two:.2f} ms CPU per game)")
    print(f"  ratio -j 2 / -j 1: {two / one:.2f}  (a bare multiprocessing.Pool of pure CPU work, "
          f"measured now: {bare_pool_ratio():.2f})")
    if isinstance(on_cluster, ArenaError):
        print(f"  --scheduler local:2: not measured ({on_cluster})")
    else:
        rate, main_cluster, started = on_cluster
        print(f"  --scheduler local:2: {rate:7.1f} games/s  (main process, with Dask's scheduler: "
              f"{main_cluster:.2f} ms CPU per game; cluster started in {started:.1f} s, not counted)")
        print(f"  ratio local:2 / -j 2: {rate / two:.2f}")

    games = synthetic_games(args.games)
    with tempfile.TemporaryDirectory() as folder:
        store = store_games(folder, games)
        bare = timed(lambda: bare_trueskill(games))
        cold = timed(lambda: build_leaderboard(store))
        warm = timed(lambda: build_leaderboard(store))
        store.close()
    print(f"rating {len(games)} stored {PLAYERS}-player games (wall s / CPU s):")
    print(f"  bare trueskill library:        {bare[0]:7.2f} / {bare[1]:7.2f}  ({len(games) / bare[1]:,.0f} games/s CPU)")
    print(f"  leaderboard, ratings computed: {cold[0]:7.2f} / {cold[1]:7.2f}  "
          f"({100 * (cold[1] - bare[1]) / bare[1]:+.1f}% CPU over bare)")
    print(f"  leaderboard, ratings cached:   {warm[0]:7.2f} / {warm[1]:7.2f}")


if __name__ == "__main__":
    main()
