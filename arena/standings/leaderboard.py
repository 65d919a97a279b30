"""Leaderboards of stored results: standings and head-to-head tables, in every output format.

One section per game of the tournament and an overall one, built as plain
data by :mod:`arena.standings.board` (the JSON form); this module reads the
store, rates each game with the tournament's rater and renders the sections.
Standings columns: rank, ranks (the bootstrap range), bot, rating with its
95% interval, vs next (how often the bot stays above the next one; '?' when
the order is undecided), games (not seats), first places, mean placing, mean
money, faults; plain-words lines under each table; then the head-to-head
table: wins-draws-losses and the score with its interval, per pair.
Bots left out of a game because they do not play it are noted under it.
docs/standings.md explains every column with a worked example.

Formats: ``table`` (plain text), ``markdown``, ``html`` (tabulate), ``csv``
(the standings of every section, one row per bot and section) and ``json``
(everything, with the rater and its environment).
"""

from __future__ import annotations

import csv
import html
import io
import json
import os
from typing import Any, Mapping

from tabulate import tabulate

from arena.errors import StoreError
from arena.runs.store import Store
from arena.standings.board import HEAD_TO_HEAD_EXPLANATION, OVERALL, GameInput, game_section, overall_section
from arena.standings.figures import game_figures
from arena.standings.raters import DEFAULT_RATER, describe
from arena.standings.seats import GameSeats, from_rows
from arena.standings.ratings import OVERALL_RULE, cached_ratings

STANDING_KEYS = ("rank", "bot", "rank_low", "rank_high", "rating", "rating_low", "rating_high", "mu", "sigma",
                 "vs_next", "decided", "games", "seats", "firsts", "mean_rank", "mean_money", "faults",
                 "mean_game_rank")
STANDING_HEADERS = ("rank", "ranks", "bot", "rating", "95% interval", "vs next", "games", "firsts",
                    "mean placing", "mean money", "faults")
OVERALL_HEADERS = ("rank", "ranks", "bot", "mean game rank", "game ranks", "vs next", "games", "firsts",
                   "mean placing", "mean money", "faults")
HEAD_TO_HEAD_NOTE = HEAD_TO_HEAD_EXPLANATION
#: the text, markdown and html head-to-head tables show the pairs among this many top bots (JSON: every pair)
HEAD_TO_HEAD_BOTS = 16
STANDING_ALIGN = ("right", "right", "left", *["right"] * 8)
FILES = {"markdown": "leaderboard.md", "csv": "leaderboard.csv", "json": "leaderboard.json"}


