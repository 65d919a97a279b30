"""Stored records are compressed where they are played, stores of the previous format read the same, and the
writer process stores a run's games in order.

A store of format 3 (arena before this change) keeps each record as its JSON
text; format 4 keeps it zlib-compressed. Every test runs real ``arena run``
commands; the previous format is made from a run's store by writing each
record back as the text the previous writer stored (``orjson`` of the record)
and marking the store format 3.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import time
import zlib
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.errors import StoreError
from arena.runs.spec import FinishedGame
from arena.runs.store import OLD_INDEXES, SCHEMA_VERSION, game_rows, open_store
from arena.runs.writer import StoreWriter
from tournament_files import write_tournament

BOTS = ['spec = "random"', 'spec = "r2=random"', 'spec = "r3=random"', 'spec = "r4=random"']


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def play(tmp_path: Path, deals: int) -> Path:
    """A random Modern Art tournament for four, played with two workers; its results folder."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = write_tournament(tmp_path, BOTS, "modern-art:4", deals=deals, name="cup")
    run("run", path, "--sandbox", "none", "-j", "2", "--results", str(tmp_path / "results"))
    return tmp_path / "results" / "cup"


def column_types(folder: Path) -> set[str]:
    db = sqlite3.connect(folder / "results.sqlite")
    try:
        return {kind for (kind,) in db.execute("SELECT DISTINCT typeof(record) FROM games")}
    finally:
        db.close()


def previous_format(folder: Path, into: Path) -> Path:
    """A copy of ``folder`` whose store is as the previous writer left it: records as JSON text, format 3."""
    shutil.copytree(folder, into)
    for leftover in ("leaderboard.json", "leaderboard.md", "leaderboard.csv"):
        (into / leftover).unlink(missing_ok=True)
    db = sqlite3.connect(into / "results.sqlite")
    try:
        rows = db.execute("SELECT row, record FROM games").fetchall()
        db.executemany("UPDATE games SET record = ? WHERE row = ?",
                       [(zlib.decompress(record).decode("utf-8"), row) for row, record in rows])
        db.execute("DELETE FROM figures")
        db.execute("PRAGMA user_version = 3")
        db.commit()
    finally:
        db.close()
    return into


def test_records_are_stored_compressed_and_small(tmp_path):
    folder = play(tmp_path, deals=10)
    assert column_types(folder) == {"blob"}
    db = sqlite3.connect(folder / "results.sqlite")
    try:
        sizes = db.execute("SELECT length(record) FROM games").fetchall()
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    finally:
        db.close()
    texts = [len(line.encode()) for line in run("export", str(folder)).splitlines()]
    assert len(sizes) == len(texts) == 40
    assert sum(size for (size,) in sizes) * 4 < sum(texts)  # a random four-player game: 11-12 KB of JSON, 1.2 KB
    assert max(size for (size,) in sizes) < 2_000


def test_a_store_of_the_previous_format_reads_the_same(tmp_path):
    folder = play(tmp_path / "now", deals=5)
    old = previous_format(folder, tmp_path / "old" / "cup")
    assert column_types(old) == {"text"}
    exported = run("export", str(folder))
    assert run("export", str(old)) == exported  # byte for byte
    assert len(exported.splitlines()) == 20
    replayed = CliRunner().invoke(cli, ["replay", "-", "--quiet"], input=exported)
    assert replayed.output.strip() == "20 of 20 records replay exactly"
    game_id = json.loads(exported.splitlines()[7])["id"]
    assert run("show", str(old), game_id) == run("show", str(folder), game_id)
    for form in ("json", "csv", "markdown"):
        assert run("leaderboard", str(old), "--format", form) == run("leaderboard", str(folder), "--format", form)
    store = open_store(str(old))  # reading leaves the previous format as it was
    try:
        assert store.record(game_id) == json.dumps(json.loads(store.record(game_id)), separators=(",", ":"))
    finally:
        store.close()
    assert column_types(old) == {"text"}


def test_a_store_of_the_previous_format_takes_new_games(tmp_path):
    folder = play(tmp_path / "now", deals=3)
    old = previous_format(folder, tmp_path / "old" / "results" / "cup")
    before = run("export", str(old))
    path = write_tournament(tmp_path / "old", BOTS, "modern-art:4", deals=5, name="cup")
    run("run", path, "--sandbox", "none", "-j", "2", "--results", str(tmp_path / "old" / "results"))
    assert column_types(old) == {"text", "blob"}
    db = sqlite3.connect(old / "results.sqlite")
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        db.close()
    after = run("export", str(old)).splitlines()
    assert len(after) == 20 and set(before.splitlines()) <= set(after)
    assert run("export", str(play(tmp_path / "fresh", deals=5))).splitlines() == after


def test_a_new_store_has_no_index_on_the_seats_game_and_an_older_store_with_it_reads_and_takes_games_the_same(
        tmp_path):
    folder = play(tmp_path / "now", deals=5)
    db = sqlite3.connect(folder / "results.sqlite")
    try:
        indexes = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    finally:
        db.close()
    assert "seats_by_game" not in indexes and {"games_by_id", "games_by_current"} <= indexes
    old = tmp_path / "old" / "results" / "cup"  # as an arena before this change made it: the index on seats.game
    shutil.copytree(folder, old)
    db = sqlite3.connect(old / "results.sqlite")
    try:
        db.execute(OLD_INDEXES["seats_by_game"])
        db.execute("DELETE FROM figures")
        db.commit()
    finally:
        db.close()
    for form in ("json", "csv", "markdown"):
        assert run("leaderboard", str(old), "--format", form) == run("leaderboard", str(folder), "--format", form)
    stores = [open_store(str(path)) for path in (folder, old)]
    try:
        new_store, old_store = stores
        assert old_store.placings("modern-art") == new_store.placings("modern-art") and \
            len(new_store.placings("modern-art")) == 80
        assert old_store.seats_with_blocks("modern-art") == new_store.seats_with_blocks("modern-art")
        assert old_store.bot_totals("modern-art") == new_store.bot_totals("modern-art")
        assert old_store.bot_totals() == new_store.bot_totals()
    finally:
        for store in stores:
            store.close()
    path = write_tournament(tmp_path / "old", BOTS, "modern-art:4", deals=8, name="cup")
    run("run", path, "--sandbox", "none", "-j", "2", "--results", str(tmp_path / "old" / "results"))
    assert run("export", str(old)) == run("export", str(play(tmp_path / "fresh", deals=8)))


