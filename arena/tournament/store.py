"""The results store of one tournament: ``ROOT/NAME/results.sqlite``.

Tables:
- ``tournament``: one row, the tournament's definition (what decides its
  games), its hash, and the schedule's summary (tables, who was left out);
- ``tables``: each game's tables, the bots in table order;
- ``games``: one row per finished game, keyed by its place in the schedule
  (``seq``), with its id, table, deal, rotation and full record (JSON);
- ``seats``: per game and seat, the bot, its money, rank and fault count;
- ``faults``: every fault of every game;
- ``figures``: each game's leaderboard figures (ratings, totals, head-to-head),
  computed once per number of stored games.

Every game is written in one transaction as it finishes, in WAL mode, so a
crash loses at most the games still being played, and readers (a leaderboard
while a run goes on) never block the writer. Opening a store for a tournament
whose definition changed is refused unless the caller starts afresh.
"""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import datetime, timezone
from typing import Any, Iterator

from arena.errors import StoreError

STORE_FILE = "results.sqlite"
SCHEMA_VERSION = 1
SCHEMA = """
CREATE TABLE tournament (
    name TEXT NOT NULL, digest TEXT NOT NULL, definition TEXT NOT NULL,
    plan TEXT NOT NULL, total INTEGER NOT NULL, created TEXT NOT NULL);
CREATE TABLE tables (
    game TEXT NOT NULL, number INTEGER NOT NULL, bots TEXT NOT NULL,
    PRIMARY KEY (game, number));
CREATE TABLE games (
    seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, game TEXT NOT NULL,
    table_number INTEGER NOT NULL, deal INTEGER NOT NULL, rotation INTEGER NOT NULL,
    record TEXT NOT NULL, finished TEXT NOT NULL);
CREATE INDEX games_by_game ON games (game);
CREATE TABLE seats (
    seq INTEGER NOT NULL, seat INTEGER NOT NULL, game TEXT NOT NULL, bot TEXT NOT NULL,
    money INTEGER NOT NULL, rank INTEGER NOT NULL, faults INTEGER NOT NULL,
    PRIMARY KEY (game, seq, seat)) WITHOUT ROWID;
CREATE TABLE faults (
    seq INTEGER NOT NULL, seat INTEGER NOT NULL, move INTEGER, decision TEXT NOT NULL,
    kind TEXT NOT NULL, detail TEXT NOT NULL);
CREATE TABLE figures (
    game TEXT PRIMARY KEY, games INTEGER NOT NULL, payload TEXT NOT NULL);
"""


def store_path(folder: str) -> str:
    return os.path.join(folder, STORE_FILE)


def finished_game(order: int, task_meta: tuple[str, str, int, int, int], record: dict) -> tuple:
    """What the store keeps of one finished game, built where it was played (a plain tuple).

    ``task_meta`` is ``(id, game, table, deal, rotation)``. Building the rows in
    the worker leaves the main process, which writes every game, little to do.
    """
    game_id, game, table, deal, rotation = task_meta
    result = record["result"]
    fault_count = [0] * len(record["players"])
    for fault in record["faults"]:
        fault_count[fault["seat"]] += 1
    seats = [
        (order, seat, game, bot, money, rank, fault_count[seat])
        for seat, (bot, money, rank) in enumerate(zip(record["players"], result["money"], result["ranks"]))
    ]
    faults = [
        (order, fault["seat"], fault["move"], fault["decision"], fault["kind"], str(fault["detail"]))
        for fault in record["faults"]
    ]
    row = (order, game_id, game, table, deal, rotation, json.dumps(record, separators=(",", ":")))
    return row, seats, faults


