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

Each round has its own progress display, counting that round's games only
(``lad modern-art round 2 of 20: 3/6 games``). When a game's ladder ends it
says so in two lines: the rounds played of the budget and the games, whether
the order of the top is settled, and that top, settled or so far.
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
from arena.runs.progress import Tally
from arena.standings.ratings import rate_games
from arena.tournament.schedule import GamePlan, Schedule, game_specs, labelled, playing_entrants

#: the confidence at which ``until = "settled"`` takes an order as decided
CONFIDENCE = 0.95
#: a new entry's rating, before its first game (the raters' common default)
NEW = Rating(25.0, 25.0 / 3)
#: the places the last lines of a ladder played for its rounds (no ``top`` in the file) say are settled or not
SHOWN_TOP = 3


def standings(store: Store, game: str, entries: list[str], rater: str, orders: range) -> list[Standing]:
    """Every entry's rating over the stored games of ``game`` at schedule places ``orders`` (the earlier
    rounds of this run's schedule; new entries at the default)."""
    placings = [seat for seat in store.placings(game) if seat[0] in orders]
    ratings = rate_games(placings, rater=rater)
    games = Counter(bot for bot, _ in {(bot, order) for order, bot, _ in placings})
    return [Standing(name, ratings.get(name, NEW).mu, ratings.get(name, NEW).sigma, games[name]) for name in entries]


def run_ladder(tournament: Tournament, plugins: Plugins, schedule: Schedule, store: Store, secret: bytes,
               versions: dict[str, str], sandbox: str, pool: Pool, folder: str,
               progress: Callable[[str, Tally], Progress], announce: Callable[[str], None]) -> RunOutcome:
    """Play every game's ladder, round by round; the outcome of all rounds together.

    ``progress(label, tally)`` makes the display of one round (``label``: the
    game and the round); its counts are that round's games only. When a game's
    ladder ends, ``announce`` gets its last lines (:func:`ending`).
    """
    specs: list[GameSpec] = []
    drawn: dict[str, list[GamePlan]] = {}
    total = RunOutcome(folder, 0)
    rounds = tournament.rounds or 1
    for plan in schedule.plans:
        game = plan.entry.name
        entrants = playing_entrants(tournament, game, plugins)
        by_name = {entrant.name: entrant for entrant in entrants}
        top = min(tournament.top or SHOWN_TOP, len(by_name))
        first = len(specs)
        played = 0
        for number in range(1, rounds + 1):
            now = standings(store, game, list(by_name), tournament.rating, range(first, len(specs)))
            if tournament.until == "settled" and number > 1 and settled(now, top, CONFIDENCE):
                break
            seated = ladder_round(now, number, secret + game.encode(), plan.entry.players)
            tables = labelled(game, [tuple(by_name[name] for name in table) for table in seated],
                              prefix=f"round{number}-")
            round_plan = GamePlan(plan.entry, tables, plan.left_out, plan.deals)
            fresh = game_specs(tournament, round_plan, plugins, secret, versions, sandbox, first_order=len(specs))
            specs += fresh
            drawn.setdefault(game, []).append(round_plan)
            store.set_meta({"plan": schedule.summary(drawn), "total": len(specs)})
            stored = store.stored_games()
            reused = sum(1 for spec in fresh if spec.key in stored)
            display = progress(f"{game} round {number} of {rounds}", Tally(len(fresh), 0, {}, {}, reused=reused))
            outcome = run_schedule(specs, pool, store, display, folder=folder, stored=stored)
            played = number
            total.total = outcome.total
            total.played += outcome.played
            total.failed += outcome.failed
            total.reused = total.total - total.played - len(total.failed)
            if outcome.interrupted or outcome.failed:
                total.interrupted, total.signal = outcome.interrupted, outcome.signal
                why = "stopped" if outcome.interrupted else "games failed"
                announce(f"{game}: the ladder ended in round {number} of {rounds} ({why}); "
                         "run the same command again to go on")
                return total
        now = standings(store, game, list(by_name), tournament.rating, range(first, len(specs)))
        for line in ending(game, played, rounds, len(specs) - first, now, top, tournament.until or "rounds"):
            announce(line)
    return total


def ending(game: str, played: int, rounds: int, games: int, now: list[Standing], top: int, until: str
           ) -> list[str]:
    """The last lines of a game's ladder: rounds played of the budget, whether the order of its top ``top``
    is settled (at :data:`CONFIDENCE`), and that top by rating.

    e.g. ``modern-art: the ladder ended after 4 of 20 rounds (12 games): the order of the top 3 is settled``
    then ``modern-art: settled top 3: 1. appraiser, 2. passer, 3. random``.
    """
    decided = settled(now, top, CONFIDENCE)
    if until == "settled" and decided and played < rounds:
        how = f"after {played} of {rounds} rounds"
    else:
        how = f"after {played} of {rounds} rounds" if played < rounds else (
            f"after all {rounds} rounds" if rounds > 1 else "after its one round")
    state = "settled" if decided else f"not settled at {CONFIDENCE:.0%} confidence"
    ordered = sorted(now, key=lambda s: (-s.mu, s.entry))[:top]
    names = ", ".join(f"{place}. {s.entry}" for place, s in enumerate(ordered, 1))
    plural = "" if played == 1 else "s"
    lines = [f"{game}: the ladder ended {how} ({games} games): the order of the top {top} is {state}"]
    if decided:
        lines.append(f"{game}: settled top {top}: {names}")
    else:
        more = " (more rounds may decide it)" if played == rounds else ""
        lines.append(f"{game}: top {top} so far after {played} round{plural}, not settled: {names}{more}")
    return lines
