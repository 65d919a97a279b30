"""Leaderboards of stored results: standings and head-to-head tables, in every output format.

One section per game of the tournament and an overall one (the rule in
:mod:`arena.tournament.ratings`). Standings columns: rank, bot, mu, sigma,
score (``mu - 3 sigma``, the ranking key), games (seats played: a bot holding
two seats of one game counts twice), first places (shared ones included),
mean rank, mean money, faults. The head-to-head table says, for each pair of
bots, how often the row's bot finished above the column's bot among the times
they sat at the same table (per pair of seats; ties count for neither).
Bots left out of a game because they do not play it are noted under it.

Formats: ``table`` (plain text), ``markdown``, ``html`` (tabulate), ``csv``
(the standings of every section, one row per bot and section) and ``json``
(everything, with head-to-head counts and the rating environment).
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
from itertools import groupby
from operator import itemgetter
from typing import Any

from tabulate import tabulate

from arena.errors import StoreError
from arena.tournament.ratings import ENVIRONMENT, OVERALL_RULE, Rating, combine, rate_games

FORMATS = ("table", "markdown", "csv", "json", "html")
OVERALL = "overall"
STANDING_KEYS = ("rank", "bot", "mu", "sigma", "score", "games", "firsts", "mean_rank", "mean_money", "faults")
STANDING_HEADERS = ("rank", "bot", "mu", "sigma", "score", "games", "firsts", "mean rank", "mean money", "faults")
SCORE_NOTE = "score = mu - 3 sigma (TrueSkill, conservative); bots are ranked by it"
HEAD_TO_HEAD_NOTE = ("head-to-head: how often the row's bot finished above the column's bot "
                     "when they sat at the same table (ties count for neither)")
STANDING_ALIGN = ("right", "left", *["right"] * 8)
FILES = {"markdown": "leaderboard.md", "csv": "leaderboard.csv", "json": "leaderboard.json"}


def build_leaderboard(store: Any) -> dict:
    """Every section's standings and head-to-head figures from ``store``, as plain data (the JSON format).

    The overall section adds up the games' figures rather than asking the store again.
    """
    header = store.header()
    plan = header["plan"]
    sections = []
    per_game = []
    all_totals: dict[str, list[int]] = {}
    all_meetings: dict[tuple[str, str], list[int]] = {}
    for game in plan["games"]:
        name = game["name"]
        ratings, totals, meetings = game_figures(store, name)
        per_game.append(ratings)
        _add_into(all_totals, totals)
        _add_into(all_meetings, meetings)
        notes = [f"{bot} is left out: it does not play {name}" for bot in game["left_out"]]
        sections.append(_section(name, game["entries"], ratings, totals, meetings, store.count(name),
                                 game["games"], notes))
    playing = {bot: [g["name"] for g in plan["games"] if bot in g["entries"]] for bot in plan["bots"]}
    notes = [f"{bot} is rated on {', '.join(games)} only" for bot, games in playing.items()
             if len(games) < len(plan["games"])]
    stored = store.count()
    sections.append(_section(OVERALL, plan["bots"], combine(per_game), all_totals, all_meetings, stored,
                             header["total"], notes))
    return {
        "tournament": header["name"],
        "games": stored,
        "scheduled": header["total"],
        "rating": {**ENVIRONMENT, "overall_rule": OVERALL_RULE, "score": "mu - 3 * sigma"},
        "sections": sections,
    }


def game_figures(store: Any, game: str) -> tuple[dict[str, Rating], dict[str, list[int]], dict[tuple, list[int]]]:
    """One game's ratings, per-bot totals and head-to-head counts, cached in the store per number of games.

    Totals per bot: seats, first places, rank sum, money sum, faults. Head-to-head per
    ordered pair of bots at one table: above, below, equal (per pair of seats).
    """
    cached = store.cached_figures(game, store.count(game))
    if cached is None:
        rows = store.seat_rows(game)
        ratings = rate_games([(seq, bot, rank) for seq, bot, rank, _, _ in rows])
        totals, meetings = _tally(rows)
        cached = {"ratings": {bot: [r.mu, r.sigma] for bot, r in ratings.items()}, "totals": totals,
                  "meetings": [[*pair, *counts] for pair, counts in meetings.items()]}
        store.cache_figures(game, len({row[0] for row in rows}), cached)
    return ({bot: Rating(mu, sigma) for bot, (mu, sigma) in cached["ratings"].items()}, cached["totals"],
            {(bot, other): counts for bot, other, *counts in cached["meetings"]})


def _tally(rows: list[tuple]) -> tuple[dict[str, list[int]], dict[tuple[str, str], list[int]]]:
    """Per-bot totals and per-pair head-to-head counts of ``(seq, bot, rank, money, faults)`` rows."""
    totals: dict[str, list[int]] = {}
    meetings: dict[tuple[str, str], list[int]] = {}
    for _, group in groupby(rows, key=itemgetter(0)):
        seats = []
        for _, bot, rank, money, faults in group:
            figures = totals.get(bot)
            if figures is None:
                figures = totals[bot] = [0, 0, 0, 0, 0]
            figures[0] += 1
            figures[1] += rank == 1
            figures[2] += rank
            figures[3] += money
            figures[4] += faults
            seats.append((bot, rank))
        for bot, rank in seats:
            for other, other_rank in seats:
                if other != bot:
                    counts = meetings.get((bot, other))
                    if counts is None:
                        counts = meetings[(bot, other)] = [0, 0, 0]
                    counts[0 if rank < other_rank else 1 if rank > other_rank else 2] += 1
    return totals, meetings


def _add_into(sums: dict, figures: dict) -> None:
    for key, values in figures.items():
        into = sums.setdefault(key, [0] * len(values))
        for index, value in enumerate(values):
            into[index] += value


def _section(name: str, bots: list[str], ratings: dict[str, Rating], totals: dict[str, list[int]],
             meetings: dict[tuple[str, str], list[int]], stored: int, scheduled: int, notes: list[str]) -> dict:
    """One section: ``totals`` maps a bot to (seats, firsts, rank sum, money sum, faults),
    ``meetings`` a pair of bots to (above, below, equal)."""
    start = Rating(ENVIRONMENT["mu"], ENVIRONMENT["sigma"])
    rows = []
    for bot in bots:
        rating = ratings.get(bot, start)
        seats, firsts, rank_sum, money_sum, faults = totals.get(bot, (0, 0, 0, 0, 0))
        rows.append({
            "bot": bot, "mu": rating.mu, "sigma": rating.sigma, "score": rating.conservative,
            "games": seats, "firsts": firsts,
            "mean_rank": rank_sum / seats if seats else None,
            "mean_money": money_sum / seats if seats else None,
            "faults": faults,
        })
    rows.sort(key=lambda row: (-row["score"], -row["mu"], row["bot"]))
    standings = [{"rank": rank, **row} for rank, row in enumerate(rows, 1)]
    pairs: dict[str, dict[str, dict]] = {}
    for (bot, other), (above, below, equal) in sorted(meetings.items()):
        pairs.setdefault(bot, {})[other] = {"above": above, "below": below, "equal": equal,
                                            "meetings": above + below + equal}
    return {"game": name, "games": stored, "scheduled": scheduled, "standings": standings,
            "notes": notes, "head_to_head": pairs}


def select(board: dict, game: str | None) -> dict:
    """``board`` with only the section of ``game`` (a game of the tournament, or ``overall``)."""
    if game is None:
        return board
    names = [section["game"] for section in board["sections"]]
    if game not in names:
        raise StoreError(f"tournament {board['tournament']} has no game {game!r} (choose from: {', '.join(names)})")
    return {**board, "sections": [section for section in board["sections"] if section["game"] == game]}


# -- rendering --


def render(board: dict, form: str) -> str:
    """The leaderboard as text in ``form`` (one of :data:`FORMATS`)."""
    if form == "json":
        return json.dumps(board, indent=2) + "\n"
    if form == "csv":
        return _csv(board)
    if form == "html":
        return _html(board)
    return _text(board, "github" if form == "markdown" else "simple", markdown=(form == "markdown"))


def _number(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _standing_cells(row: dict) -> list:
    return [row["rank"], row["bot"], _number(row["mu"], 2), _number(row["sigma"], 2), _number(row["score"], 2),
            row["games"], row["firsts"], _number(row["mean_rank"], 2), _number(row["mean_money"], 1),
            row["faults"]]


def _standings_table(section: dict, tablefmt: str) -> str:
    return tabulate([_standing_cells(row) for row in section["standings"]], headers=STANDING_HEADERS,
                    tablefmt=tablefmt, disable_numparse=True, colalign=STANDING_ALIGN)


def _head_to_head_table(section: dict, tablefmt: str) -> str:
    headers, rows = _head_to_head_cells(section)
    return tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                    colalign=("left", *["right"] * (len(headers) - 1)))


def _head_to_head_cells(section: dict) -> tuple[list[str], list[list[str]]]:
    bots = [row["bot"] for row in section["standings"]]
    pairs = section["head_to_head"]
    rows = []
    for bot in bots:
        cells = [bot]
        for other in bots:
            pair = pairs.get(bot, {}).get(other)
            cells.append(f"{100 * pair['above'] / pair['meetings']:.0f}%" if pair and pair["meetings"] else "-")
        rows.append(cells)
    return ["bot", *bots], rows


def _title(board: dict) -> str:
    return f"Tournament {board['tournament']}: {board['games']} of {board['scheduled']} games played"


def _section_title(section: dict) -> str:
    what = "all games" if section["game"] == OVERALL else section["game"]
    return f"{what} ({section['games']} of {section['scheduled']} games)"


def _text(board: dict, tablefmt: str, markdown: bool) -> str:
    lines = [("# " if markdown else "") + _title(board), ""]
    for section in board["sections"]:
        lines += [("## " if markdown else "== ") + _section_title(section), ""]
        lines.append(_standings_table(section, tablefmt))
        lines.append("")
        if section["game"] == OVERALL:
            lines.append(("- " if markdown else "") + OVERALL_RULE)
        lines += [("- " if markdown else "") + note for note in section["notes"]]
        lines.append(("- " if markdown else "") + SCORE_NOTE)
        lines.append("")
        lines.append(("*" if markdown else "") + HEAD_TO_HEAD_NOTE + ("*" if markdown else ""))
        lines.append("")
        lines.append(_head_to_head_table(section, tablefmt))
        lines.append("")
    return "\n".join(lines)


def _csv(board: dict) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["section", *STANDING_KEYS])
    for section in board["sections"]:
        for row in section["standings"]:
            writer.writerow([section["game"], *(_csv_value(row[key]) for key in STANDING_KEYS)])
    return out.getvalue()


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    return round(value, 4) if isinstance(value, float) else value


def _html(board: dict) -> str:
    parts = [
        "<!doctype html>",
        '<html><head><meta charset="utf-8">',
        f"<title>{html.escape(_title(board))}</title>",
        "<style>body{font-family:sans-serif}table{border-collapse:collapse;margin-bottom:1em}"
        "td,th{border:1px solid #ccc;padding:2px 8px}</style>",
        "</head><body>",
        f"<h1>{html.escape(_title(board))}</h1>",
    ]
    for section in board["sections"]:
        parts.append(f"<h2>{html.escape(_section_title(section))}</h2>")
        parts.append(_standings_table(section, "html"))
        notes = ([OVERALL_RULE] if section["game"] == OVERALL else []) + section["notes"] + [SCORE_NOTE]
        parts.append("<ul>" + "".join(f"<li>{html.escape(note)}</li>" for note in notes) + "</ul>")
        parts.append(f"<p>{html.escape(HEAD_TO_HEAD_NOTE)}</p>")
        parts.append(_head_to_head_table(section, "html"))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_files(folder: str, board: dict) -> list[str]:
    """Write ``leaderboard.md``, ``.csv`` and ``.json`` into ``folder``; their paths."""
    paths = []
    for form, name in FILES.items():
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(render(board, form))
        paths.append(path)
    return paths
