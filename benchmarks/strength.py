"""Bot strength: mean money, first places and mean rank per bot over many games, seats rotated.

    python benchmarks/strength.py modern-art appraiser random random random --games 200
    python benchmarks/strength.py silk-road trader random random --games 200

The bots named fill the seats in order; game g plays setup g (shuffled from
seed g) with the line-up rotated by g seats, so every bot plays every seat
equally often on a spread of deals. A first place shared by equal money counts
for each bot that shares it. Bots play in-process (trusted code).
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict

from tabulate import tabulate

from arena.entrants import parse_spec, parse_value
from arena.errors import ArenaError
from arena.match import InProcessBot, Limits, derive_seed, play_game
from arena.plugins import get_plugins


def play_rotated(game_name: str, specs: list[str], games: int, options: dict, limits: Limits = Limits()) -> dict:
    """Play ``games`` games with the line-up rotated each game; per-bot money and ranks."""
    plugins = get_plugins()
    game = plugins.game(game_name)
    entrants = [parse_spec(spec, plugins) for spec in specs]
    players = len(entrants)
    options = game.check_options(players, options)
    totals: dict[str, dict] = defaultdict(lambda: {"seats": 0, "money": 0, "firsts": 0, "rank": 0, "faults": 0})
    for number in range(games):
        shift = number % players
        lineup = entrants[shift:] + entrants[:shift]
        setup = game.random_setup(players, options, random.Random(number))
        seats = [InProcessBot(entrant.factory(plugins)) for entrant in lineup]
        record = play_game(game, options, setup, seats, [entrant.name for entrant in lineup],
                           game_id=f"strength/{number}", seed=number,
                           bot_seeds=[derive_seed(number, "bot", seat) for seat in range(players)], limits=limits)
        for seat, entrant in enumerate(lineup):
            row = totals[entrant.name]
            row["seats"] += 1
            row["money"] += record["result"]["money"][seat]
            row["rank"] += record["result"]["ranks"][seat]
            row["firsts"] += record["result"]["ranks"][seat] == 1
        for fault in record["faults"]:
            totals[lineup[fault["seat"]].name]["faults"] += 1
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("bots", nargs="+", metavar="BOT", help="a bot spec per seat (repeat a name for 2 vs 2)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--option", "-o", action="append", default=[], metavar="K=V",
                        help="a game option, V read as JSON (repeat)")
    parser.add_argument("--move-ms", type=int, default=Limits.move_ms, help="time per decision (ms)")
    parser.add_argument("--bank-ms", type=int, default=Limits.bank_ms, help="extra time per game (ms)")
    args = parser.parse_args()
    options = {}
    for pair in args.option:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            parser.error(f"--option expects K=V, got {pair!r}")
        options[key] = parse_value(value)
    began = time.perf_counter()
    try:
        totals = play_rotated(args.game, args.bots, args.games, options,
                              Limits(move_ms=args.move_ms, bank_ms=args.bank_ms))
    except ArenaError as error:
        parser.exit(2, f"strength.py: error: {error}\n")
    rows = []
    for name, row in totals.items():
        seats = row["seats"]
        rows.append([name, seats, f"{row['money'] / seats:.1f}", row["firsts"],
                     f"{100 * row['firsts'] / seats:.1f}%", f"{row['rank'] / seats:.2f}", row["faults"]])
    print(f"{args.game}, {args.games} games, seats rotated ({time.perf_counter() - began:.1f} s)")
    print(tabulate(rows, headers=["bot", "seat-games", "mean money", "first places", "first %", "mean rank",
                                  "faults"]))


if __name__ == "__main__":
    main()
