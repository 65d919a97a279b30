"""The results store of one tournament or comparison: ``ROOT/NAME/results.sqlite``, and its typed API.

Tables (schema version :data:`SCHEMA_VERSION`):
- ``meta``: key/value rows: the run's name and kind, its definition and plan
  (JSON), the total of games scheduled, when it was created, and the run's
  secret when it has one (never printed or exported);
- ``games``: one row per game ever played here, keyed by its spec's ``key``
  (a hash of everything that decided it: :attr:`arena.runs.spec.GameSpec.key`),
  with its id, table, deal, rotation, record (zlib-compressed JSON text from
  format 4 on, the JSON text itself before: :mod:`arena.runs.packed` reads
  both), the game's version (empty for
  a game stored before games had versions: format 2) and ``current``: its place in the
  schedule of the latest run, or NULL for history (a game of a bot's older
  code, or of a table no longer scheduled) that is kept but out of the standings;
- ``seats``: per game and seat, the bot, its version, money, rank and fault count (keyed by the game's row
  and the seat; a store made before 2026-12-05 also has an index ``seats_by_game`` on its game's name, which
  every insert paid for (1.1 us a game of the writer's ~15) and no read gained from: a game's seats are read
  faster by scanning them all, most stores holding one game; :data:`OLD_INDEXES`);
- ``faults``: every fault of every game;
- ``figures``: each game's leaderboard figures, cached per state of the store.

Every game is written in one transaction as it finishes, in WAL mode, so a
crash loses at most the games still being played, and readers (a leaderboard
while a run goes on) never block the writer. Every SQLite failure (locked,
read-only, corrupt, from another version) becomes one :class:`StoreError` line.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import tempfile
import urllib.parse
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable, Iterator, NamedTuple, TypedDict

import orjson

from arena.errors import StoreError
from arena.runs import seeds
from arena.runs import packed as packing
from arena.runs.spec import FinishedGame

STORE_FILE = "results.sqlite"
SCHEMA_VERSION = 4
#: store formats read as they are: format 3 differs only in keeping records as JSON text, which is read too
READ_AS_THEY_ARE = (3, SCHEMA_VERSION)
SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    row INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, id TEXT NOT NULL, game TEXT NOT NULL,
    table_label TEXT NOT NULL, deal INTEGER NOT NULL, rotation INTEGER NOT NULL, current INTEGER,
    record TEXT NOT NULL, finished TEXT NOT NULL, game_version TEXT NOT NULL DEFAULT '');
CREATE INDEX games_by_id ON games (id);
CREATE INDEX games_by_current ON games (current);
CREATE TABLE seats (
    row INTEGER NOT NULL, seat INTEGER NOT NULL, game TEXT NOT NULL, bot TEXT NOT NULL, version TEXT NOT NULL,
    money INTEGER NOT NULL, rank INTEGER NOT NULL, faults INTEGER NOT NULL,
    PRIMARY KEY (row, seat)) WITHOUT ROWID;
CREATE TABLE faults (
    row INTEGER NOT NULL, seat INTEGER NOT NULL, move INTEGER, decision TEXT NOT NULL,
    kind TEXT NOT NULL, detail TEXT NOT NULL);
CREATE TABLE figures (game TEXT PRIMARY KEY, stamp TEXT NOT NULL, payload TEXT NOT NULL);
"""
#: indexes of stores made by an older arena that this one no longer makes: such a store keeps them and reads
#: the same (tests/test_store_format.py)
OLD_INDEXES = {"seats_by_game": "CREATE INDEX seats_by_game ON seats (game)"}
#: how long a write waits for another connection's lock before giving up (milliseconds)
BUSY_MS = 10_000


class BotTotals(NamedTuple):
    """Per bot over the current games: seats played, first places, rank sum, money sum, faults."""

    bot: str
    seats: int
    firsts: int
    rank_sum: int
    money_sum: int
    faults: int


class Header(TypedDict):
    """The run's name, kind (``tournament``, ``comparison``), definition, plan and total of games."""

    name: str
    kind: str
    definition: dict[str, Any]
    plan: dict[str, Any]
    total: int


class GameRow(NamedTuple):
    """One current game: its place in the schedule, id, game, table label, deal and rotation."""

    order: int
    id: str
    game: str
    table: str
    deal: int
    rotation: int


class SeatResult(NamedTuple):
    """One seat of one game: the bot, its final money, rank and faults."""

    bot: str
    money: int
    rank: int
    faults: int


