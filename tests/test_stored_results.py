"""Stored results describe the code that is there now: changed bots replayed, grown fields extended, history kept.

Every test runs real ``arena run`` / ``arena compare`` commands on a ``cmd:``
bot whose file the test edits between runs, as a bot author would.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from click.testing import CliRunner

from arena.cli import cli
from arena.runs.store import open_store
from tournament_files import stored_records, write_tournament

#: an external Silk Road bot: its STRATEGY line is what the tests edit
BOT = '''import json, sys
STRATEGY = "pass"
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        legal, decision = message["legal"], message["decision"]
        if decision == "load_ship":
            action = {"good": legal["goods"][0]}
        elif decision == "phase1":
            action = {"action": "pass"}
        elif decision == "phase2":
            cards = legal["play"]
            if STRATEGY == "play" and cards:
                action = {"action": "play", "cards": [cards[0]], "slots": [0]}
            else:
                action = {"action": "draw"}
        else:
            action = {"count": 0}
        print(json.dumps(action), flush=True)
'''


def run(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def write(folder: Path, bots: list[str], deals: int = 2) -> str:
    """``folder/cup.toml``: silk-road for two, deals from a secret drawn on the first run."""
    return write_tournament(folder, bots, "silk-road:2", deals=deals, name="cup", seed=None)


def entrant(folder: Path, strategy: str = "pass") -> str:
    (folder / "mine.py").write_text(BOT.replace('STRATEGY = "pass"', f'STRATEGY = "{strategy}"'))
    return f"mine=cmd:{sys.executable} mine.py"


def history(folder: Path) -> int:
    store = open_store(str(folder))
    try:
        return store.count_history()
    finally:
        store.close()


def test_a_changed_bot_has_its_games_played_again_and_the_others_reused(isolated):
    path = write(isolated, ["random", entrant(isolated), "r2=random"])
    first = run("run", path, "--sandbox", "none", "-j", "2")
    assert first.exit_code == 0, first.output
    folder = isolated / "results" / "cup"
    before = {record["id"]: record for record in stored_records(folder)}
    assert len(before) == 3 * 2 * 2
    entrant(isolated, "play")  # the author edits the bot's file
    again = run("run", path, "--sandbox", "none", "-j", "2")
    assert again.exit_code == 0, again.output
    assert "bot mine changed (code): 8 games to play again; 4 stored games reused" in again.stderr
    assert "12 games, 4 stored and reused, 8 to play, 8 kept as history out of the standings" in again.stderr
    after = {record["id"]: record for record in stored_records(folder)}
    assert after.keys() == before.keys()
    for game_id, record in after.items():
        if "mine" in record["players"]:
            assert record["versions"] != before[game_id]["versions"]
        else:
            assert record == before[game_id]  # reused as stored
    assert history(folder) == 8
    unchanged = run("run", path, "--sandbox", "none", "-j", "2")
    assert "12 games, 12 stored and reused, 0 to play" in unchanged.stderr


def test_a_bot_added_to_a_stored_tournament_plays_only_its_new_tables(isolated):
    path = write(isolated, ["random", "r2=random"])
    assert run("run", path, "--sandbox", "none", "-j", "2").exit_code == 0
    folder = isolated / "results" / "cup"
    store = open_store(str(folder))
    try:
        old_rows = {row[0]: row[1] for row in store.query("SELECT id, record FROM games")}
    finally:
        store.close()
    write(isolated, ["random", "r2=random", "trader"])
    grown = run("run", path, "--sandbox", "none", "-j", "2")
    assert grown.exit_code == 0, grown.output
    assert "12 games, 4 stored and reused, 8 to play" in grown.stderr
    store = open_store(str(folder))
    try:
        rows = {row[0]: row[1] for row in store.query("SELECT id, record FROM games")}
    finally:
        store.close()
    assert all(rows[game_id] == text for game_id, text in old_rows.items())  # byte-identical
    assert {record["id"].split("/")[2] for record in stored_records(folder)} == {
        "random+r2", "random+trader", "r2+trader"}


def test_the_same_bot_entered_twice_under_two_names_plays_itself(isolated):
    path = write(isolated, ["random", "twin=random"])
    result = run("run", path, "--sandbox", "none", "-j", "1")
    assert result.exit_code == 0, result.output
    records = stored_records(isolated / "results" / "cup")
    assert {tuple(record["players"]) for record in records} == {("random", "twin"), ("twin", "random")}
    assert all(record["versions"][0] == record["versions"][1] for record in records)  # same code


def test_a_comparison_never_reuses_games_of_an_older_candidate(isolated):
    args = ["compare", "silk-road", "--candidate", entrant(isolated, "play"), "--baseline", "random",
            "--sandbox", "none", "-j", "2", "--no-sprt", "--deals", "4", "--name", "cmp", "--seed", "5", "--json"]
    first = json.loads(run(*args).stdout)
    assert first["played_now"] == 16
    entrant(isolated, "pass")  # a change that makes the candidate worse
    second = json.loads(run(*args).stdout)
    assert second["played_now"] == 8  # the candidate's games again; the baseline's are reused
    assert second["versions"]["candidate"] != first["versions"]["candidate"]
    assert second["versions"]["baseline"] == first["versions"]["baseline"]
    assert second["score_difference"]["value"] < first["score_difference"]["value"]
    assert second["versions"]["candidate"] in run("compare", *args[1:-1]).stdout


def test_bad_store_files_are_one_line_errors_and_lose_nothing(isolated):
    path = write(isolated, ["random", "r2=random"])
    assert run("run", path, "--sandbox", "none").exit_code == 0
    store_file = isolated / "results" / "cup" / "results.sqlite"
    kept = store_file.read_bytes()
    (isolated / "results" / "other").mkdir()
    (isolated / "results" / "other" / "results.sqlite").write_bytes(b"this is not a database" * 100)
    result = run("leaderboard", "results/other")
    assert result.exit_code == 2 and result.output.count("\n") == 1
    assert "is not a readable results store" in result.output
    assert store_file.read_bytes() == kept


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    """``path`` made immutable (``chattr +i``: not even root may write it) for the block; skips where refused."""
    made = shutil.which("chattr") and subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
    if made is None or made.returncode != 0:
        pytest.skip(f"cannot make {path.name} immutable here: {made.stderr.strip() if made else 'no chattr'}")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def test_a_results_folder_that_cannot_be_written_is_still_read_and_not_run_into(isolated):
    path = write(isolated, ["random", "r2=random"])
    assert run("run", path, "--sandbox", "none").exit_code == 0
    folder = isolated / "results" / "cup"
    board = run("leaderboard", "results/cup", "--format", "json").stdout
    exported = run("export", "results/cup").stdout
    with immutable(folder):  # read-only media, a copy handed round: SQLite cannot make its -shm file beside the store
        assert run("leaderboard", "results/cup", "--format", "json").stdout == board
        assert run("export", "results/cup").stdout == exported
        shown = run("show", "results/cup", "1")
        assert shown.exit_code == 0 and shown.output
        again = run("run", path, "--sandbox", "none")
        assert again.exit_code == 2 and again.output.splitlines()[-1] == (
            "Error: results/cup/results.sqlite is read-only; make it and its folder writable and run again")
    assert run("export", "results/cup").stdout == exported


def test_fresh_on_a_store_that_cannot_be_deleted_is_one_line_and_keeps_it(isolated):
    path = write(isolated, ["random", "r2=random"])
    assert run("run", path, "--sandbox", "none").exit_code == 0
    store_file = isolated / "results" / "cup" / "results.sqlite"
    kept = store_file.read_bytes()
    with immutable(store_file):
        result = run("run", path, "--sandbox", "none", "--fresh")
        assert result.exit_code == 2 and result.output.splitlines()[-1] == (
            "Error: cannot discard results/cup/results.sqlite for --fresh (Operation not permitted); make it "
            "deletable, or choose another --results folder")
    assert store_file.read_bytes() == kept

def test_a_locked_store_stops_the_run_with_one_line_and_keeps_every_game(isolated, monkeypatch):
    import sqlite3

    import arena.runs.store

    path = write(isolated, ["random", "r2=random"])
    assert run("run", path, "--sandbox", "none").exit_code == 0
    write(isolated, ["random", "r2=random", "trader"])  # more games to store
    store_file = isolated / "results" / "cup" / "results.sqlite"
    monkeypatch.setattr(arena.runs.store, "BUSY_MS", 300)
    holder = sqlite3.connect(store_file, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another process holding the store
    try:
        result = CliRunner().invoke(cli, ["run", path, "--sandbox", "none", "-j", "1"])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines()[-1] == (
        "Error: results/cup/results.sqlite is locked by another process (waited 0.3 s); stop whatever holds it "
        "and run again: nothing stored was lost")
    assert len(stored_records(isolated / "results" / "cup")) == 4
    assert run("run", path, "--sandbox", "none").exit_code == 0
    assert len(stored_records(isolated / "results" / "cup")) == 12


def test_ratings_made_while_playing_equal_a_rating_pass_afterwards(isolated):
    path = write(isolated, ["random", "r2=random", "trader"], deals=3)
    assert run("run", path, "--sandbox", "none", "-j", "2").exit_code == 0
    live = run("leaderboard", "results/cup", "--format", "json").stdout
    store = open_store("results/cup")
    try:
        with store.transaction() as db:
            db.execute("DELETE FROM figures")  # forget what the run rated while playing
    finally:
        store.close()
    assert run("leaderboard", "results/cup", "--format", "json").stdout == live



def test_a_rerun_with_nothing_to_play_rates_nothing_and_a_changed_field_is_rated_again(isolated, monkeypatch):
    from arena.standings import raters
    from arena.standings import live_ratings

    path = write(isolated, ["random", "trader", entrant(isolated)], deals=3)
    assert run("run", path, "--sandbox", "none", "-j", "2").exit_code == 0
    board = run("leaderboard", "results/cup", "--format", "json").stdout
    def refused(*args: object) -> None:
        raise AssertionError("rated again")

    def rating_begins(*args: object) -> None:
        (isolated / "rating process started").touch()

    with monkeypatch.context() as patched:
        patched.setattr(raters, "Rater", refused)  # what the leaderboard rates with
        patched.setattr(live_ratings._Rating, "begin", rating_begins)  # in the store writer, when it rates
        for jobs in ("2", "0"):
            again = run("run", path, "--sandbox", "none", "-j", jobs)
            assert again.exit_code == 0 and "0 to play" in again.output, again.output
            assert run("leaderboard", "results/cup", "--format", "json").stdout == board
    assert not (isolated / "rating process started").exists()
    entrant(isolated, "play")  # the bot's code changes: its games are played again, every rating made anew
    assert run("run", path, "--sandbox", "none", "-j", "2").exit_code == 0
    changed = run("leaderboard", "results/cup", "--format", "json").stdout
    store = open_store("results/cup")
    try:
        with store.transaction() as db:
            db.execute("DELETE FROM figures")
    finally:
        store.close()
    assert run("leaderboard", "results/cup", "--format", "json").stdout == changed != board

def test_a_failed_live_rating_costs_no_game_and_the_leaderboard_rates_afterwards(isolated, monkeypatch):
    from arena.standings import live_ratings

    path = write(isolated, ["random", "r2=random", "trader"], deals=3)

    def broken(*args: object) -> None:
        raise RuntimeError("rating broke")

    monkeypatch.setattr(live_ratings._Rating, "add", broken)  # in the store writer, after its first batch
    result = run("run", path, "--sandbox", "none", "-j", "2")
    assert result.exit_code == 0, result.output
    assert len(stored_records(isolated / "results" / "cup")) == 18  # 3 tables x 3 deals x 2 rotations
    board = run("leaderboard", "results/cup", "--format", "json").stdout
    store = open_store("results/cup")
    try:
        with store.transaction() as db:
            db.execute("DELETE FROM figures")  # whatever was cached: none of it came from the lost process
    finally:
        store.close()
    assert run("leaderboard", "results/cup", "--format", "json").stdout == board


#: the store format of arena before bot versions (schema 1), as a results folder from then holds it
SCHEMA_1 = """
CREATE TABLE tournament (name TEXT NOT NULL, digest TEXT NOT NULL, definition TEXT NOT NULL,
    plan TEXT NOT NULL, total INTEGER NOT NULL, created TEXT NOT NULL);