class Store:
    """An open results store. Use :func:`open_store` or :func:`create_store`."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=10000")

    def close(self) -> None:
        self.db.close()

    # -- the tournament --

    def header(self) -> dict:
        row = self.db.execute("SELECT name, digest, definition, plan, total FROM tournament").fetchone()
        if row is None:
            raise StoreError(f"{self.path}: no tournament stored in it")
        name, digest, definition, plan, total = row
        return {"name": name, "digest": digest, "definition": json.loads(definition),
                "plan": json.loads(plan), "total": total}

    def write_header(self, definition: dict, digest: str, plan: dict, total: int) -> None:
        """Write the tournament row and its tables (inside the caller's transaction)."""
        self.db.execute("INSERT INTO tournament VALUES (?, ?, ?, ?, ?, ?)", (
            definition["name"], digest, json.dumps(definition), json.dumps(plan), total,
            datetime.now(timezone.utc).isoformat(timespec="seconds")))
        self.db.executemany("INSERT INTO tables VALUES (?, ?, ?)", [
            (game["name"], number, json.dumps(bots))
            for game in plan["games"] for number, bots in enumerate(game["tables"], 1)])

    def transaction(self) -> "_Transaction":
        """A context manager: BEGIN ... COMMIT (ROLLBACK on error)."""
        return _Transaction(self.db)

    # -- games --

    def add(self, finished: tuple) -> None:
        """Store one finished game (from :func:`finished_game`) in one transaction."""
        row, seats, faults = finished
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self.transaction():
            self.db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)", (*row, now))
            self.db.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?)", seats)
            if faults:
                self.db.executemany("INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?)", faults)

    def stored_orders(self) -> set[int]:
        return {seq for (seq,) in self.db.execute("SELECT seq FROM games")}

    def count(self, game: str | None = None) -> int:
        if game is None:
            return self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        return self.db.execute("SELECT COUNT(*) FROM games WHERE game = ?", (game,)).fetchone()[0]

    def records(self) -> Iterator[str]:
        """Every stored record as JSON text, in schedule order."""
        for (record,) in self.db.execute("SELECT record FROM games ORDER BY seq"):
            yield record

    def placings(self, game: str) -> list[tuple[int, str, int]]:
        """``(seq, bot, rank)`` of every seat of ``game``, in schedule order then seat order."""
        return self.db.execute(
            "SELECT seq, bot, rank FROM seats WHERE game = ? ORDER BY seq, seat", (game,)).fetchall()

    def bot_totals(self, game: str | None = None) -> list[tuple]:
        """Per bot: seats played, first places, rank sum, money sum, faults (one game, or all)."""
        where, args = ("WHERE game = ?", (game,)) if game else ("", ())
        return self.db.execute(
            f"SELECT bot, COUNT(*), SUM(rank = 1), SUM(rank), SUM(money), SUM(faults) "
            f"FROM seats {where} GROUP BY bot", args).fetchall()

    def seat_rows(self, game: str) -> list[tuple[int, str, int, int, int]]:
        """``(seq, bot, rank, money, faults)`` of every seat of ``game``, in schedule order then seat order."""
        return self.db.execute("SELECT seq, bot, rank, money, faults FROM seats WHERE game = ? ORDER BY seq, seat",
                               (game,)).fetchall()

    # -- cached leaderboard figures --

    def cached_figures(self, game: str, games: int) -> Any:
        """The figures cached for ``game`` when it had ``games`` stored games, or None."""
        row = self.db.execute("SELECT payload FROM figures WHERE game = ? AND games = ?",
                              (game, games)).fetchone()
        return json.loads(row[0]) if row else None

    def cache_figures(self, game: str, games: int, payload: Any) -> None:
        """Keep figures computed over ``games`` games; silently skipped on a read-only store."""
        try:
            with self.transaction():
                self.db.execute("INSERT OR REPLACE INTO figures VALUES (?, ?, ?)",
                                (game, games, json.dumps(payload)))
        except sqlite3.OperationalError:
            pass


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> sqlite3.Connection:
        self.db.execute("BEGIN IMMEDIATE")
        return self.db

    def __exit__(self, kind, error, trace) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")


