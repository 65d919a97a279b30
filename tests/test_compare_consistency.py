"""Stored games are reused only for the same code and data, and a folder describes the games of its verdict.

Through the command line, as a bot author meets it: a bot whose strength is a data file beside its code
(``params.json``), compared with the appraiser; the Silk Road engine edited under ``arena run``.
"""

from __future__ import annotations

import json
import shutil
import textwrap
import uuid

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.report.comparison import llr_trace

#: a bot that plays the appraiser's move, or a random legal one at a share of its decisions its data sets
BOT = textwrap.dedent("""
    import json, pathlib, random
    from arena_bots import modern_art_random
    from arena_bots.modern_art_heuristic import ModernArtHeuristic

    class Bot:
        def start(self, info):
            params = json.loads((pathlib.Path(__file__).parent / "params.json").read_text())
            self.random_share = params["random_share"]
            self.appraiser = ModernArtHeuristic()
            self.appraiser.start(info)
            self.rng = random.Random(info["seed"])

        def decide(self, request):
            action = self.appraiser.decide(request)
            return modern_art_random.choose(request, self.rng) if self.rng.random() < self.random_share else action
""")

STRONG, WEAK = {"random_share": 0.0}, {"random_share": 1.0}


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def my_bot(isolated):
    """A package bot (``my_bot_<id>/``: code and params.json) in the current folder; returns a setter of its data."""
    package = isolated / f"my_bot_{uuid.uuid4().hex[:8]}"
    package.mkdir()
    (package / "__init__.py").write_text(BOT)

    def set_params(params: dict) -> str:
        (package / "params.json").write_text(json.dumps(params) + "\n")
        return package.name

    return set_params


def compare(module: str):
    result = run("compare", "modern-art", "--players", "4", "--sandbox", "none", "-j", "2", "--seed", "3",
                 "--candidate", f"mine=py:{module}:Bot", "--baseline", "appraiser", "--name", "gate", "--json")
    return result, json.loads(result.stdout)


def test_a_changed_data_file_is_played_again_and_the_verdict_follows_it(my_bot):
    weak, first = compare(my_bot(WEAK))
    assert weak.exit_code == 1 and first["verdict"] == "regression"
    strong, second = compare(my_bot(STRONG))
    # before: nothing played, the same version, the same REGRESSION
    assert second["versions"]["candidate"] != first["versions"]["candidate"]
    # every game of the candidate's table played again (the baseline's twins, unchanged, may be reused)
    assert second["played_now"] >= second["games"] // 2 >= second["reused"]
    assert strong.exit_code == 0 and second["verdict"] == "not-worse"
    assert "bot mine changed (code): its" in strong.stderr and "stored games are not reused" in strong.stderr


def current_records(folder: str) -> list[dict]:
    return [json.loads(line) for line in run("export", folder).stdout.splitlines()]


def test_after_going_back_to_v1_every_reader_of_the_folder_describes_v1s_games(my_bot):
    module = my_bot(STRONG)
    _, v1 = compare(module)
    assert v1["verdict"] == "not-worse"
    _, v2 = compare(my_bot(WEAK))
    assert v2["verdict"] == "regression"
    again, back = compare(my_bot(STRONG))
    assert again.exit_code == 0 and back["verdict"] == "not-worse"
    assert back["played_now"] == 0 and back["reused"] == back["games"] == v1["games"]
    assert back["versions"]["candidate"] == v1["versions"]["candidate"]
    assert f"{back['games']} stored games of these versions reused" in again.stderr
    folder = back["results"]

    board = json.loads(run("leaderboard", folder, "--format", "json").stdout)
    assert board["games"] == back["games"]
    standings = {row["bot"]: row for row in board["sections"][0]["standings"]}
    assert standings["mine"]["games"] == back["games"] // 2  # the candidate's table; the baseline's the other half
    records = current_records(folder)
    assert len(records) == back["games"]
    seat_versions = {version for record in records for bot, version in zip(record["players"], record["versions"])
                     if bot == "mine"}
    assert seat_versions == {v1["versions"]["candidate"]}, "no game of v2 among the folder's current games"
    assert {record["game_version"] for record in records} == {back["versions"]["game"]}
    with open(f"{folder}/compare.json", encoding="utf-8") as handle:
        assert json.load(handle)["versions"] == back["versions"]
    with open(f"{folder}/compare.md", encoding="utf-8") as handle:  # the CI step summary says it too
        assert f"- games: {back['games']}; {back['games']} reused from the store, 0 played now" in handle.read()
    # the report's SPRT chart is drawn from the folder's games: it ends where the verdict's LLR is
    trace = llr_trace(folder, back)
    assert len(trace) == back["blocks"] and trace[-1] == pytest.approx(back["sprt"]["llr"])
    # v2's games are kept, as history
    history = [json.loads(line) for line in run("export", folder, "--history").stdout.splitlines()]
    of_v2 = [record for record in history if v2["versions"]["candidate"] in record["versions"]]
    assert len(of_v2) >= v2["games"] // 2


