"""Standings sections as plain data: one per game of the tournament and an overall one.

A game's section orders its bots by their rating (the rater's mu, highest
first) and gives for each: the rating with its 95% interval, the range of
ranks from the bootstrap over deal blocks, whether its order against the next
bot is decided, games, first places, mean placing, mean money and faults; and
the head-to-head record of every pair (:mod:`arena.standings.figures`).

The overall section never mixes ratings of different games: a bot's overall
standing is the **mean of its ranks in the games it plays** (each game
weighs the same, whatever its number of games or its scale of money), ties
broken by the better best rank, then by name. A bot that plays fewer of the
tournament's games is ranked after every bot that plays more: first place in
the one game it plays says nothing about the game it does not, so it never
outranks a bot ranked on both. Its rank range comes from the
same bootstrap: in each resample, every bot's mean of its per-game ranks in
that resample, ranked the same way. The totals and head-to-head counts add up the games'.

The sections are the JSON form of the leaderboard; :mod:`arena.standings.leaderboard`
renders them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from arena.standings.figures import CONFIDENCE, RESAMPLES, GameFigures, HeadToHead, Totals
from arena.standings.raters import Rating, RaterInfo

OVERALL = "overall"


@dataclass(frozen=True)
class GameInput:
    """What one game's section is built from."""

    name: str
    entries: list[str]
    ratings: dict[str, Rating]
    figures: GameFigures
    stored: int
    scheduled: int
    notes: list[str]


def explanation(rater: RaterInfo) -> list[str]:
    """The plain-words lines under a game's standings."""
    return [
        f"rating: the {rater.title} estimate of each bot's skill in this game from its placings, "
        f"rated game by game in schedule order (a new bot starts at {rater.environment['mu']:g}); "
        f"the interval holds its true skill with 95% confidence (mu +- 1.96 sigma)",
        "bots are ordered by rating; 'ranks' is the range of ranks the bot holds in 95% of "
        f"{RESAMPLES} resamples of the deals (each deal played in all its seat rotations counts as one unit)",
        "'vs next': how often the bot scores above the next one down in those resamples; "
        "'?' marks an order that is not decided (under 97.5%)",
        "games count games, not seats; mean placing is 1 for first; first places include shared ones",
    ]


OVERALL_EXPLANATION = [
    "overall: bots are ordered by the mean of their ranks in the games they play (each game weighs the same); "
    "ratings of different games are on different scales and are not combined",
    "a bot that plays fewer of the games is ranked after every bot that plays more of them",
    f"'ranks' is the range of ranks the bot holds in 95% of {RESAMPLES} resamples of every game's deals",
    "games, first places, mean placing, mean money and faults add up every game",
]
HEAD_TO_HEAD_EXPLANATION = ("head-to-head: wins-draws-losses of the row's bot against the column's bot over the "
                            "games they shared (a win: placed above it), then its score (wins + draws/2 "
                            "over games) with a 95% interval")


def game_section(data: GameInput, rater: RaterInfo) -> dict[str, Any]:
    """One game's section (its JSON form)."""
    resampled = data.figures.resampled
    start = Rating(rater.environment["mu"], rater.environment["sigma"])
    order = sorted(data.entries, key=lambda bot: (-data.ratings.get(bot, start).mu, bot))
    rows = []
    for rank, bot in enumerate(order, 1):
        rating = data.ratings.get(bot, start)
        low, high = resampled.rank_range(bot) if bot in resampled.bots else (1, len(order))  # no games yet
        rows.append({"rank": rank, "bot": bot, "rating": rating.mu, "rating_low": rating.low,
                     "rating_high": rating.high, "mu": rating.mu, "sigma": rating.sigma,
                     "score": rating.conservative, "rank_low": low, "rank_high": high,
                     **_totals_fields(data.figures.totals.get(bot))})
    _mark_next(rows, lambda bot, other: resampled.above(bot, other)
               if bot in resampled.bots and other in resampled.bots else 0.5)
    return {"game": data.name, "games": data.stored, "scheduled": data.scheduled, "standings": rows,
            "notes": data.notes, "explanation": explanation(rater),
            "head_to_head": _head_to_head_fields(data.figures.head_to_head)}


