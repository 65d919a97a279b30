"""`arena leaderboard FOLDER --diff OLD`: what changed in the standings, for a pull-request comment."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.compare.diff import diff_boards, render_diff
from tournament_files import write_tournament


def standing(rank: int, bot: str, score: float, games: int) -> dict:
    return {"rank": rank, "bot": bot, "mu": score + 5, "sigma": 5 / 3, "score": score, "games": games}


def board(name: str, games: int, sections: dict) -> dict:
    return {"tournament": name, "games": games,
            "sections": [{"game": game, "games": games, "standings": rows} for game, rows in sections.items()]}


OLD = board("cup", 30, {
    "modern-art": [standing(1, "appraiser", 20.0, 20), standing(2, "random", 10.0, 20), standing(3, "old", 5.0, 20)],
    "silk-road": [standing(1, "trader", 22.0, 10), standing(2, "random", 11.0, 10)],
})
NEW = board("cup", 45, {
    "modern-art": [standing(1, "random", 21.5, 30), standing(2, "appraiser", 19.0, 30), standing(3, "mcts", 2.0, 10)],
})


def test_diff_gives_each_bots_move_and_changes_and_names_the_gone():
    diff = diff_boards(OLD, NEW)
    section = diff["sections"][0]
    rows = {row["bot"]: row for row in section["rows"]}
    assert (rows["random"]["old_rank"], rows["random"]["rank"]) == (2, 1)
    assert rows["random"]["value"] - rows["random"]["old_value"] == pytest.approx(11.5)  # the rating (mu)
    assert rows["mcts"]["old_rank"] is None
    assert section["gone"] == ["old"] and diff["dropped"] == ["silk-road"]
    assert (diff["games"], diff["old_games"]) == (45, 30)


def test_the_markdown_is_ready_for_a_pull_request_comment():
    text = render_diff(diff_boards(OLD, NEW), "markdown")
    lines = text.splitlines()
    assert lines[0] == "### Leaderboard changes: cup, 45 games (before: cup, 30 games)"
    assert "#### modern-art" in lines
    assert any(line.startswith("| 1") and "up 1" in line and "random" in line and "+11.50" in line for line in lines)
    assert any("down 1" in line and "appraiser" in line and "-1.00" in line for line in lines)
    assert any("| new" in line and "mcts" in line for line in lines)
    assert "- 2 bots changed rank" in lines and "- old is gone from this section" in lines
    assert "- section silk-road is gone" in lines


def test_an_unchanged_leaderboard_says_so():
    text = render_diff(diff_boards(OLD, OLD), "table")
    assert text.count("no bot changed rank") == 2 and "up " not in text and "down " not in text


def write_cup(folder, bots: list[str]) -> str:
    """``folder/cup.toml``: a modern-art tournament entering ``bots``."""
    return write_tournament(folder, bots, "modern-art:3", name="cup", seed=2, deals=None)


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_diff_against_an_earlier_run_as_a_folder_or_its_leaderboard_json(isolated):
    first = write_cup(isolated, ["random", "appraiser"])
    assert run("run", first, "-j", "2", "--sandbox", "none").exit_code == 0
    shutil.copytree(isolated / "results" / "cup", isolated / "before")
    second = write_cup(isolated, ["random", "appraiser", "r2=py:arena_bots.random_bot:RandomBot"])
    assert run("run", second, "-j", "2", "--sandbox", "none", "--fresh").exit_code == 0

    from_json = run("leaderboard", "results/cup", "--diff", "before/leaderboard.json", "--format", "markdown")
    from_folder = run("leaderboard", "results/cup", "--diff", "before", "--format", "markdown")
    assert from_json.exit_code == 0 and from_json.output == from_folder.output
    assert "| new" in from_json.output and "r2" in from_json.output
    data = json.loads(run("leaderboard", "results/cup", "--diff", "before", "--format", "json").output)
    assert [section["game"] for section in data["sections"]] == ["modern-art", "overall"]
    only = json.loads(run("leaderboard", "results/cup", "--diff", "before", "-f", "json", "-g", "modern-art").output)
    assert [section["game"] for section in only["sections"]] == ["modern-art"]


@pytest.mark.parametrize("old, form, message", [
    ("nowhere", "markdown", "nowhere: no such folder or file"),
    ("empty", "markdown", "neither results.sqlite nor leaderboard.json"),
    ("not-a-board.json", "markdown", "not a leaderboard"),
    ("results/cup", "csv", "--diff prints table, markdown, json, not csv"),
])
def test_a_wrong_old_leaderboard_is_one_line_and_exit_status_2(isolated, old, form, message):
    assert run("run", write_cup(isolated, ["random", "appraiser"]), "--sandbox", "none",
               "-j", "1").exit_code == 0
    (isolated / "empty").mkdir()
    (isolated / "not-a-board.json").write_text('{"games": 3}')
    result = CliRunner().invoke(cli, ["leaderboard", "results/cup", "--diff", old, "--format", form])
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