def build_leaderboard(store: Store, rater: str | None = None, seats: Mapping[str, GameSeats] | None = None
                      ) -> dict[str, Any]:
    """Every section's standings and head-to-head figures from ``store``, as plain data (the JSON form).

    ``rater`` overrides the tournament's ``rating`` key (default ``trueskill``). ``seats`` holds the seats of
    games the caller already has, in schedule order (a run's, kept as its store writer stored them:
    :attr:`arena.runs.loop.RunOutcome.seats`): such a game's seats are not read back from the store, unless the
    store's count of its current games differs.
    """
    seats = seats or {}
    header = store.header()
    plan = header["plan"]
    if "games" not in plan:  # the store was made, then its run was killed before the schedule was kept
        raise StoreError(f"{os.path.dirname(store.path) or '.'}: no schedule stored yet (its run was stopped "
                         f"before the first game); run the {header['kind']} again")
    info = describe(rater or header["definition"].get("rating", DEFAULT_RATER))
    disqualified: dict[str, str] = store.meta("disqualified") or {}  # entries that could not start (arena run)
    not_entered = [f"{bot} is not entered: disqualified before play, it cannot play: {why}"
                   for bot, why in disqualified.items()]
    inputs, sections = [], []
    # with one game, every current game is of it: counted from the index on ``current`` alone, not a scan of
    # every games row for its game's name (14 ms at 20,000 games, after the last game of a run)
    single = len(plan["games"]) == 1
    for game in plan["games"]:
        name = game["name"]
        kept = seats.get(name)
        game_seats = kept if kept is not None and kept.games == store.count(None if single else name) else \
            from_rows(store.seats_with_blocks(name))
        data = GameInput(name, list(game["entries"]), cached_ratings(store, name, info.name, game_seats),
                         game_figures(game_seats, name), game_seats.games, game["games"],
                         [f"{bot} is left out: it does not play {name}" for bot in game["left_out"]] + not_entered)
        inputs.append(data)
        sections.append(game_section(data, info))
    playing = {bot: [g["name"] for g in plan["games"] if bot in g["entries"]] for bot in plan["bots"]}
    notes = [f"{bot} is ranked on {', '.join(games)} only" for bot, games in playing.items()
             if len(games) < len(plan["games"])]
    overall = overall_section(inputs, sections, list(plan["bots"]), sum(d.stored for d in inputs), header["total"],
                              notes + not_entered)
    return {
        "tournament": header["name"],
        "games": overall["games"],
        "scheduled": header["total"],
        "not_entered": [{"bot": bot, "reason": why} for bot, why in disqualified.items()],
        "rating": {"rater": info.name, "title": info.title, **info.environment, "overall_rule": OVERALL_RULE,
                   "interval": "mu +- 1.96 sigma", "order": "rating (mu), highest first"},
        "sections": [*sections, overall],
    }


def select(board: dict[str, Any], game: str | None) -> dict[str, Any]:
    """``board`` with only the section of ``game`` (a game of the tournament, or ``overall``).

    The result names the chosen section under ``"selected"``, so a diff against
    a whole leaderboard compares that section only.
    """
    if game is None:
        return board
    names = [section["game"] for section in board["sections"]]
    if game not in names:
        raise StoreError(f"tournament {board['tournament']} has no game {game!r} (choose from: {', '.join(names)})")
    return {**board, "selected": game, "sections": [section for section in board["sections"]
                                                    if section["game"] == game]}


# -- rendering --


def render(board: dict[str, Any], form: str) -> str:
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


def _ranks(row: dict[str, Any]) -> str:
    low, high = row["rank_low"], row["rank_high"]
    return str(low) if low == high else f"{low}-{high}"


def _vs_next(row: dict[str, Any]) -> str:
    if row["vs_next"] is None:
        return ""
    return f"{100 * row['vs_next']:.0f}%" + ("" if row["decided"] else "?")


def _standing_cells(row: dict[str, Any], overall: bool) -> list[Any]:
    if overall:
        rating = [_number(row["mean_game_rank"], 2),
                  ", ".join(f"{game} {rank}" for game, rank in row["game_ranks"].items())]
    else:
        rating = [_number(row["rating"], 2), f"{row['rating_low']:.1f} to {row['rating_high']:.1f}"]
    return [row["rank"], _ranks(row), row["bot"], *rating, _vs_next(row), row["games"], row["firsts"],
            _number(row["mean_rank"], 2), _number(row["mean_money"], 1), row["faults"]]


def standing_rows(section: dict[str, Any]) -> tuple[tuple[str, ...], list[list[Any]]]:
    """A section's standings as headers and rows of cells, as every form shows them (the HTML report too)."""
    overall = section["game"] == OVERALL
    return (OVERALL_HEADERS if overall else STANDING_HEADERS,
            [_standing_cells(row, overall) for row in section["standings"]])


def section_notes(board: dict[str, Any], section: dict[str, Any]) -> list[str]:
    """The lines under a section's standings: its notes, then what the figures are in plain words."""
    return _notes(board, section)


def _standings_table(section: dict[str, Any], tablefmt: str) -> str:
    headers, rows = standing_rows(section)
    return tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=True, colalign=STANDING_ALIGN)


