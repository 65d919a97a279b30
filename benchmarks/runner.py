"""The runner's cost as users see it: ``arena run`` end to end against the games' own time, measured in one run.

For random self-play tournaments of each game (Modern Art, 4 players; Silk
Road, 3 players), on the same schedule:

1. **the games' own time**: the engine and the bots alone, every game of the
   schedule played in one process by a plain loop (no store, no workers, no
   ratings, no leaderboard): the baseline;
2. ``arena run FILE --sandbox none -j 1`` started as a user starts it (a new
   process: interpreter start, plugin loading, schedule, worker, store,
   progress, logging, rating, leaderboard files); its games/s over the
   baseline's gives what the machinery costs (target: at most 20% more time,
   a ratio of at least 0.83);
3. the same with ``-j 2`` (target: at least 1.9 times ``-j 1``) and with
   ``--scheduler local:2`` (target: at least 0.9 times ``-j 2``; the local
   cluster's start-up is counted, as a user waits for it too);
4. ``--sandbox process -j 2`` against ``--sandbox none -j 2`` on a smaller
   schedule (``--jail-deals``; target: at least 0.3).

Every figure is a ratio of runs made minutes apart on the same machine; on a
machine others are using, run it twice. ``--deals`` sets the size; a fixed
start-up (interpreter, plugins, the leaderboard at the end: about 0.4 s) weighs
on small runs, so the default is a few thousand games.

    python benchmarks/runner.py
    python benchmarks/runner.py --deals 100 --jail-deals 10 --skip-dask
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

from arena.plugins import get_plugins
from arena.runs import seeds
from arena.runs.play import play_record
from arena.tournament.config import load_tournament
from arena.tournament.schedule import build_schedule

GAMES = {"modern-art": 4, "silk-road": 3}


def tournament_file(folder: str, game: str, players: int, deals: int) -> str:
    """A random self-play tournament: ``players`` entries of ``random`` at one table, ``deals`` deals."""
    entries = ['spec = "random"'] + [f'spec = "r{n}=random"' for n in range(2, players + 1)]
    path = os.path.join(folder, f"{game}.toml")
    with open(path, "w") as handle:
        handle.write(f'[tournament]\nname = "bench-{game}"\nseed = 1\ndeals = {deals}\n'
                     f'[[games]]\nname = "{game.removesuffix("-small")}"\nplayers = {players}\n'
                     + "".join(f"[[bots]]\n{entry}\n" for entry in entries))
    return path


def baseline(path: str) -> tuple[int, float]:
    """Games and games/s of the schedule's games played by a plain loop in this process."""
    plugins = get_plugins()
    tournament = load_tournament(path, plugins)
    secret = seeds.public_secret(tournament.seed or 0)
    specs = build_schedule(tournament, plugins, secret).specs(
        "none", plugins, secret, {entrant.name: "v" for entrant in tournament.entrants})
    began = time.perf_counter()
    for spec in specs:
        play_record(spec)
    return len(specs), len(specs) / (time.perf_counter() - began)


def arena_run(path: str, games: int, *options: str) -> float:
    """games/s of ``arena run PATH OPTIONS --fresh`` in a new process, start to exit."""
    began = time.perf_counter()
    subprocess.run(["arena", "run", path, "--fresh", *options], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, cwd=os.path.dirname(path))
    return games / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="deals (each played in every rotation)")
    parser.add_argument("--jail-deals", type=int, default=30, help="deals of the sandboxed comparison")
    parser.add_argument("--skip-dask", action="store_true", help="leave out --scheduler local:2")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as folder:
        for game, players in GAMES.items():
            path = tournament_file(folder, game, players, args.deals)
            games, own = baseline(path)
            one = arena_run(path, games, "--sandbox", "none", "-j", "1")
            two = arena_run(path, games, "--sandbox", "none", "-j", "2")
            print(f"{game}, {players} random bots, {games} games:")
            print(f"  the games' own time (plain loop):  {own:7.1f} games/s")
            print(f"  arena run --sandbox none -j 1:     {one:7.1f} games/s  ratio {one / own:.2f} "
                  f"(machinery adds {100 * (own / one - 1):.0f}%; target <= 20%)")
            print(f"  arena run --sandbox none -j 2:     {two:7.1f} games/s  ratio to -j 1 {two / one:.2f} "
                  f"(target >= 1.9)")
            if not args.skip_dask:
                dask = arena_run(path, games, "--sandbox", "none", "--scheduler", "local:2")
                print(f"  arena run --scheduler local:2:     {dask:7.1f} games/s  ratio to -j 2 {dask / two:.2f} "
                      f"(target >= 0.9; cluster start-up included)")
            small = tournament_file(folder, f"{game}-small", players, args.jail_deals)
            small_games = args.jail_deals * players
            open_ = arena_run(small, small_games, "--sandbox", "none", "-j", "2")
            jailed = arena_run(small, small_games, "--sandbox", "process", "-j", "2")
            print(f"  {small_games} games, --sandbox none -j 2: {open_:7.1f} games/s; --sandbox process -j 2: "
                  f"{jailed:7.1f} games/s, ratio {jailed / open_:.2f} (target >= 0.3)")


if __name__ == "__main__":
    main()