@dataclass(frozen=True)
class StoredGame:
    """What the store holds of a game: its spec key, id, place in the current schedule (or None), its seats'
    versions and the game's version."""

    key: str
    id: str
    current: int | None
    versions: tuple[str, ...]
    game_version: str = ""


def store_path(folder: str) -> str:
    return os.path.join(folder, STORE_FILE)


@contextlib.contextmanager
def sqlite_errors(path: str) -> Iterator[None]:
    """Turn SQLite's exceptions into one-line :class:`StoreError` messages saying what to do."""
    try:
        yield
    except sqlite3.OperationalError as error:
        text = str(error)
        if "locked" in text or "busy" in text:
            raise StoreError(f"{path} is locked by another process (waited {BUSY_MS / 1000:g} s); "
                             "stop whatever holds it and run again: nothing stored was lost") from None
        if "readonly" in text or "read-only" in text:
            raise StoreError(f"{path} is read-only; make it and its folder writable and run again") from None
        raise StoreError(f"{path}: {text}") from None
    except sqlite3.DatabaseError as error:
        raise StoreError(f"{path} is not a readable results store ({error}); move it aside to start "
                         "anew, or restore it from a copy") from None


class Store:
    """An open results store. Use :func:`open_store` or :func:`create_or_open`."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            with sqlite_errors(path):
                self.db = self._connect(path)
        except StoreError:
            if not os.path.isfile(path) or _writable_folder(os.path.dirname(path)):
                raise
            self.db = self._connect_read_only(path)  # a folder that is not ours to write (read-only media, a copy)

    @staticmethod
    def _connect(path: str) -> sqlite3.Connection:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
        except BaseException:
            db.close()
            raise
        return db

    @staticmethod
    def _connect_read_only(path: str) -> sqlite3.Connection:
        """The store of a folder that cannot be written, read only.

        SQLite's WAL mode makes its ``-shm`` file beside the store even to read,
        so where the folder is not writable and no ``-wal`` file is there
        (the store was closed cleanly: everything is in the file itself), it
        is opened as immutable.
        """
        immutable = "" if os.path.exists(path + "-wal") else "&immutable=1"
        with sqlite_errors(path):
            db = sqlite3.connect(f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=ro{immutable}", uri=True,
                                 isolation_level=None, check_same_thread=False)
            db.execute("SELECT COUNT(*) FROM sqlite_master").fetchall()
        return db

    def close(self) -> None:
        self.db.close()

    def query(self, sql: str, args: Iterable[Any] = ()) -> list[tuple[Any, ...]]:
        """Rows of one read query, SQLite errors made one line."""
        with sqlite_errors(self.path):
            return self.db.execute(sql, tuple(args)).fetchall()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on error), SQLite errors made one line."""
        with sqlite_errors(self.path):
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    # -- the run's metadata --

    def meta(self, key: str, default: Any = None) -> Any:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return json.loads(rows[0][0]) if rows else default

    def set_meta(self, values: dict[str, Any]) -> None:
        with self.transaction() as db:
            db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)",
                           [(key, json.dumps(value)) for key, value in values.items()])

    def header(self) -> Header:
        """The run's name, kind, definition, plan and total (what the leaderboard and report show)."""
        name = self.meta("name")
        if name is None:
            raise StoreError(f"{self.path}: no tournament stored in it")
        return Header(name=name, kind=self.meta("kind", "tournament"), definition=self.meta("definition", {}),
                      plan=self.meta("plan", {}), total=self.meta("total", 0))

    def secret(self) -> bytes | None:
        """The run's drawn secret, if it has one."""
        value = self.meta("secret")
        return bytes.fromhex(value) if value else None

    def run_secret(self, seed: int | None) -> bytes:
        """The secret of this run: its public ``seed``, or the drawn secret kept here (drawn on first use)."""
        if seed is not None:
            return seeds.public_secret(seed)
        secret = self.secret()
        if secret is None:
            secret = seeds.draw_secret()
            self.set_meta({"secret": secret.hex()})
        return secret

    # -- the current schedule --

    def stored_games(self) -> dict[str, StoredGame]:
        """Every game stored (current and history), by spec key."""
        games: dict[str, StoredGame] = {}
        versions: dict[int, list[str]] = {}
        for row, version in self.query("SELECT row, version FROM seats ORDER BY row, seat"):
            versions.setdefault(row, []).append(version)
        for row, key, game_id, current, game_version in self.query(
                "SELECT row, key, id, current, game_version FROM games"):
            games[key] = StoredGame(key, game_id, current, tuple(versions.get(row, ())), game_version)
        return games

    def mark_current(self, orders: dict[str, int]) -> None:
        """Make the games whose keys are in ``orders`` (key -> schedule order) current, every other one history."""
        with self.transaction() as db:
            db.execute("CREATE TEMP TABLE IF NOT EXISTS scheduled (key TEXT PRIMARY KEY, position INTEGER)")
            db.execute("DELETE FROM scheduled")
            db.executemany("INSERT INTO scheduled VALUES (?, ?)", orders.items())
            changed = db.execute(
                "UPDATE games SET current = (SELECT position FROM scheduled WHERE scheduled.key = games.key) "
                "WHERE current IS NOT (SELECT position FROM scheduled WHERE scheduled.key = games.key)").rowcount
            db.execute("DELETE FROM scheduled")
            if changed:  # the same schedule again keeps the cached figures (a rerun with nothing to play is quick)
                db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', ?)",
                           (json.dumps(self._generation() + 1),))

    def _generation(self) -> int:
        rows = self.db.execute("SELECT value FROM meta WHERE key = 'generation'").fetchall()
        return json.loads(rows[0][0]) if rows else 0

    # -- games in --

    def add(self, finished: FinishedGame) -> None:
        """Store one finished game as current, in one transaction."""
        self.add_many([finished])

    def add_many(self, finished: list[FinishedGame]) -> None:
        """Store finished games as current, in one transaction."""
        self.add_rows(game_rows(finished))

    def add_rows(self, rows: list[GameRows]) -> None:
        """Store games' rows (:func:`game_rows`) as current, in one transaction (:func:`insert_rows`)."""
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        with self.transaction() as db:
            insert_rows(db, rows, now)

    # -- games out --

    def count(self, game: str | None = None) -> int:
        """Current games (of ``game``, or all)."""
        if game is None:
            return int(self.query("SELECT COUNT(*) FROM games WHERE current IS NOT NULL")[0][0])
        return int(self.query("SELECT COUNT(*) FROM games WHERE current IS NOT NULL AND game = ?", (game,))[0][0])

    def count_history(self) -> int:
        """Games kept as history (out of the standings)."""
        return int(self.query("SELECT COUNT(*) FROM games WHERE current IS NULL")[0][0])

    def records(self, games: Iterable[str] = (), bots: Iterable[str] = (), ids: Iterable[str] = (),
                history: bool = False) -> Iterator[str]:
        """Records (JSON text) of the current games in schedule order (with ``history``, then the others),
        of any of ``games``, with any of ``bots`` seated, among ``ids`` (a filter left empty takes all)."""
        where = [] if history else ["current IS NOT NULL"]
        args: list[str] = []
        for column, values in (("game", tuple(games)), ("id", tuple(ids))):
            if values:
                where.append(f"{column} IN ({', '.join('?' * len(values))})")
                args += values
        bots = tuple(bots)
        if bots:
            where.append(f"row IN (SELECT row FROM seats WHERE bot IN ({', '.join('?' * len(bots))}))")
            args += bots
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        with sqlite_errors(self.path):
            cursor = self.db.execute(
                f"SELECT record FROM games{clause} ORDER BY current IS NULL, current, row", args)
            for (record,) in cursor:
                yield packing.record_text(record)

    def record(self, game_id: str) -> str | None:
        """The record (JSON text) of the game with this id (the current one, else the latest), or None."""
        rows = self.query("SELECT record FROM games WHERE id = ? ORDER BY current IS NULL, row DESC LIMIT 1",
                          (game_id,))
        return packing.record_text(rows[0][0]) if rows else None

    def record_by_key(self, key: str) -> dict[str, Any]:
        """The record of the game stored under spec key ``key`` (which must be there)."""
        record: dict[str, Any] = json.loads(packing.record_text(
            self.query("SELECT record FROM games WHERE key = ?", (key,))[0][0]))
        return record

    def bot_totals(self, game: str | None = None) -> list[BotTotals]:
        """Per bot over the current games (of ``game``, or all): seats, firsts, rank sum, money sum, faults."""
        where, args = ("AND s.game = ?", (game,)) if game else ("", ())
        return [BotTotals(*row) for row in self.query(
            f"SELECT s.bot, COUNT(*), SUM(s.rank = 1), SUM(s.rank), SUM(s.money), SUM(s.faults) FROM seats s "
            f"JOIN games g ON g.row = s.row WHERE g.current IS NOT NULL {where} GROUP BY s.bot", args)]

    def placings(self, game: str) -> list[tuple[int, str, int]]:
        """``(order, bot, rank)`` of every seat of the current games of ``game``, in schedule then seat order."""
        return self.query("SELECT g.current, s.bot, s.rank FROM seats s JOIN games g ON g.row = s.row "
                          "WHERE s.game = ? AND g.current IS NOT NULL ORDER BY g.current, s.seat", (game,))

    def placings_by_key(self) -> dict[str, list[tuple[str, int]]]:
        """Every stored game's ``(bot, rank)`` by seat, by spec key (what a rater needs of reused games)."""
        found: dict[str, list[tuple[str, int]]] = {}
        for key, bot, rank in self.query("SELECT g.key, s.bot, s.rank FROM seats s JOIN games g ON g.row = s.row "
                                         "ORDER BY s.row, s.seat"):
            found.setdefault(key, []).append((bot, rank))
        return found

    def seats_with_blocks(self, game: str) -> list[tuple[int, str, int, str, int, int, int]]:
        """``(order, table, deal, bot, rank, money, faults)`` of every seat of the current games of ``game``,
        in schedule then seat order: a deal block is one table and deal (the duplicate format)."""
        return self.query(
            "SELECT g.current, g.table_label, g.deal, s.bot, s.rank, s.money, s.faults FROM seats s "
            "JOIN games g ON g.row = s.row WHERE s.game = ? AND g.current IS NOT NULL ORDER BY g.current, s.seat",
            (game,))

    def game_index(self) -> list[GameRow]:
        """Every current game, in schedule order (what a report lists without reading records)."""
        return [GameRow(*row) for row in self.query(
            "SELECT current, id, game, table_label, deal, rotation FROM games WHERE current IS NOT NULL "
            "ORDER BY current")]

    def seat_results(self) -> dict[int, list[SeatResult]]:
        """Schedule order -> the game's seats in seat order, for every current game."""
        seats: dict[int, list[SeatResult]] = {}
        for order, *seat in self.query(
                "SELECT g.current, s.bot, s.money, s.rank, s.faults FROM seats s JOIN games g ON g.row = s.row "
                "WHERE g.current IS NOT NULL ORDER BY g.current, s.seat"):
            seats.setdefault(order, []).append(SeatResult(*seat))
        return seats

    def fault_kinds(self) -> dict[str, dict[str, int]]:
        """Per bot (sorted; bots without faults left out), its faults in the current games by kind."""
        kinds: dict[str, dict[str, int]] = {}
        for bot, kind, count in self.query(
                "SELECT s.bot, f.kind, COUNT(*) FROM faults f JOIN games g ON g.row = f.row "
                "JOIN seats s ON s.row = f.row AND s.seat = f.seat WHERE g.current IS NOT NULL "
                "GROUP BY s.bot, f.kind ORDER BY s.bot, f.kind"):
            kinds.setdefault(bot, {})[kind] = count
        return kinds

    # -- cached leaderboard figures --

    def _stamp(self, games: int) -> str:
        return f"{self._generation()}:{games}"

    def cached_figures(self, game: str, games: int) -> Any:
        """The figures cached for ``game`` when it had ``games`` current games, or None."""
        rows = self.query("SELECT payload FROM figures WHERE game = ? AND stamp = ?", (game, self._stamp(games)))
        return json.loads(rows[0][0]) if rows else None

    def cache_figures(self, game: str, games: int, payload: Any) -> None:
        """Keep figures computed over ``games`` current games; silently skipped on a read-only store."""
        try:
            with self.transaction() as db:
                db.execute("INSERT OR REPLACE INTO figures VALUES (?, ?, ?)",
                           (game, self._stamp(games), json.dumps(payload)))
        except StoreError:
            pass


