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
   a ratio of at least 0.83). The fixed part (the same command on a one-deal
   file: interpreter, plugins, the leaderboard at the end) is printed beside it;
3. the same with ``-j 2`` (target: at least 1.9 times ``-j 1``) and with
   ``--scheduler local:2`` (target: at least 0.9 times ``-j 2``; the local
   cluster's start-up is counted, as a user waits for it too);
4. what bounds ``-j 2`` on a machine with as many cores as workers: the
   rating of each game (TrueSkill, in schedule order, in a process of its own)
   measured here in CPU time per game against a game's own CPU time, and the
   ceiling ``2 g / (g + r)`` that follows; then ``-j 2`` over ``-j 1`` again
   with ``rating = "openskill"``, and for the heuristic reference bots
   (appraiser, trader), whose games take milliseconds of thought (their own
   plain loop, ``-j 1`` and ``-j 2``: the machinery's cost beside bots that
   think, as tournaments of real bots see it);
5. ``--sandbox process -j 2`` against ``--sandbox none -j 2`` on a smaller
   schedule (``--jail-deals``; target: at least 0.3).

Every figure is a ratio of runs made minutes apart on the same machine; on a
machine others are using, run it twice. ``--deals`` sets the size.

    python benchmarks/runner.py
    python benchmarks/runner.py --deals 100 --jail-deals 10 --skip-dask
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple

from arena.plugins import get_plugins
from arena.runs import seeds
from arena.runs.play import play_record
from arena.runs.store import open_store
from arena.standings.raters import Rater
from arena.tournament.config import load_tournament
from arena.tournament.schedule import build_schedule

GAMES = {"modern-art": 4, "silk-road": 3}
REFERENCE_BOT = {"modern-art": "appraiser", "silk-road": "trader"}


def arena_script() -> str:
    """The ``arena`` command a user of this interpreter runs: the console script installed beside it (what a
    virtualenv's ``bin/`` holds), else whatever ``arena`` the PATH finds.

    A version manager's shim on the PATH (pyenv's costs about 60 ms before Python starts) is no part of arena's
    time, and a user of a virtualenv never meets one.
    """
    beside = os.path.join(os.path.dirname(sys.executable), "arena")
    return beside if os.access(beside, os.X_OK) else "arena"


def tournament_file(folder: str, game: str, players: int, deals: int, bot: str = "random", rating: str = "",
                    label: str = "") -> str:
    """A self-play tournament: ``players`` entries of ``bot`` at one table, ``deals`` deals."""
    entries = [f'spec = "{bot}"'] + [f'spec = "b{n}={bot}"' for n in range(2, players + 1)]
    name = f"bench-{game}{label}"
    path = os.path.join(folder, f"{name}.toml")
    with open(path, "w") as handle:
        handle.write(f'[tournament]\nname = "{name}"\nseed = 1\ndeals = {deals}\n'
                     + (f'rating = "{rating}"\n' if rating else "")
                     + f'[[games]]\nname = "{game}"\nplayers = {players}\n'
                     + "".join(f"[[bots]]\n{entry}\n" for entry in entries))
    return path


def baseline(path: str) -> tuple[int, float, float]:
    """Games, games/s and CPU seconds a game of the schedule's games played by a plain loop in this process."""
    plugins = get_plugins()
    tournament = load_tournament(path, plugins)
    secret = seeds.public_secret(tournament.seed or 0)
    specs = build_schedule(tournament, plugins, secret).specs(
        "none", plugins, secret, {entrant.name: "v" for entrant in tournament.entrants})
    began, cpu = time.perf_counter(), time.process_time()
    for spec in specs:
        play_record(spec)
    return len(specs), len(specs) / (time.perf_counter() - began), (time.process_time() - cpu) / len(specs)


class Timing(NamedTuple):
    """One ``arena run``: games/s from start to exit, and CPU seconds a game of all its processes together."""

    rate: float
    cpu: float


def arena_run(path: str, games: int, *options: str) -> Timing:
    """``arena run PATH OPTIONS --fresh`` in a new process, start to exit.

    The CPU is that of the whole process tree (the command, its workers and
    its rating process: each is waited for, so the kernel adds it to ours).
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run([arena_script(), "run", path, "--fresh", *options], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, cwd=os.path.dirname(path))
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timing(games / wall, cpu / games)


def cpu_bound(one: Timing, cores: int) -> float:
    """The most ``-j 2`` can reach over ``one`` (a ``-j 1`` run) if every core is kept busy with the CPU a game
    took in ``-j 1`` (play, the runner's bookkeeping, rating): ``cores / cpu`` games/s over its rate."""
    return cores / one.cpu / one.rate


def command_seconds(path: str, *options: str) -> float:
    """Seconds of ``arena run PATH OPTIONS --fresh`` start to exit (for a one-deal file: the fixed cost)."""
    return 1 / arena_run(path, 1, *options).rate


def rating_cpu_per_game(folder: str, name: str) -> float:
    """CPU seconds TrueSkill takes per game to rate the stored games of ``folder/results/name``, in order."""
    store = open_store(os.path.join(folder, "results", name))
    try:
        games = [(record["players"], record["result"]["ranks"])
                 for record in map(json.loads, store.records())]
    finally:
        store.close()
    rater = Rater("trueskill")
    began = time.process_time()
    for bots, ranks in games:
        rater.add(bots, ranks)
    return (time.process_time() - began) / len(games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000, help="deals (each played in every rotation)")
    parser.add_argument("--reference-deals", type=int, default=400,
                        help="deals of the reference bots' runs (400: about 10 s at -j 1)")
    parser.add_argument("--jail-deals", type=int, default=30, help="deals of the sandboxed comparison")
    parser.add_argument("--skip-dask", action="store_true", help="leave out --scheduler local:2")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as folder:
        for game, players in GAMES.items():
            path = tournament_file(folder, game, players, args.deals)
            games, own, game_cpu = baseline(path)
            fixed = command_seconds(tournament_file(folder, game, players, 1, label="-one"), "--sandbox", "none",
                                    "-j", "1")
            one_run = arena_run(path, games, "--sandbox", "none", "-j", "1")
            one = one_run.rate
            two = arena_run(path, games, "--sandbox", "none", "-j", "2").rate
            print(f"{game}, {players} random bots, {games} games:")
            print(f"  the games' own time (plain loop):  {own:7.1f} games/s ({1000 * game_cpu:.2f} ms CPU a game)")
            print(f"  arena run --sandbox none -j 1:     {one:7.1f} games/s  ratio {one / own:.2f} "
                  f"(machinery adds {100 * (own / one - 1):.0f}%; target <= 20%); of which fixed: "
                  f"{fixed:.2f} s a command (ratio without it {games / (games / one - fixed) / own:.2f})")
            print(f"  arena run --sandbox none -j 2:     {two:7.1f} games/s  ratio to -j 1 {two / one:.2f} "
                  f"(target >= 1.9)")
            rating = rating_cpu_per_game(folder, f"bench-{game}")
            print(f"    bound on {os.cpu_count()} cores: rating {1000 * rating:.2f} ms CPU a game (its own process) "
                  f"process beside {1000 * game_cpu:.2f} ms of play: -j 2 / -j 1 at most "
                  f"{2 * game_cpu / (game_cpu + rating):.2f}; with all the CPU of -j 1's processes "
                  f"({1000 * one_run.cpu:.2f} ms a game): at most {cpu_bound(one_run, cores=2):.2f}")
            openskill = tournament_file(folder, game, players, args.deals, rating="openskill", label="-openskill")
            one_os = arena_run(openskill, games, "--sandbox", "none", "-j", "1").rate
            two_os = arena_run(openskill, games, "--sandbox", "none", "-j", "2").rate
            print(f"    with rating = \"openskill\": -j 1 {one_os:.1f} games/s, -j 2 {two_os:.1f} games/s, "
                  f"ratio {two_os / one_os:.2f}")
            reference = tournament_file(folder, game, players, args.reference_deals, bot=REFERENCE_BOT[game],
                                        label="-reference")
            reference_games, own_ref, ref_cpu = baseline(reference)
            one_ref_run = arena_run(reference, reference_games, "--sandbox", "none", "-j", "1")
            one_ref = one_ref_run.rate
            two_ref = arena_run(reference, reference_games, "--sandbox", "none", "-j", "2").rate
            print(f"  {players} x {REFERENCE_BOT[game]}, {reference_games} games ({1000 * ref_cpu:.2f} ms CPU a game): "
                  f"plain loop {own_ref:.1f} games/s, -j 1 {one_ref:.1f} games/s (ratio {one_ref / own_ref:.2f}; "
                  f"without the fixed cost {reference_games / (reference_games / one_ref - fixed) / own_ref:.2f}), "
                  f"-j 2 {two_ref:.1f} games/s (ratio to -j 1 {two_ref / one_ref:.2f}; bound "
                  f"{2 * ref_cpu / (ref_cpu + rating):.2f}; with all the CPU of -j 1's processes, "
                  f"{1000 * one_ref_run.cpu:.2f} ms a game: {cpu_bound(one_ref_run, cores=2):.2f})")
            if not args.skip_dask:
                dask = arena_run(path, games, "--sandbox", "none", "--scheduler", "local:2").rate
                print(f"  arena run --scheduler local:2:     {dask:7.1f} games/s  ratio to -j 2 {dask / two:.2f} "
                      f"(target >= 0.9; cluster start-up included)")
            small = tournament_file(folder, game, players, args.jail_deals, label="-small")
            small_games = args.jail_deals * players
            open_ = arena_run(small, small_games, "--sandbox", "none", "-j", "2").rate
            jailed = arena_run(small, small_games, "--sandbox", "process", "-j", "2").rate
            print(f"  {small_games} games, --sandbox none -j 2: {open_:7.1f} games/s; --sandbox process -j 2: "
                  f"{jailed:7.1f} games/s, ratio {jailed / open_:.2f} (target >= 0.3)")


if __name__ == "__main__":
    main()