CREATE TABLE tables (game TEXT NOT NULL, number INTEGER NOT NULL, bots TEXT NOT NULL, PRIMARY KEY (game, number));
CREATE TABLE games (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, game TEXT NOT NULL,
    table_number INTEGER NOT NULL, deal INTEGER NOT NULL, rotation INTEGER NOT NULL,
    record TEXT NOT NULL, finished TEXT NOT NULL);
CREATE INDEX games_by_game ON games (game);
CREATE TABLE seats (seq INTEGER NOT NULL, seat INTEGER NOT NULL, game TEXT NOT NULL, bot TEXT NOT NULL,
    money INTEGER NOT NULL, rank INTEGER NOT NULL, faults INTEGER NOT NULL,
    PRIMARY KEY (game, seq, seat)) WITHOUT ROWID;
CREATE TABLE faults (seq INTEGER NOT NULL, seat INTEGER NOT NULL, move INTEGER, decision TEXT NOT NULL,
    kind TEXT NOT NULL, detail TEXT NOT NULL);
CREATE TABLE figures (game TEXT PRIMARY KEY, games INTEGER NOT NULL, payload TEXT NOT NULL);
PRAGMA user_version = 1;
"""


def test_a_store_from_before_bot_versions_is_read_and_its_games_kept(isolated):
    import sqlite3

    path = write(isolated, ["random", "r2=random"], deals=1)
    record = json.loads(run("play", "silk-road", "-b", "random", "-b", "r2=random", "--seed", "3", "--sandbox", "none",
                            "--json").stdout)
    record["id"] = "cup/silk-road/t1/d1/r1"
    folder = isolated / "results" / "cup"
    folder.mkdir(parents=True)
    db = sqlite3.connect(folder / "results.sqlite")
    db.executescript(SCHEMA_1)
    plan = {"games": [{"name": "silk-road", "players": 2, "games": 1, "entries": ["random", "r2"], "left_out": [],
                       "tables": [["random", "r2"]]}], "bots": ["random", "r2"]}
    db.execute("INSERT INTO tournament VALUES ('cup', 'x', ?, ?, 1, '2026-01-01')",
               (json.dumps({"name": "cup", "seed": 3}), json.dumps(plan)))
    db.execute("INSERT INTO games VALUES (0, ?, 'silk-road', 1, 1, 1, ?, '2026-01-01')",
               (record["id"], json.dumps(record)))
    db.executemany("INSERT INTO seats VALUES (0, ?, 'silk-road', ?, ?, ?, 0)",
                   [(seat, bot, money, rank) for seat, (bot, money, rank) in enumerate(
                       zip(record["players"], record["result"]["money"], record["result"]["ranks"]))])
    db.commit()
    db.close()
    board = run("leaderboard", "results/cup")
    assert board.exit_code == 0 and "silk-road (1 of 1 games)" in board.output  # read, brought up to date
    assert [json.loads(line)["id"] for line in run("export", "results/cup").stdout.splitlines()] == [record["id"]]
    rerun = run("run", path, "--sandbox", "none")
    assert rerun.exit_code == 0
    assert "2 games, 0 stored and reused, 2 to play, 1 kept as history out of the standings" in rerun.stderr
    assert history(folder) == 1


def test_a_store_from_a_newer_arena_is_refused_in_one_line(isolated):
    import sqlite3

    (isolated / "results" / "new").mkdir(parents=True)
    db = sqlite3.connect(isolated / "results" / "new" / "results.sqlite")
    db.execute("PRAGMA user_version = 99")
    db.execute("CREATE TABLE later (x)")
    db.close()
    result = run("leaderboard", "results/new")
    assert result.exit_code == 2
    assert result.output == ("Error: results/new/results.sqlite was written by a newer arena (store format 99, "
                             "this arena reads up to 4); upgrade arena to read it\n")
