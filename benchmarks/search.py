"""Search speed: the `mcts` bot's iterations per second, and the engine work of its inner loop.

Positions come from seeded games of the heuristic bots (`appraiser`, `trader`),
stopped at a spread of points. At each one:

- **determinizations/s**: states sampled from the deciding seat's view, as
  `mcts` draws them (the game's `determinizer` when it has one: the view
  read once per decision; else `determinize` per sample);
- **clones/s**: copies of the position's state (`PairedSearch` clones one per
  iteration);
- **iterations/s**: `mcts` runs a fixed number of iterations
  (`--iterations`) and the CPU time it takes is counted.

The positions, the seeds and the work are fixed, so two runs (or two
versions of the code) do the same searches: the moves' digest printed beside
the figures must match. CPU time, so other processes' load changes the
figures less; each figure is the best of `--rounds`.

`--against REV` measures a git revision's `arena` and `arena_bots` too (its
files exported to a temporary folder and put first on `PYTHONPATH`), in
rounds alternating with this checkout's in one run, and prints the ratios:

    python benchmarks/search.py                                 # both games, 200 iterations a decision
    python benchmarks/search.py --against f810114 --rounds 3    # before/after, same load
    python benchmarks/search.py --iterations 500 --positions 20
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

from arena.plugins import get_plugins
from arena_bots.mcts import MctsBot

#: each game's table and the heuristic that plays up to the positions
TABLES = {"modern-art": (4, "appraiser"), "silk-road": (3, "trader")}
ROOT = Path(__file__).resolve().parent.parent


def positions(plugins, game_name: str, count: int) -> list:
    """``count`` states of seeded heuristic games, each standing at a real decision."""
    game = plugins.game(game_name)
    players, heuristic = TABLES[game_name]
    options = game.check_options(players, {})
    found = []
    seed = 0
    while len(found) < count:
        state = game.new_state(game.random_setup(players, options, random.Random(seed)), options)
        bot = plugins.bot(heuristic).factory()
        if hasattr(bot, "start"):
            bot.start({"seat": 0, "game": game_name, "options": options, "seed": seed})
        stop = random.Random(seed).randrange(5, 60)
        for _ in range(stop):
            if state.seat is None:
                break
            state.apply(bot.decide({"decision": state.decision, "legal": state.legal,
                                    "view": state.view(state.seat)}))
        if state.seat is not None:
            found.append((game_name, options, state))
        seed += 1
    return found


def sampler(game, view: dict, options: dict):
    """How ``mcts`` draws determinizations of ``view`` (an engine without a ``determinizer``: one
    ``determinize`` call per sample)."""
    determinizer = getattr(game, "determinizer", None)
    if determinizer is not None:
        return determinizer(view, options)
    return lambda rng: game.determinize(view, options, rng)


def measure_engine(plugins, game_name: str, count: int, samples: int) -> dict[str, float]:
    """Determinizations and clones per CPU second over ``count`` positions, ``samples`` of each a position."""
    game = plugins.game(game_name)
    drawn = cloned = 0.0
    for number, (_, options, state) in enumerate(positions(plugins, game_name, count)):
        view = state.view(state.seat)
        rng = random.Random(number)
        began = time.process_time()
        sample = sampler(game, view, options)
        for _ in range(samples):
            sample(rng)
        drawn += time.process_time() - began
        clone = state.clone
        began = time.process_time()
        for _ in range(samples):
            clone()
        cloned += time.process_time() - began
    total = count * samples
    return {"determinizations": total / drawn, "clones": total / cloned}


def measure_search(plugins, game_name: str, count: int, budget: int) -> dict[str, object]:
    """``mcts`` iterations per CPU second over ``count`` positions, and a digest of the moves it chose."""
    iterations, cpu, searched = 0, 0.0, 0
    moves = hashlib.sha256()
    for number, (name, options, state) in enumerate(positions(plugins, game_name, count)):
        bot = MctsBot(iterations=budget)
        bot.start({"game": name, "seat": state.seat, "seed": number, "options": options,
                   "time": {"start_ms": 5000, "move_ms": 10**6, "bank_ms": 0}})
        request = {"type": "decide", "decision": state.decision, "legal": state.legal,
                   "view": state.view(state.seat), "events": [], "time_left_ms": 10**6}
        bot.last_search = None
        began = time.process_time()
        action = bot.decide(request)
        spent = time.process_time() - began
        moves.update(json.dumps(action, sort_keys=True).encode())
        if bot.last_search is not None:  # None: a single tree action, answered without searching
            iterations += bot.last_search.iterations
            cpu += spent
            searched += 1
    return {"iterations": iterations / cpu if cpu else 0.0, "searched": searched, "moves": moves.hexdigest()[:12]}


def measure(games: list[str], count: int, budget: int, samples: int) -> dict[str, dict[str, object]]:
    plugins = get_plugins()
    return {name: {**measure_engine(plugins, name, count, samples), **measure_search(plugins, name, count, budget)}
            for name in games}


def export(revision: str, folder: str) -> str:
    """``arena`` and ``arena_bots`` of git ``revision`` exported under ``folder``; their ``PYTHONPATH``."""
    archive = subprocess.run(["git", "archive", revision, "arena", "bots"], cwd=ROOT, capture_output=True, check=True)
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(folder)
    return os.pathsep.join([folder, os.path.join(folder, "bots")])


def run_once(args: argparse.Namespace, pythonpath: str | None) -> dict[str, dict[str, object]]:
    """One measurement in a fresh interpreter (this checkout's code, or the exported revision's first)."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, env.get("PYTHONPATH")]))
    command = [sys.executable, __file__, *args.games, "--positions", str(args.positions), "--iterations",
               str(args.iterations), "--samples", str(args.samples), "--json"]
    found: dict[str, dict[str, object]] = json.loads(
        subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout)
    return found


