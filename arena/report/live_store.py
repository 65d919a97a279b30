"""The live site's view of a results store: opened read-only, never waiting long, never writing.

``arena serve`` reads a store that ``arena run`` or ``arena compare`` may be
writing at that moment. It opens it as a second reader (SQLite URI
``mode=ro``; in WAL mode readers never block the writer) with a short busy
timeout, so a locked store (another process holding an exclusive lock, a
checkpoint) costs a request a quarter of a second, not the writer's ten, and
the page says the store is locked instead of hanging. The leaderboard's figure
cache is not written from here (:meth:`ReadOnlyStore.cache_figures` does
nothing): the run keeps it.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import urllib.parse
from typing import Any, Iterator

from arena.errors import StoreError
from arena.report.carried import CarriedRatings, RatingPass
from arena.runs.store import READ_AS_THEY_ARE, SCHEMA_VERSION, STORE_FILE, Store, sqlite_errors
from arena.standings.raters import DEFAULT_RATER

#: how long a read waits for a lock before the page says the store is locked (milliseconds)
LIVE_BUSY_MS = 250


class ReadOnlyStore(Store):
    """A :class:`Store` opened read-only with a short busy timeout; every write is refused or skipped."""

    def __init__(self, path: str) -> None:  # noqa: D107 - replaces Store's read-write connection
        self.path = path
        with sqlite_errors(path):
            self.db = sqlite3.connect(f"file:{urllib.parse.quote(os.path.abspath(path))}?mode=ro", uri=True,
                                      isolation_level=None, check_same_thread=False)
            try:
                self.db.execute(f"PRAGMA busy_timeout={LIVE_BUSY_MS}")
                version = self.db.execute("PRAGMA user_version").fetchone()[0]
            except BaseException:
                self.db.close()
                raise
        if version not in READ_AS_THEY_ARE:
            self.db.close()
            if version == 0:
                raise StoreError(f"{path} holds no results yet (its run is making it)")
            raise StoreError(f"{path}: store format {version}, this arena serves format {SCHEMA_VERSION} "
                             "(`arena leaderboard FOLDER` brings an older one up to date)")
        self.identity = file_identity(path)
        self.carried: dict[tuple[str, str], CarriedRatings] = {}
        self.memo: dict[str, list[tuple[int, str, int]]] | None = None  # placings read in the current snapshot

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        raise StoreError(f"{self.path}: opened read-only by the live site")
        yield self.db  # pragma: no cover - never reached; makes this a generator

    def cache_figures(self, game: str, games: int, payload: Any) -> None:
        """Nothing: the live site never writes; the run caches its figures itself."""

    def cached_figures(self, game: str, games: int) -> Any:
        """``game``'s ratings over its stored games, carried forward from the last look (:mod:`arena.report.carried`).

        The run caches its figures in the store only when it ends; a live site rating every game again at
        each change would cost a pass over all of them every time.
        """
        return CarriedRatings.payload(self.rated(game, self.placings(game)))

    def rated(self, game: str, placings: list[tuple[int, str, int]], gap: int | None = None) -> RatingPass:
        """The carried rating pass of ``game`` over ``placings`` (the games before order ``gap`` are final)."""
        rater = str(self.meta("definition", {}).get("rating", DEFAULT_RATER))
        carried = self.carried.setdefault((game, rater), CarriedRatings(rater))
        return carried.rated(placings, self.gap() if gap is None else gap, (self.identity, self.meta("generation")))

    def gap(self) -> int:
        """The first schedule order with no current game (every game before it is stored)."""
        count, last = self.query("SELECT COUNT(current), MAX(current) FROM games")[0]
        if not count or last == count - 1:
            return int(count)
        if not self.query("SELECT 1 FROM games WHERE current = 0"):
            return 0
        return int(self.query("SELECT MIN(g.current + 1) FROM games g WHERE g.current IS NOT NULL AND NOT EXISTS "
                              "(SELECT 1 FROM games h WHERE h.current = g.current + 1)")[0][0])

    def placings(self, game: str) -> list[tuple[int, str, int]]:
        """:meth:`Store.placings`, read once per snapshot (the standings and the rating chart both need them)."""
        if self.memo is None:
            return super().placings(game)
        if game not in self.memo:
            self.memo[game] = super().placings(game)
        return self.memo[game]

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """One read transaction: every query inside sees the store as it was at its first (a consistent page)."""
        with sqlite_errors(self.path):
            self.db.execute("BEGIN")
        self.memo = {}
        try:
            yield
        finally:
            self.memo = None
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("COMMIT")

    def data_version(self) -> int:
        """SQLite's ``data_version``: it changes when another connection commits (a cheap "anything new?")."""
        with sqlite_errors(self.path):
            return int(self.db.execute("PRAGMA data_version").fetchone()[0])


def file_identity(path: str) -> tuple[int, int] | None:
    """The store file's device and inode (a new store made by --fresh is another file), or None when absent."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return status.st_dev, status.st_ino


def inside(root: str, path: str) -> bool:
    """Whether ``path``, links resolved, lies inside ``root`` (links resolved): nothing outside is served."""
    real_root = os.path.realpath(root)
    return os.path.commonpath([real_root, os.path.realpath(path)]) == real_root


def open_read_only(folder: str, served: str) -> ReadOnlyStore:
    """The store of ``folder`` read-only; :class:`StoreError` when it is absent, unreadable or outside ``served``."""
    path = os.path.join(folder, STORE_FILE)
    if not os.path.isfile(path):
        raise StoreError(f"{folder}: no {STORE_FILE} yet (waiting for the run to make it)")
    if not inside(served, path):
        raise StoreError(f"{path} is a link out of the served folder; it is not served")
    return ReadOnlyStore(path)