def overall_section(games: list[GameInput], sections: list[dict[str, Any]], bots: list[str], stored: int,
                    scheduled: int, notes: list[str]) -> dict[str, Any]:
    """The overall section from the games' inputs and their built sections (for the ranks)."""
    ranks = {section["game"]: {row["bot"]: row["rank"] for row in section["standings"] if row["games"]}
             for section in sections}  # a game the bot has not played yet does not count
    mean_rank = {bot: [ranks[g.name][bot] for g in games if bot in ranks[g.name]] for bot in bots}
    order = sorted((bot for bot in bots if mean_rank[bot]),  # more games played first, then the mean rank
                   key=lambda bot: (-len(mean_rank[bot]), np.mean(mean_rank[bot]), min(mean_rank[bot]), bot))
    resampled = _overall_resamples(games, order)
    totals = _sum_totals([g.figures.totals for g in games])
    rows = []
    for rank, bot in enumerate(order, 1):
        column = resampled[:, rank - 1]
        rows.append({"rank": rank, "bot": bot, "rating": None, "rating_low": None, "rating_high": None,
                     "mu": None, "sigma": None, "score": None,
                     "mean_game_rank": float(np.mean(mean_rank[bot])),
                     "game_ranks": {g.name: ranks[g.name][bot] for g in games if bot in ranks[g.name]},
                     "rank_low": int(np.quantile(column, 0.025, method="lower")),
                     "rank_high": int(np.quantile(column, 0.975, method="higher")),
                     **_totals_fields(totals.get(bot))})
    position = {bot: index for index, bot in enumerate(order)}
    _mark_next(rows, lambda bot, other: float(np.mean((resampled[:, position[bot]] < resampled[:, position[other]])
                                                      + 0.5 * (resampled[:, position[bot]]
                                                               == resampled[:, position[other]]))))
    return {"game": OVERALL, "games": stored, "scheduled": scheduled, "standings": rows, "notes": notes,
            "explanation": list(OVERALL_EXPLANATION),
            "head_to_head": _head_to_head_fields(_sum_head_to_head([g.figures.head_to_head for g in games]))}


def _overall_resamples(games: list[GameInput], order: list[str]) -> np.ndarray:
    """Per resample, each bot's rank (``order``'s columns): fewer games played after more, then by the mean
    of its per-game resampled ranks."""
    total = np.zeros((RESAMPLES, len(order)))
    count = np.zeros(len(order))
    for game in games:
        resampled = game.figures.resampled
        mid = resampled.midranks()
        for column, bot in enumerate(order):
            if bot in resampled.bots and bot in game.entries:
                total[:, column] += mid[:, resampled.bots.index(bot)]
                count[column] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1), np.inf)
    mean = mean + (len(games) - count) * (len(order) + 1)  # a game fewer weighs more than any mean rank (<= bots)
    below = (mean[:, None, :] < mean[:, :, None]).sum(2)
    level = (mean[:, None, :] == mean[:, :, None]).sum(2)
    midranks: np.ndarray = below + (level + 1) / 2  # midrank among ties
    return midranks


def _mark_next(rows: list[dict[str, Any]], above: Callable[[str, str], float]) -> None:
    """Each row's ``vs_next`` (share of resamples it is above the next row) and ``decided``."""
    for row, following in zip(rows, rows[1:] + [None]):
        share = above(row["bot"], following["bot"]) if following else None
        row["vs_next"] = share
        row["decided"] = None if share is None else share >= 1 - (1 - CONFIDENCE) / 2


def _totals_fields(totals: Totals | None) -> dict[str, Any]:
    if totals is None or not totals.games:
        return {"games": 0, "seats": 0, "firsts": 0, "mean_rank": None, "mean_money": None,
                "faults": totals.faults if totals else 0}
    return {"games": totals.games, "seats": totals.seats, "firsts": totals.firsts,
            "mean_rank": totals.placing_sum / totals.games, "mean_money": totals.money_sum / totals.games,
            "faults": totals.faults}


def _sum_totals(per_game: list[dict[str, Totals]]) -> dict[str, Totals]:
    summed: dict[str, Totals] = {}
    for totals in per_game:
        for bot, t in totals.items():
            was = summed.get(bot, Totals(0, 0, 0, 0.0, 0.0, 0))
            summed[bot] = Totals(was.games + t.games, was.seats + t.seats, was.firsts + t.firsts,
                                 was.placing_sum + t.placing_sum, was.money_sum + t.money_sum, was.faults + t.faults)
    return summed


def _sum_head_to_head(per_game: list[dict[tuple[str, str], HeadToHead]]) -> dict[tuple[str, str], HeadToHead]:
    """The games' records added up (deal blocks of different games are independent: effective games add)."""
    summed: dict[tuple[str, str], HeadToHead] = {}
    for pairs in per_game:
        for pair, r in pairs.items():
            was = summed.get(pair, HeadToHead(0, 0, 0, 0.0))
            summed[pair] = HeadToHead(was.wins + r.wins, was.draws + r.draws, was.losses + r.losses,
                                      was.effective + r.effective)
    return summed


def _head_to_head_fields(pairs: dict[tuple[str, str], HeadToHead]) -> dict[str, dict[str, dict[str, Any]]]:
    fields: dict[str, dict[str, dict[str, Any]]] = {}
    for (bot, other), record in sorted(pairs.items()):
        low, high = record.interval
        fields.setdefault(bot, {})[other] = {
            "above": record.wins, "below": record.losses, "equal": record.draws, "meetings": record.shared,
            "score": record.score, "low": low, "high": high}
    return fields