def best(runs: list[dict[str, dict[str, object]]]) -> dict[str, dict[str, object]]:
    """Each figure's best over the rounds (the least disturbed by other processes)."""
    merged: dict[str, dict[str, object]] = {}
    for run in runs:
        for name, figures in run.items():
            into = merged.setdefault(name, dict(figures))
            for key, value in figures.items():
                if isinstance(value, float):
                    into[key] = max(float(into[key]), value)  # type: ignore[arg-type]
    return merged


FIGURES = (("determinizations", "determinizations/s"), ("clones", "clones/s"), ("iterations", "mcts iterations/s"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list(TABLES), metavar="GAME")
    parser.add_argument("--positions", type=int, default=12, help="positions per game (default 12)")
    parser.add_argument("--iterations", type=int, default=200, help="iterations per decision (default 200)")
    parser.add_argument("--samples", type=int, default=300,
                        help="determinizations and clones per position (default 300)")
    parser.add_argument("--rounds", type=int, default=1, help="measurements of each code, best kept (default 1)")
    parser.add_argument("--against", metavar="REV", help="a git revision measured in the same run, alternating")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    for game_name in args.games:
        if game_name not in TABLES:
            parser.error(f"no positions for {game_name!r} (games: {', '.join(TABLES)})")
    if args.json:
        print(json.dumps(measure(args.games, args.positions, args.iterations, args.samples)))
        return
    if args.against is None:
        now = best([measure(args.games, args.positions, args.iterations, args.samples) for _ in range(args.rounds)])
        for name, figures in now.items():
            rates = ", ".join(f"{float(figures[key]):,.0f} {label}" for key, label in FIGURES)  # type: ignore[arg-type]
            print(f"{name}: {rates} ({figures['searched']} searched decisions, moves {figures['moves']})")
        return
    with tempfile.TemporaryDirectory(prefix="arena-search-") as folder:
        before_path = export(args.against, folder)
        befores, afters = [], []
        for _ in range(args.rounds):
            befores.append(run_once(args, before_path))
            afters.append(run_once(args, None))
    before, after = best(befores), best(afters)
    print(f"{args.against} (before) against this checkout (after), best of {args.rounds} alternating rounds, "
          f"CPU time; load average {os.getloadavg()[0]:.1f}")
    for name in args.games:
        old, new = before[name], after[name]
        for key, label in FIGURES:
            ratio = float(new[key]) / float(old[key])  # type: ignore[arg-type]
            print(f"  {name:10} {label:20} {float(old[key]):>9,.0f} -> {float(new[key]):>9,.0f}  {ratio:.2f}x")  # type: ignore[arg-type]
        same = "same moves" if old["moves"] == new["moves"] else "DIFFERENT MOVES"
        print(f"  {name:10} {same} ({old['moves']} / {new['moves']}, {new['searched']} searched decisions)")


if __name__ == "__main__":
    main()