def _emptied_store(tmp_path, deals):
    """A played run's folder, its records and specs, and its store's path and connection with no game left."""
    folder = play(tmp_path, deals=deals)
    store = open_store(str(folder))
    try:
        records = [json.loads(text) for text in store.records()]
        specs = {spec.id: spec for spec in _specs_of(store)}
    finally:
        store.close()
    path = str(folder / "results.sqlite")
    db = sqlite3.connect(path)
    db.execute("DELETE FROM seats")
    db.execute("DELETE FROM games")
    db.commit()
    return folder, records, specs, path, db


def test_the_writer_process_stores_in_order_and_says_why_a_batch_failed(tmp_path):
    folder, records, specs, path, db = _emptied_store(tmp_path, deals=2)
    writer = StoreWriter(path)
    for record in records:  # one batch a game, in schedule order
        writer.add(game_rows([FinishedGame(specs[record["id"]], record)]))
    writer.close()
    assert [json.loads(line) for line in run("export", str(folder)).splitlines()] == records
    db.execute("DROP TABLE seats")
    db.commit()
    db.close()
    failing = StoreWriter(path)
    failing.add(game_rows([FinishedGame(specs[records[0]["id"]], records[0])]))
    with pytest.raises(StoreError, match="no such table: seats"):
        failing.close()
    assert not failing.process.is_alive()


def test_closing_the_writer_stores_the_last_games_at_once_not_after_its_wait_for_more(tmp_path, monkeypatch):
    """A run's end must not wait out the writer's gathering of a transaction (0.25 s on every run before)."""
    from arena.runs import writer as writer_module

    folder, records, specs, path, db = _emptied_store(tmp_path, deals=1)
    db.close()
    monkeypatch.setattr(writer_module, "GATHER_SECONDS", 30.0)  # the forked writer waits this long for more games
    writer = StoreWriter(path)
    writer.add(game_rows([FinishedGame(specs[records[0]["id"]], records[0])]))
    began = time.monotonic()
    writer.close()
    assert time.monotonic() - began < 10  # not the 30 s the writer would wait for a fuller transaction
    assert [json.loads(line) for line in run("export", str(folder)).splitlines()] == records[:1]


class _Noting:
    """A store writer's task that notes in a file how many games it was given, and gives that as its result."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        self.got: object = "nothing received"

    def begin(self) -> None:
        self.count = 0

    def add(self, rows) -> None:
        self.count += len(rows)
        self.path.write_text(str(self.count))

    def add_placings(self, games) -> None:
        raise AssertionError("not rated beside the writer here")

    def result(self) -> int:
        return self.count

    def received(self, result) -> None:
        self.got = result


def test_the_writers_task_takes_a_batch_as_it_arrives_not_once_its_transaction_is_stored(tmp_path, monkeypatch):
    """The live ratings rate a batch while the writer gathers its transaction: a run's end then only inserts."""
    from arena.runs import writer as writer_module

    folder, records, specs, path, db = _emptied_store(tmp_path, deals=1)
    db.close()
    monkeypatch.setattr(writer_module, "GATHER_SECONDS", 30.0)  # the transaction waits for more games
    noted = tmp_path / "noted"
    task = _Noting(noted)
    writer = StoreWriter(path, task)
    writer.add(game_rows([FinishedGame(specs[record["id"]], record) for record in records[:3]]))
    began = time.monotonic()
    while not noted.exists() and time.monotonic() - began < 10:
        time.sleep(0.01)
    assert noted.read_text() == "3"
    assert run("export", str(folder)) == ""  # still gathering: nothing stored yet
    writer.close()
    assert task.got == 3
    assert [json.loads(line) for line in run("export", str(folder)).splitlines()] == records[:3]


def test_a_batch_that_cannot_be_stored_drops_the_writers_task(tmp_path):
    folder, records, specs, path, db = _emptied_store(tmp_path, deals=1)
    db.execute("DROP TABLE seats")
    db.commit()
    db.close()
    task = _Noting(tmp_path / "noted")
    failing = StoreWriter(path, task)
    failing.add(game_rows([FinishedGame(specs[records[0]["id"]], records[0])]))
    with pytest.raises(StoreError, match="no such table: seats"):
        failing.close()
    assert (tmp_path / "noted").read_text() == "1"  # it was given the batch, which was then not stored
    assert task.got is None  # so its result (the live ratings) is not used


def _specs_of(store):
    """Stand-ins for the specs of a store's games: what the store's rows take of a spec."""
    return [SimpleNamespace(key=key, id=game_id, game=game, table=table, deal=deal, rotation=rotation, order=order,
                            versions=tuple(versions.split("|")) if versions else (), game_version=game_version)
            for key, game_id, game, table, deal, rotation, order, game_version, versions in store.query(
                "SELECT g.key, g.id, g.game, g.table_label, g.deal, g.rotation, g.current, g.game_version, "
                "GROUP_CONCAT(s.version, '|') FROM games g JOIN seats s ON s.row = g.row GROUP BY g.row")]