#: one game as the store takes it: its games row (key, id, game, table, deal, rotation, order, record, game
#: version), its seats' rows (bot, version, money, rank, faults) and its faults' rows, without the row's number
GameRows = tuple[tuple[Any, ...], tuple[tuple[Any, ...], ...], tuple[tuple[Any, ...], ...]]


def game_rows(finished: list[FinishedGame]) -> list[GameRows]:
    """The rows of finished games, ready to insert (:func:`insert_rows`) here or in another process.

    A game arrives packed by the process that played it (its record
    compressed, its rows made: :mod:`arena.runs.packed`); one that is not
    (a library caller's) is packed here.
    """
    rows: list[GameRows] = []
    for game in finished:
        spec, packed = game.spec, game.packed
        if packed is None:
            record = game.record
            stored, seat_rows, fault_rows = (packing.compress(orjson.dumps(record)),
                                             packing.seat_rows(record, tuple(spec.versions)),
                                             packing.fault_rows(record))
        else:
            stored, seat_rows, fault_rows = packed.record, packed.seats, packed.faults
        rows.append(((spec.key, spec.id, spec.game, spec.table, spec.deal, spec.rotation, spec.order, stored,
                      spec.game_version), seat_rows, fault_rows))
    return rows


def insert_rows(db: sqlite3.Connection, rows: list[GameRows], now: str) -> None:
    """Write games' rows with their seats and faults: a statement for the games and for the faults, and one
    for every :data:`VALUES_ROWS` seats (:func:`_insert_values`).

    Rows are numbered after the last one stored, as SQLite would number them.
    A store of format 3 (records as JSON text) becomes format 4 with its first
    compressed record: an older arena then says the store is newer rather than
    failing on it.
    """
    if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    row = db.execute("SELECT COALESCE(MAX(row), 0) FROM games").fetchone()[0]
    games: list[tuple[Any, ...]] = []
    seats: list[tuple[Any, ...]] = []
    faults: list[tuple[Any, ...]] = []
    for (key, game_id, game, table, deal, rotation, order, stored, game_version), seat_rows, fault_rows in rows:
        row += 1
        games.append((row, key, game_id, game, table, deal, rotation, order, stored, now, game_version))
        seats.extend((row, seat, game, *seat_row) for seat, seat_row in enumerate(seat_rows))
        faults.extend((row, *fault_row) for fault_row in fault_rows)
    db.executemany("INSERT OR REPLACE INTO games (row, key, id, game, table_label, deal, rotation, current, record, "
                   "finished, game_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", games)
    _insert_values(db, "seats", 8, seats)
    if faults:
        db.executemany("INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?)", faults)


