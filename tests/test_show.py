"""`arena show` prints a stored game's account (as `arena play` does) or record; `arena export` filters; the seed."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.account import record_account
from arena.cli import cli
from tournament_files import write_tournament


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """A tournament's results: three modern-art games (random, appraiser, random), then two silk-road ones."""
    where = tmp_path_factory.mktemp("results")
    path = write_tournament(where, ["random", "appraiser", "trader"], "modern-art:3,silk-road:2", deals=1,
                            name="cup", seed=5)
    done = run("run", path, "--results", str(where), "--sandbox", "none", "-j", "1")
    assert done.exit_code == 0, done.output
    return str(where / "cup")


@pytest.mark.parametrize("game, bots", [("modern-art", ["random", "appraiser", "random"]),
                                        ("silk-road", ["trader", "random"])])
def test_a_records_account_is_what_arena_play_printed(plugins, game, bots):
    args = ["play", game, *(item for bot in bots for item in ("-b", bot)), "--seed", "6", "--sandbox", "none"]
    record = json.loads(run(*args, "--json").stdout)
    assert "\n".join(record_account(record, plugins)) + "\n" == run(*args).stdout


def stored(folder: str) -> list[dict]:
    """The stored records, in schedule order."""
    return [json.loads(line) for line in run("export", folder).stdout.splitlines()]


def test_show_prints_the_stored_games_account(folder, plugins):
    last = stored(folder)[-1]
    record = json.loads(run("show", folder, last["id"], "--json").stdout)
    assert record == last and record["game"] == "silk-road"
    shown = run("show", folder, last["id"])
    assert shown.exit_code == 0, shown.output
    assert shown.stdout == "\n".join(record_account(record, plugins)) + "\n"
    assert shown.stdout.startswith("Setup: 2 players")
    assert "\nTurn 1" in shown.stdout and "Final result:" in shown.stdout


def test_show_an_unknown_id_is_one_line_and_exit_2(folder):
    shown = run("show", folder, "nope")
    assert shown.exit_code == 2
    assert shown.stderr.strip().splitlines() == [
        f"Error: no game 'nope' in {folder} (ids look like {stored(folder)[0]['id']}); "
        f"`arena export {folder}` lists them all"]


@pytest.mark.parametrize("filters, expected", [
    ([], [0, 1, 2, 3, 4]),
    (["--game", "silk-road"], [3, 4]),
    (["--bot", "appraiser"], [0, 1, 2]),
    (["--bot", "trader", "--id", 0, "--id", 4], [4]),  # numbers: the ids of those stored games
    (["--game", "modern-art", "--bot", "trader"], []),
])
def test_export_filters_by_bot_game_and_id(folder, filters, expected):
    ids = [record["id"] for record in stored(folder)]
    assert len(ids) == 5 and [record["game"] for record in stored(folder)] == ["modern-art"] * 3 + ["silk-road"] * 2
    args = [ids[item] if isinstance(item, int) else item for item in filters]
    out = run("export", folder, *args).stdout
    assert [json.loads(line)["id"] for line in out.splitlines()] == [ids[number] for number in expected]


def test_play_without_a_seed_says_which_seed_it_drew():
    drawn = run("play", "silk-road", "-b", "random", "-b", "trader", "--sandbox", "none", "--json")
    seed = json.loads(drawn.stdout)["seed"]
    assert drawn.stderr == f"arena: seed {seed} (add --seed {seed} to play this game again)\n"
    again = run("play", "silk-road", "-b", "random", "-b", "trader", "--sandbox", "none", "--json", "--seed", str(seed))
    assert json.loads(again.stdout)["moves"] == json.loads(drawn.stdout)["moves"]
