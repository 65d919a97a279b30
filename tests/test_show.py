"""`arena show` prints a stored game's account (as `arena play` does) or record; `arena export` filters."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.tournament.store import create_or_resume, finished_game

GAMES = [("modern-art", ["random", "appraiser", "random"], 5), ("silk-road", ["random", "trader"], 6),
         ("silk-road", ["trader", "random"], 6)]


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def folder(tmp_path):
    """A store holding three games played with `arena play` (the same games `arena play --seed` prints)."""
    where = tmp_path / "results" / "cup"
    store = create_or_resume(str(where), {"name": "cup"}, "digest", {"games": []}, len(GAMES), "cup.toml")
    for order, (game, bots, seed) in enumerate(GAMES):
        args = ["play", game, *(item for bot in bots for item in ("-b", bot)), "--seed", str(seed),
                "--sandbox", "none", "--json"]
        record = json.loads(run(*args).stdout)
        record["id"] = f"cup/{game}/t1/d1/r{order + 1}"
        store.add(finished_game(order, (record["id"], game, 1, 1, order + 1), record))
    store.close()
    return str(where)


def test_show_prints_the_account_arena_play_printed(folder):
    played = run("play", "silk-road", "-b", "random", "-b", "trader", "--seed", "6", "--sandbox", "none")
    shown = run("show", folder, "cup/silk-road/t1/d1/r2")
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == played.stdout
    assert "Final result:" in shown.output and "Turn 1" in shown.output
    assert run("show", folder, "1").stdout == played.stdout  # by its number in the schedule


def test_show_json_prints_the_record(folder):
    shown = run("show", folder, "cup/modern-art/t1/d1/r1", "--json")
    record = json.loads(shown.stdout)
    assert record["id"] == "cup/modern-art/t1/d1/r1" and record["seed"] == 5


def test_show_an_unknown_id_is_one_line_and_exit_2(folder):
    shown = run("show", folder, "nope")
    assert shown.exit_code == 2
    assert shown.stderr.strip().splitlines() == [
        f"Error: no game 'nope' in {folder} (ids look like cup/modern-art/t1/d1/r1); "
        f"`arena export {folder}` lists them all"]


@pytest.mark.parametrize("filters, expected", [
    ([], [1, 2, 3]),
    (["--game", "silk-road"], [2, 3]),
    (["--bot", "appraiser"], [1]),
    (["--bot", "appraiser", "--bot", "trader"], [1, 2, 3]),
    (["--bot", "trader", "--id", "cup/modern-art/t1/d1/r1", "--id", "cup/silk-road/t1/d1/r3"], [3]),
    (["--game", "modern-art", "--bot", "trader"], []),
])
def test_export_filters_by_bot_game_and_id(folder, filters, expected):
    out = run("export", folder, *filters).stdout
    assert [json.loads(line)["id"].rsplit("r", 1)[1] for line in out.splitlines()] == [str(n) for n in expected]


def test_play_without_a_seed_says_which_seed_it_drew():
    drawn = run("play", "silk-road", "-b", "random", "-b", "trader", "--sandbox", "none", "--json")
    seed = json.loads(drawn.stdout)["seed"]
    assert drawn.stderr == f"arena: seed {seed} (add --seed {seed} to play this game again)\n"
    again = run("play", "silk-road", "-b", "random", "-b", "trader", "--sandbox", "none", "--json", "--seed", str(seed))
    assert json.loads(again.stdout)["moves"] == json.loads(drawn.stdout)["moves"]