#: rows a statement of :func:`_insert_values` inserts (8 columns: 512 values, under SQLite's oldest limit of 999)
VALUES_ROWS = 64


def _insert_values(db: sqlite3.Connection, table: str, width: int, rows: list[tuple[Any, ...]]) -> None:
    """Insert ``rows`` of ``width`` values into ``table``, :data:`VALUES_ROWS` rows a statement.

    One ``INSERT ... VALUES (...), (...), ...`` of many rows costs SQLite and
    the ``sqlite3`` module less than as many executions of a one-row
    statement: a game's four seat rows took 8-9 us of CPU with ``executemany``,
    about 4 this way. The statements are of two sizes a batch at most (the
    full one, and the rest), which the connection's statement cache keeps.
    """
    one = "(" + ", ".join("?" * width) + ")"
    full = f"INSERT INTO {table} VALUES " + ", ".join([one] * VALUES_ROWS)
    for start in range(0, len(rows), VALUES_ROWS):
        part = rows[start:start + VALUES_ROWS]
        sql = full if len(part) == VALUES_ROWS else f"INSERT INTO {table} VALUES " + ", ".join([one] * len(part))
        db.execute(sql, [value for row in part for value in row])


def _create_schema(db: sqlite3.Connection) -> None:
    for statement in filter(None, (part.strip() for part in SCHEMA.split(";"))):
        db.execute(statement)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _migrate_from_1(store: Store) -> None:
    """A store of schema 1 (arena before bot versions) in place: every game kept, current, with no versions.

    Such games are never reused (their keys match no spec), so the next run
    plays them again and keeps these as history.
    """
    with store.transaction() as db:
        old = db.execute("SELECT name, digest, definition, plan, total, created FROM tournament").fetchone()
        for table in ("games", "seats", "faults", "figures"):
            db.execute(f"ALTER TABLE {table} RENAME TO old_{table}")
        db.execute("DROP INDEX IF EXISTS games_by_game")
        db.execute("DROP TABLE IF EXISTS tables")
        db.execute("DROP TABLE tournament")
        _create_schema(db)
        if old:
            name, _digest, definition, plan, total, created = old
            db.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("name", json.dumps(name)), ("kind", json.dumps(json.loads(definition).get("kind", "tournament"))),
                ("definition", definition), ("plan", plan), ("total", json.dumps(total)),
                ("created", json.dumps(created))])
        db.execute("INSERT INTO games (row, key, id, game, table_label, deal, rotation, current, record, finished) "
                   "SELECT seq + 1, 'schema-1:' || id, id, game, 't' || table_number, deal, rotation, seq, record, "
                   "finished FROM old_games")
        db.execute("INSERT INTO seats SELECT seq + 1, seat, game, bot, '', money, rank, faults FROM old_seats")
        db.execute("INSERT INTO faults SELECT seq + 1, seat, move, decision, kind, detail FROM old_faults")
        for table in ("games", "seats", "faults", "figures"):
            db.execute(f"DROP TABLE old_{table}")


