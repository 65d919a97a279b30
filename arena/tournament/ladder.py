"""The ``ladder`` format run round by round: each round's tables drawn from the standings after the earlier ones.

Round ``r`` of a game is drawn by :func:`arena.formats.ladder.ladder_round`
from the ratings of the games of rounds ``1 .. r-1`` (rated in schedule order
by the tournament's rater), then played through the runs core like any
schedule. With ``until = "settled"`` the game's ladder stops at the first
round after which :func:`arena.formats.ladder.settled` holds for the top
``top`` entries; ``rounds`` is the budget either way.

Everything a round depends on is the secret and the stored results of the
earlier rounds, so a ladder gives the same games for any ``-j``, any
scheduler, and after a resume (where earlier rounds are reused, not played).
Tables are labelled ``roundR-a+b+c``.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from arena.formats.ladder import Standing, ladder_round, settled
from arena.plugins import Plugins
from arena.runs.loop import Progress, RunOutcome, run_schedule
from arena.runs.pools import Pool
from arena.runs.spec import GameSpec
from arena.runs.store import Store
from arena.standings.raters import Rating
from arena.tournament.config import Tournament
from arena.tournament.ratings import rate_games
from arena.tournament.schedule import GamePlan, Schedule, game_specs, labelled, playing_entrants

#: the confidence at which ``until = "settled"`` takes an order as decided
CONFIDENCE = 0.95
#: a new entry's rating, before its first game (the raters' common default)
NEW = Rating(25.0, 25.0 / 3)


def standings(store: Store, game: str, entries: list[str], rater: str, orders: range) -> list[Standing]:
    """Every entry's rating over the stored games of ``game`` at schedule places ``orders`` (the earlier
    rounds of this run's schedule; new entries at the default)."""
    placings = [seat for seat in store.placings(game) if seat[0] in orders]
    ratings = rate_games(placings, rater=rater)
    games = Counter(bot for bot, _ in {(bot, order) for order, bot, _ in placings})
    return [Standing(name, ratings.get(name, NEW).mu, ratings.get(name, NEW).sigma, games[name]) for name in entries]


def run_ladder(tournament: Tournament, plugins: Plugins, schedule: Schedule, store: Store, secret: bytes,
               versions: dict[str, str], sandbox: str, pool: Pool, folder: str,
               progress: Callable[[list[GameSpec]], Progress], announce: Callable[[str], None]) -> RunOutcome:
    """Play every game's ladder, round by round; the outcome of all rounds together."""
    specs: list[GameSpec] = []
    drawn: dict[str, list[GamePlan]] = {}
    total = RunOutcome(folder, 0)
    rounds = tournament.rounds or 1
    for plan in schedule.plans:
        game = plan.entry.name
        entrants = playing_entrants(tournament, game, plugins)
        by_name = {entrant.name: entrant for entrant in entrants}
        first = len(specs)
        for number in range(1, rounds + 1):
            now = standings(store, game, list(by_name), tournament.rating, range(first, len(specs)))
            if tournament.until == "settled" and number > 1 and settled(now, tournament.top or len(now), CONFIDENCE):
                announce(f"{game}: the order of the top {tournament.top or len(now)} is settled after "
                         f"{number - 1} rounds")
                break
            seated = ladder_round(now, number, secret + game.encode(), plan.entry.players)
            tables = labelled(game, [tuple(by_name[name] for name in table) for table in seated],
                              prefix=f"round{number}-")
            round_plan = GamePlan(plan.entry, tables, plan.left_out, plan.deals)
            fresh = game_specs(tournament, round_plan, plugins, secret, versions, sandbox, first_order=len(specs))
            specs += fresh
            drawn.setdefault(game, []).append(round_plan)
            store.set_meta({"plan": schedule.summary(drawn), "total": len(specs)})
            outcome = run_schedule(specs, pool, store, progress(specs), folder=folder)
            total.total = outcome.total
            total.played += outcome.played
            total.failed += outcome.failed
            total.reused = total.total - total.played - len(total.failed)
            if outcome.interrupted or outcome.failed:
                total.interrupted, total.signal = outcome.interrupted, outcome.signal
                return total
    return total