def _head_to_head_table(section: dict[str, Any], tablefmt: str) -> str:
    headers, rows = _head_to_head_cells(section)
    return tabulate(rows, headers=headers, tablefmt=tablefmt, disable_numparse=True,
                    colalign=("left", *["right"] * (len(headers) - 1)))


def _head_to_head_cells(section: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """Per pair: ``W-D-L score% (low-high%)``, ``-`` where the bots never met."""
    bots = [row["bot"] for row in section["standings"]][:HEAD_TO_HEAD_BOTS]
    pairs = section["head_to_head"]
    rows = []
    for bot in bots:
        cells = [bot]
        for other in bots:
            pair = pairs.get(bot, {}).get(other)
            cells.append(f"{pair['above']}-{pair['equal']}-{pair['below']} {100 * pair['score']:.0f}% "
                         f"({100 * pair['low']:.0f}-{100 * pair['high']:.0f})"
                         if pair and pair["meetings"] else "-")
        rows.append(cells)
    return ["bot", *bots], rows


def _head_to_head_note(section: dict[str, Any]) -> str:
    shown = len(section["standings"])
    if shown <= HEAD_TO_HEAD_BOTS:
        return HEAD_TO_HEAD_NOTE
    return (f"{HEAD_TO_HEAD_NOTE}; the top {HEAD_TO_HEAD_BOTS} of {shown} bots shown here, "
            f"every pair in the JSON form (--format json)")


def _notes(board: dict[str, Any], section: dict[str, Any]) -> list[str]:
    """The lines under a section's standings: its notes, then what the figures are in plain words."""
    rater = [f"rated with {board['rating']['title']}"] if section["game"] != OVERALL else []
    notes: list[str] = section["notes"] + rater + section["explanation"]
    return notes


def _title(board: dict[str, Any]) -> str:
    return f"Tournament {board['tournament']}: {board['games']} of {board['scheduled']} games played"


def _section_title(section: dict[str, Any]) -> str:
    what = "all games" if section["game"] == OVERALL else section["game"]
    return f"{what} ({section['games']} of {section['scheduled']} games)"


def _text(board: dict[str, Any], tablefmt: str, markdown: bool) -> str:
    lines = [("# " if markdown else "") + _title(board), ""]
    for section in board["sections"]:
        lines += [("## " if markdown else "== ") + _section_title(section), ""]
        lines.append(_standings_table(section, tablefmt))
        lines.append("")
        lines += [("- " if markdown else "") + note for note in _notes(board, section)]
        lines.append("")
        lines.append(("*" if markdown else "") + _head_to_head_note(section) + ("*" if markdown else ""))
        lines.append("")
        lines.append(_head_to_head_table(section, tablefmt))
        lines.append("")
    return "\n".join(lines)


def _csv(board: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["section", *STANDING_KEYS])
    for section in board["sections"]:
        for row in section["standings"]:
            writer.writerow([section["game"], *(_csv_value(row.get(key)) for key in STANDING_KEYS)])
    return out.getvalue()


def _csv_value(value: Any) -> Any:
    """A cell as spreadsheets read and write it: empty for none, ``TRUE``/``FALSE``, numbers to 4 places."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return round(value, 4) if isinstance(value, float) else value


def _html(board: dict[str, Any]) -> str:
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
        notes = _notes(board, section)
        parts.append("<ul>" + "".join(f"<li>{html.escape(note)}</li>" for note in notes) + "</ul>")
        parts.append(f"<p>{html.escape(_head_to_head_note(section))}</p>")
        parts.append(_head_to_head_table(section, "html"))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def write_files(folder: str, board: dict[str, Any]) -> list[str]:
    """Write ``leaderboard.md``, ``.csv`` and ``.json`` into ``folder``; their paths."""
    paths = []
    for form, name in FILES.items():
        path = os.path.join(folder, name)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(render(board, form))
        paths.append(path)
    return paths
