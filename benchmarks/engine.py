"""Engine speed: games and decisions per second for `random` bots in-process, on one core.

Each game is what `arena play GAME -b random ... --sandbox none` plays: a
setup shuffled from the seed, `arena.match.play_game` with `InProcessBot`
seats, views and events built lazily for whoever reads them. A game not
registered (yet) is skipped with a note.

    python benchmarks/engine.py                      # modern-art x4, silk-road x3
    python benchmarks/engine.py modern-art:5 --seconds 5
"""

from __future__ import annotations

import argparse
import random
import time

from arena.errors import ArenaError, UnknownGame
from arena.match import InProcessBot, derive_seed, play_game
from arena.plugins import get_plugins

#: games/s of a straightforward state machine for these rules with no views and no
#: runner, as measured on this kind of machine (issues 2 and 3): the figures to beat.
#: They are quoted, not measured in this run, so compare on a quiet machine.
BASELINES = {("modern-art", 4): 900, ("silk-road", 3): 430}
DEFAULT_TABLES = ("modern-art:4", "silk-road:3")


def measure(game_name: str, players: int, seconds: float, plugins) -> tuple[int, int, float, float]:
    """Play games for about ``seconds``: the games played, decisions asked, CPU and wall time taken.

    Rates are per CPU second of this process: on a shared machine other
    processes then slow the measurement down less than wall time would show.
    """
    game = plugins.game(game_name)
    factory = plugins.bot("random").factory
    options = game.check_options(players, {})
    names = ["random"] * players
    games = decisions = 0
    began, cpu_began = time.perf_counter(), time.process_time()
    deadline = cpu_began + seconds
    while time.process_time() < deadline:
        seed = games
        setup = game.random_setup(players, options, random.Random(seed))
        seats = [InProcessBot(factory) for _ in range(players)]
        record = play_game(game, options, setup, seats, names, game_id=f"bench/{seed}", seed=seed,
                           bot_seeds=[derive_seed(seed, "bot", seat) for seat in range(players)])
        games += 1
        decisions += len(record["moves"])
    return games, decisions, time.process_time() - cpu_began, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="*", default=DEFAULT_TABLES, metavar="GAME:PLAYERS")
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per game (default 10)")
    args = parser.parse_args()
    plugins = get_plugins()
    for table in args.tables:
        game_name, _, players = table.partition(":")
        if not players.isdigit():
            parser.error(f"expected GAME:PLAYERS, got {table!r}")
        try:
            plugins.game(game_name)
        except UnknownGame:
            print(f"{game_name}: not registered yet, skipped")
            continue
        try:
            games, decisions, cpu, wall = measure(game_name, int(players), args.seconds, plugins)
        except ArenaError as error:
            parser.exit(2, f"engine.py: error: {error}\n")
        baseline = BASELINES.get((game_name, int(players)))
        against = (f" ({games / cpu / baseline:.2f}x the ~{baseline} games/s of a plain engine without views)"
                   if baseline else "")
        print(f"{game_name} x{players} random: {games / cpu:,.0f} games/s{against}, "
              f"{decisions / cpu:,.0f} decisions/s, {decisions / games:.1f} decisions/game "
              f"({games} games in {cpu:.1f} s CPU, {wall:.1f} s wall)")

if __name__ == "__main__":
    main()