def _migrate_from_2(store: Store) -> None:
    """A store of schema 2 (before games had versions) in place: its games get an empty game version.

    Their keys match no spec of a game with a version, so the next run plays
    them again (their engine is unknown) and keeps these as history.
    """
    with store.transaction() as db:
        db.execute("ALTER TABLE games ADD COLUMN game_version TEXT NOT NULL DEFAULT ''")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _writable_folder(folder: str) -> bool:
    """Whether a file can be made in ``folder`` (tried: root passes permission checks, not an immutable folder)."""
    try:
        handle, probe = tempfile.mkstemp(prefix=".arena-probe-", dir=folder or ".")
    except OSError:
        return False
    os.close(handle)
    os.remove(probe)
    return True


def open_store(folder: str) -> Store:
    """The store in a results folder (``ROOT/NAME``), which must exist; an older store is brought up to date."""
    path = store_path(folder)
    if not os.path.isfile(path):
        raise StoreError(f"{folder}: no {STORE_FILE} in it (expected a tournament's results folder, "
                         f"e.g. results/demo)")
    store = Store(path)
    try:
        with sqlite_errors(path):
            version = store.db.execute("PRAGMA user_version").fetchone()[0]
            if version == 0 and not store.db.execute("SELECT name FROM sqlite_master").fetchall():
                raise StoreError(f"{path} is empty (a run that never started?): remove it and run again")
            if version == 1:
                _migrate_from_1(store)
            elif version == 2:
                try:
                    _migrate_from_2(store)
                except StoreError:
                    if _writable_folder(os.path.dirname(path)):
                        raise  # a store that cannot be written is read as it is (only a run needs game versions)
            elif version in READ_AS_THEY_ARE:
                pass  # format 3 becomes format 4 with the first game stored (insert_rows)
            elif version > SCHEMA_VERSION:
                raise StoreError(f"{path} was written by a newer arena (store format {version}, this arena reads "
                                 f"up to {SCHEMA_VERSION}); upgrade arena to read it")
            elif version != SCHEMA_VERSION:
                raise StoreError(f"{path}: not a results store (format {version})")
    except BaseException:
        store.close()
        raise
    return store


