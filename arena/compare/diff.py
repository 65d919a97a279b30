"""What changed in the standings between two leaderboards: ``arena leaderboard FOLDER --diff OLD``.

Made for a pull-request comment or a CI step summary: per section (each game
and overall), every bot's rank now and its move since the old leaderboard,
its rank range, its rating (in the overall section: its mean game rank) with
the change, and its games; bots new to a section and bots gone from it are
named. The old leaderboard is a results folder (its store is read) or a
``leaderboard.json`` that a run wrote, so CI may keep just that file; one
written before ratings had intervals (mu, sigma, score) still compares by mu.

With ``-g G`` the new leaderboard holds one section (it says which under
``"selected"``): only that section of the old one is compared, and no other
section is reported gone.
"""

from __future__ import annotations

import json
import os
from typing import Any, TypeGuard

from tabulate import tabulate

from arena.errors import StoreError
from arena.standings.leaderboard import build_leaderboard
from arena.runs.store import STORE_FILE, open_store

DIFF_FORMATS = ("table", "markdown", "json")
LEADERBOARD_JSON = "leaderboard.json"
HEADERS = ("rank", "move", "ranks", "bot", "rating", "change", "games", "new games")
OVERALL_HEADERS = ("rank", "move", "ranks", "bot", "mean game rank", "change", "games", "new games")
OVERALL = "overall"


def load_board(source: str) -> dict[str, Any]:
    """The leaderboard (JSON form) of a results folder, or of a ``leaderboard.json`` file."""
    if os.path.isdir(source):
        if os.path.isfile(os.path.join(source, STORE_FILE)):
            store = open_store(source)
            try:
                return build_leaderboard(store)
            finally:
                store.close()
        path = os.path.join(source, LEADERBOARD_JSON)
        if not os.path.isfile(path):
            raise StoreError(f"{source}: neither {STORE_FILE} nor {LEADERBOARD_JSON} in it "
                             "(expected a tournament's results folder, e.g. results/demo)")
    elif os.path.isfile(source):
        path = source
    else:
        raise StoreError(f"{source}: no such folder or file (expected a tournament's results folder, "
                         f"e.g. results/demo, or its {LEADERBOARD_JSON})")
    try:
        with open(path, encoding="utf-8") as handle:
            board = json.load(handle)
    except (OSError, ValueError) as error:
        raise StoreError(f"{path}: cannot read it as a leaderboard ({error})") from None
    if not _is_board(board):
        raise StoreError(f"{path}: not a leaderboard (expected the JSON `arena leaderboard --format json` writes)")
    return board


def _is_board(board: Any) -> TypeGuard[dict[str, Any]]:
    """Whether ``board`` has every part a diff reads, of the right JSON type (a hand-edited file may not)."""
    def number(value: Any, kinds: tuple[type, ...] = (int, float)) -> bool:
        return isinstance(value, kinds) and not isinstance(value, bool)

    if not isinstance(board, dict) or not isinstance(board.get("sections"), list) or "tournament" not in board \
            or not number(board.get("games"), (int,)):
        return False
    for section in board["sections"]:
        if not isinstance(section, dict) or not isinstance(section.get("game"), str) \
                or not number(section.get("games"), (int,)) or not isinstance(section.get("standings", []), list):
            return False
        for row in section.get("standings", []):
            if not isinstance(row, dict) or not isinstance(row.get("bot"), str) or not number(row.get("rank"), (int,)) \
                    or not number(row.get("games"), (int,)):
                return False
            if any(row.get(key) is not None and not number(row[key]) for key in ("rating", "mu", "mean_game_rank",
                                                                                "rank_low", "rank_high")):
                return False
    return True


def _value(row: dict[str, Any], overall: bool) -> float | None:
    """What a section orders by: the rating (mu in older boards), or in the overall section the mean game rank."""
    value: float | None
    if overall and row.get("mean_game_rank") is not None:
        value = row["mean_game_rank"]
    else:
        value = row.get("rating", row.get("mu"))
    return value


def diff_boards(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Per section of ``new``: each bot's standing with its changes since ``old``, and the bots gone.

    When ``new`` is one selected section (``-g``), only that section of ``old`` counts.
    """
    old_sections = {section["game"]: section for section in old["sections"]}
    if new.get("selected") is not None:
        old_sections = {game: section for game, section in old_sections.items() if game == new["selected"]}
    sections = []
    for section in new["sections"]:
        overall = section["game"] == OVERALL
        before = {row["bot"]: row for row in old_sections.get(section["game"], {}).get("standings", [])}
        rows = []
        for row in section["standings"]:
            was = before.get(row["bot"])
            rows.append({
                "bot": row["bot"], "rank": row["rank"], "rank_low": row.get("rank_low", row["rank"]),
                "rank_high": row.get("rank_high", row["rank"]), "value": _value(row, overall),
                "games": row["games"], "old_rank": was and was["rank"],
                "old_value": was and _value(was, overall), "old_games": was and was["games"],
            })
        now = {row["bot"] for row in section["standings"]}
        sections.append({"game": section["game"], "games": section["games"],
                         "measure": "mean game rank" if overall else "rating",
                         "old_games": old_sections.get(section["game"], {}).get("games"),
                         "rows": rows, "gone": [bot for bot in before if bot not in now]})
    return {"tournament": new["tournament"], "old_tournament": old["tournament"],
            "games": new["games"], "old_games": old["games"], "sections": sections,
            "dropped": [game for game in old_sections if game not in {s["game"] for s in new["sections"]}]}


def _move(row: dict[str, Any]) -> str:
    if row["old_rank"] is None:
        return "new"
    step = row["old_rank"] - row["rank"]
    return "=" if step == 0 else f"up {step}" if step > 0 else f"down {-step}"


def _change(now: float | None, before: float | None) -> str:
    return "-" if now is None or before is None else f"{now - before:+.2f}"


def _cells(row: dict[str, Any]) -> list[Any]:
    low, high = row["rank_low"], row["rank_high"]
    return [row["rank"], _move(row), str(low) if low == high else f"{low}-{high}", row["bot"],
            "-" if row["value"] is None else f"{row['value']:.2f}", _change(row["value"], row["old_value"]),
            row["games"], row["games"] - (row["old_games"] or 0)]


def render_diff(diff: dict[str, Any], form: str) -> str:
    """The diff as ``table``, ``markdown`` or ``json`` text."""
    if form == "json":
        return json.dumps(diff, indent=2) + "\n"
    markdown = form == "markdown"
    tablefmt = "github" if markdown else "simple"
    lines = [("### " if markdown else "") + f"Leaderboard changes: {diff['tournament']}, {diff['games']} games "
             f"(before: {diff['old_tournament']}, {diff['old_games']} games)", ""]
    for section in diff["sections"]:
        lines += [("#### " if markdown else "== ") + section["game"], ""]
        headers = OVERALL_HEADERS if section["game"] == OVERALL else HEADERS
        lines.append(tabulate([_cells(row) for row in section["rows"]], headers=headers, tablefmt=tablefmt,
                              disable_numparse=True))
        lines.append("")
        moved = [row for row in section["rows"] if _move(row) not in ("=", "new")]
        notes = [f"{len(moved)} bots changed rank" if moved else "no bot changed rank"]
        notes += [f"{bot} is gone from this section" for bot in section["gone"]]
        lines += [("- " if markdown else "") + note for note in notes]
        lines.append("")
    lines += [("- " if markdown else "") + f"section {game} is gone" for game in diff["dropped"]]
    return "\n".join(lines).rstrip("\n") + "\n"