# -- the game's engine under `arena run` --


TOURNAMENT = """
[tournament]
name = "cup"
seed = 4
deals = 2

[[games]]
name = "silk-road"
players = 2

[[bots]]
spec = "random"

[[bots]]
spec = "r2=random"
"""


@pytest.fixture
def edited_engine(isolated, monkeypatch):
    """Silk Road's rules as a copy the test edits: the version reads the copy (the code that runs is arena's)."""
    import arena.games.silk_road as silk_road

    copy = isolated / "engine" / "silk_road"
    shutil.copytree(silk_road.__path__[0], copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(silk_road, "__path__", [str(copy)])

    def edit(line: str) -> None:
        (copy / "game.py").write_text((copy / "game.py").read_text() + f"\n{line}\n")

    return edit


def test_an_edited_engine_replays_its_games_and_says_so(isolated, edited_engine):
    (isolated / "cup.toml").write_text(TOURNAMENT)
    first = run("run", "cup.toml", "--sandbox", "none", "-j", "0")
    assert first.exit_code == 0, first.output
    before = {record["game_version"] for record in current_records("results/cup")}
    edited_engine("START_MONEY = 2 * 12  # money doubled")
    again = run("run", "cup.toml", "--sandbox", "none", "-j", "0")
    assert again.exit_code == 0, again.output
    assert "game silk-road changed (its rules or arena's game loop): 4 games to play again" in again.stderr
    assert "4 games, 0 stored and reused, 4 to play, 4 kept as history" in again.stderr
    after = {record["game_version"] for record in current_records("results/cup")}
    assert len(before) == len(after) == 1 and before != after
    assert json.loads(run("leaderboard", "results/cup", "--format", "json").stdout)["games"] == 4


def test_keep_stale_keeps_the_games_of_an_older_engine_and_says_so(isolated, edited_engine):
    (isolated / "cup.toml").write_text(TOURNAMENT)
    assert run("run", "cup.toml", "--sandbox", "none", "-j", "0").exit_code == 0
    before = current_records("results/cup")
    edited_engine("START_MONEY = 2 * 12  # money doubled")
    kept = run("run", "cup.toml", "--sandbox", "none", "-j", "0", "--keep-stale")
    assert kept.exit_code == 0, kept.output
    assert "game silk-road changed (its rules or arena's game loop): 4 stored games of its older engine kept" \
        in kept.stderr
    assert "4 games, 4 stored and reused, 0 to play" in kept.stderr
    assert current_records("results/cup") == before


def store_of_format_2(folder: str) -> None:
    """The store in ``folder`` as arena wrote it before games had versions (format 2)."""
    import sqlite3

    db = sqlite3.connect(f"{folder}/results.sqlite")
    try:
        db.execute("ALTER TABLE games DROP COLUMN game_version")
        db.execute("PRAGMA user_version = 2")
        db.commit()
    finally:
        db.close()


@pytest.mark.parametrize("keep_stale", [False, True], ids=["played again", "kept with --keep-stale"])
def test_a_store_from_before_game_versions_is_read_and_its_games_replayed_or_kept(isolated, monkeypatch,
                                                                                 keep_stale):
    (isolated / "cup.toml").write_text(TOURNAMENT)
    with monkeypatch.context() as before_game_versions:  # played as arena did then: no game version anywhere
        before_game_versions.setattr("arena.runs.run.game_versions", lambda games, plugins: {})
        assert run("run", "cup.toml", "--sandbox", "none", "-j", "0").exit_code == 0
    before = current_records("results/cup")
    assert all("game_version" not in record for record in before)
    store_of_format_2("results/cup")
    assert json.loads(run("leaderboard", "results/cup", "--format", "json").stdout)["games"] == 4
    again = run("run", "cup.toml", "--sandbox", "none", "-j", "0", *(["--keep-stale"] if keep_stale else []))
    assert again.exit_code == 0, again.output
    if keep_stale:
        assert "4 games, 4 stored and reused, 0 to play" in again.stderr
        assert "4 stored games of its older engine kept" in again.stderr
    else:
        assert "game silk-road changed (its rules or arena's game loop): 4 games to play again" in again.stderr
        assert {record["game_version"] for record in current_records("results/cup")} != {""}
    assert len(current_records("results/cup")) == 4 and current_records("results/cup")[0]["id"] == before[0]["id"]