def remove_store(folder: str) -> None:
    """Delete a folder's store (and its WAL files): what ``--fresh`` does before starting over.

    The WAL files go first: a store file that cannot be deleted stays (the
    run stops, saying so), while a WAL file left beside a new store would be
    read as part of it.
    """
    for suffix in ("-wal", "-shm", ""):
        try:
            os.remove(store_path(folder) + suffix)
        except FileNotFoundError:
            pass
        except OSError as error:
            raise StoreError(f"cannot discard {store_path(folder) + suffix} for --fresh ({error.strerror}); "
                             "make it deletable, or choose another --results folder") from None


def create_or_open(folder: str, meta: dict[str, Any]) -> Store:
    """The store of this run in ``folder``: the existing one (its metadata updated), or a new one.

    A store holding another run (a comparison in a tournament's folder, or
    another tournament's name) is refused.
    """
    path = store_path(folder)
    if os.path.isfile(path) and os.path.getsize(path) == 0:
        os.remove(path)  # an empty file (something opened the path before the store was made): nothing to keep
    if os.path.isfile(path):
        store = open_store(folder)
        try:
            kind, name = store.meta("kind", "tournament"), store.meta("name")
            if (kind, name) != (meta["kind"], meta["name"]):
                raise StoreError(f"{folder} holds the {kind} {name}, not the {meta['kind']} {meta['name']}; "
                                 "give this one another name or another --results folder")
            store.set_meta({key: value for key, value in meta.items() if key != "created"})
        except BaseException:
            store.close()
            raise
        return store
    store = Store(store_path(folder))
    with store.transaction() as db:
        _create_schema(db)
        db.executemany("INSERT INTO meta VALUES (?, ?)", [(key, json.dumps(value)) for key, value in {
            **meta, "created": datetime.now(timezone.utc).isoformat(timespec="seconds")}.items()])
    return store
