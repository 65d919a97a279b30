"""Tournament speed: games/s with one and two workers, and the cost of rating 100,000 stored games.

Part 1 plays the demo tournament (tournaments/demo.toml, default process
sandbox) from scratch with ``-j 1`` and then ``-j 2``, into a temporary
results folder, and prints games/s for each and their ratio (two workers on
two cores should give at least 1.8 times one worker).

Part 2 stores 100,000 synthetic five-player games (eight bots, random
finishing orders with some ties) and times, on the same games:
- the bare trueskill library rating them in order (``env.rate`` in a loop);
- the first leaderboard of the store (SQL reads, the TrueSkill pass, standings
  and head-to-head), with no ratings cached;
- the leaderboard again, with the ratings cached in the store.

    python benchmarks/tournament.py                     # the whole demo and 100,000 games
    python benchmarks/tournament.py --deals 100 --games 20000
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import random
import tempfile
import time

import trueskill

from arena.plugins import get_plugins
from arena.tournament.config import load_tournament
from arena.tournament.leaderboard import build_leaderboard
from arena.tournament.ratings import ENVIRONMENT
from arena.tournament.runner import run_tournament
from arena.tournament.store import create_or_resume, finished_game

DEMO = os.path.join(os.path.dirname(__file__), "..", "tournaments", "demo.toml")
BOTS = [f"bot{i}" for i in range(8)]
PLAYERS = 5


def games_per_second(tournament, jobs: int, sandbox: str, root: str) -> tuple[int, float]:
    """Play the whole tournament with ``jobs`` workers; games played and games/s."""
    plugins = get_plugins()
    began = time.perf_counter()
    with open(os.devnull, "w") as quiet:
        outcome = run_tournament(tournament, plugins, root=root, jobs=jobs, sandbox=sandbox, fresh=True,
                                 progress_stream=quiet)
    elapsed = time.perf_counter() - began
    assert outcome.played == outcome.total and not outcome.failed, outcome
    return outcome.played, outcome.played / elapsed


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
    definition = {"name": "bench", "games": plan["games"]}
    store = create_or_resume(folder, definition, "bench", plan, len(games), "benchmark")
    with store.transaction():
        for order, (players, money, ranks) in enumerate(games):
            record = {"id": f"bench/{order}", "game": "modern-art", "players": players,
                      "result": {"money": money, "ranks": ranks}, "faults": []}
            row, seats, _ = finished_game(order, (record["id"], "modern-art", 1, order, 1), record)
            store.db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, '')", row)
            store.db.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?)", seats)
    return store


def bare_trueskill(games: list) -> float:
    """Seconds for the trueskill library alone to rate ``games`` in order."""
    env = trueskill.TrueSkill(**ENVIRONMENT)
    ratings = {bot: env.create_rating() for bot in BOTS}
    began = time.perf_counter()
    for players, _, ranks in games:
        new = env.rate([(ratings[bot],) for bot in players], ranks=ranks)
        for bot, (rating,) in zip(players, new):
            ratings[bot] = rating
    return time.perf_counter() - began


def timed_leaderboard(store) -> float:
    began = time.perf_counter()
    build_leaderboard(store)
    return time.perf_counter() - began


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
        played, one = games_per_second(tournament, 1, args.sandbox, root)
        _, two = games_per_second(tournament, 2, args.sandbox, root)
    print(f"demo tournament, {played} games, sandbox {args.sandbox}, {os.cpu_count()} cores:")
    print(f"  -j 1: {one:7.1f} games/s")
    print(f"  -j 2: {two:7.1f} games/s")
    print(f"  ratio -j 2 / -j 1: {two / one:.2f}")

    games = synthetic_games(args.games)
    with tempfile.TemporaryDirectory() as folder:
        store = store_games(folder, games)
        bare = bare_trueskill(games)
        cold = timed_leaderboard(store)
        warm = timed_leaderboard(store)
        store.close()
    print(f"rating {len(games)} stored {PLAYERS}-player games:")
    print(f"  bare trueskill library:        {bare:7.2f} s  ({len(games) / bare:,.0f} games/s)")
    print(f"  leaderboard, ratings computed: {cold:7.2f} s  ({100 * (cold - bare) / bare:+.1f}% over bare)")
    print(f"  leaderboard, ratings cached:   {warm:7.2f} s")


if __name__ == "__main__":
    main()
