"""Search speed: the `mcts` bot's iterations per second, per game, on a fixed set of positions.

Positions come from seeded games of the heuristic bots (`appraiser`, `trader`),
stopped at a spread of points; at each one `mcts` runs a fixed number of
iterations (`--iterations`) and the CPU time it takes is counted. The
positions, the bot's seed and the work are fixed, so two runs (or two
versions of the bot, e.g. an older checkout on PYTHONPATH) do the same
searches; only the machine's speed changes the figure (CPU time, so other
processes' load changes it less).

    python benchmarks/search.py                     # both games, 200 iterations a decision
    python benchmarks/search.py --iterations 500 --positions 20
"""

from __future__ import annotations

import argparse
import random
import time

from arena.plugins import get_plugins
from arena_bots.mcts import MctsBot

#: each game's table and the heuristic that plays up to the positions
TABLES = {"modern-art": (4, "appraiser"), "silk-road": (3, "trader")}


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


def measure(plugins, game_name: str, count: int, budget: int) -> tuple[int, int, float]:
    """Searched decisions, total iterations and CPU seconds over ``count`` positions."""
    iterations, cpu, searched = 0, 0.0, 0
    for number, (name, options, state) in enumerate(positions(plugins, game_name, count)):
        bot = MctsBot(iterations=budget)
        bot.start({"game": name, "seat": state.seat, "seed": number, "options": options,
                   "time": {"start_ms": 5000, "move_ms": 10**6, "bank_ms": 0}})
        request = {"type": "decide", "decision": state.decision, "legal": state.legal,
                   "view": state.view(state.seat), "events": [], "time_left_ms": 10**6}
        bot.last_search = None
        began = time.process_time()
        bot.decide(request)
        spent = time.process_time() - began
        if bot.last_search is not None:  # None: a single tree action, answered without searching
            iterations += bot.last_search.iterations
            cpu += spent
            searched += 1
    return searched, iterations, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", default=list(TABLES), metavar="GAME")
    parser.add_argument("--positions", type=int, default=12, help="positions per game (default 12)")
    parser.add_argument("--iterations", type=int, default=200, help="iterations per decision (default 200)")
    args = parser.parse_args()
    plugins = get_plugins()
    for game_name in args.games:
        if game_name not in TABLES:
            parser.error(f"no positions for {game_name!r} (games: {', '.join(TABLES)})")
        searched, iterations, cpu = measure(plugins, game_name, args.positions, args.iterations)
        rate = iterations / cpu if cpu else 0.0
        print(f"{game_name}: {rate:,.0f} iterations/s ({iterations:,} iterations in {cpu:.1f} s CPU over "
              f"{searched} searched decisions)")


if __name__ == "__main__":
    main()