def open_store(folder: str) -> Store:
    """The store in a tournament's folder (``ROOT/NAME``), which must exist."""
    path = store_path(folder)
    if not os.path.isfile(path):
        raise StoreError(f"{folder}: no {STORE_FILE} in it (expected a tournament's results folder, "
                         f"e.g. results/demo)")
    store = Store(path)
    try:
        version = store.db.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.DatabaseError as error:
        store.close()
        raise StoreError(f"{path}: not a results store ({error})") from None
    if version != SCHEMA_VERSION:
        store.close()
        raise StoreError(f"{path}: store format {version}, expected {SCHEMA_VERSION}")
    return store


def remove_store(folder: str) -> None:
    """Delete a folder's store (and its WAL files): what ``--fresh`` does before starting over."""
    for suffix in ("", "-wal", "-shm"):
        try:
            os.remove(store_path(folder) + suffix)
        except FileNotFoundError:
            pass


def create_or_resume(folder: str, definition: dict, digest: str, plan: dict, total: int, source: str) -> Store:
    """The store for this tournament: a new one, or the existing one if it holds the same tournament.

    ``source`` names the tournament file in the refusal message.
    """
    os.makedirs(folder, exist_ok=True)
    if os.path.isfile(store_path(folder)):
        store = open_store(folder)
        header = store.header()
        if header["digest"] != digest:
            store.close()
            raise StoreError(
                f"{folder} holds results of tournament {header['name']} from a different version of "
                f"{source} (its games, bots, limits or seed changed); use --fresh to discard them "
                f"and start over, or give the tournament another name")
        return store
    store = Store(store_path(folder))
    with store.transaction():
        for statement in filter(None, (part.strip() for part in SCHEMA.split(";"))):
            store.db.execute(statement)
        store.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        store.write_header(definition, digest, plan, total)
    return store


# -- queries by id, bot and game (``arena show``, ``arena export`` filters) --


def stored_record(store: Store, game_id: str) -> str | None:
    """The record (JSON text) of the game with this id, or of this schedule number (``seq``); None if absent."""
    row = store.db.execute("SELECT record FROM games WHERE id = ?", (game_id,)).fetchone()
    if row is None and game_id.isdigit():
        row = store.db.execute("SELECT record FROM games WHERE seq = ?", (int(game_id),)).fetchone()
    return row[0] if row else None


def selected_records(store: Store, games: tuple[str, ...] = (), bots: tuple[str, ...] = (),
                     ids: tuple[str, ...] = ()) -> Iterator[str]:
    """Stored records (JSON text) in schedule order, of any of ``games``, with any of ``bots`` seated,
    among ``ids`` (each filter left out when empty)."""
    where, args = [], []
    for column, values in (("game", games), ("id", ids)):
        if values:
            where.append(f"{column} IN ({', '.join('?' * len(values))})")
            args += values
    if bots:
        where.append(f"seq IN (SELECT seq FROM seats WHERE bot IN ({', '.join('?' * len(bots))}))")
        args += bots
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    for (record,) in store.db.execute(f"SELECT record FROM games{clause} ORDER BY seq", args):
        yield record


# -- standings queries (arena/standings; added for the leaderboard's deal-block bootstrap) --


def seats_with_blocks(store: Store, game: str) -> list[tuple[int, int, int, str, int, int, int]]:
    """``(seq, table, deal, bot, rank, money, faults)`` of every seat of ``game``, in schedule order then seat order.

    ``(table, deal)`` names a duplicate block: all rotations of one deal at one
    table, the unit the leaderboard resamples to measure rank uncertainty.
    """
    return store.db.execute(
        "SELECT s.seq, g.table_number, g.deal, s.bot, s.rank, s.money, s.faults FROM seats s "
        "JOIN games g ON g.seq = s.seq WHERE s.game = ? ORDER BY s.seq, s.seat", (game,)).fetchall()
