"""What a run does in its main process before its first game and after its last (issue 25, the parallel target).

On two cores whatever the main process does alone before the workers start,
and after they stop, is time neither worker plays. These tests hold what was
taken out of it: the behaviour users see stays the same.
"""

from __future__ import annotations

import io
import os
import sqlite3
import time

from arena.runs import run as runs_run
from arena.runs.checkpoint import Checkpointer
from arena.runs.store import open_store
from arena.tournament.config import load_tournament
from arena.tournament.runner import run_tournament

import tournament_files

BOTS = ("random", "r2=py:arena_bots.random_bot:RandomBot", "r3=py:arena_bots.random_bot:RandomBot")


def _stored_keys(folder: str) -> dict[str, str]:
    store = open_store(folder)
    try:
        return dict(store.db.execute("SELECT id, key FROM games").fetchall())
    finally:
        store.close()


def test_a_new_store_leaves_every_key_to_the_workers_and_stores_the_same_keys(tmp_path, plugins, monkeypatch):
    """A run into a new store makes (almost) no spec key in its main process (9 us a game, alone before the first game):
    the workers make them with the games; the keys stored are each spec's, and a rerun reuses every game."""
    seen = []
    real = runs_run.run_schedule

    def spy(specs, *args, **kwargs):
        seen.extend(specs)
        return real(specs, *args, **kwargs)

    monkeypatch.setattr(runs_run, "run_schedule", spy)
    tournament = load_tournament(tournament_files.write_tournament(tmp_path, BOTS, "modern-art:3", deals=3),
                                 plugins)
    first = run_tournament(tournament, plugins, jobs=2, sandbox="none", progress_stream=io.StringIO())
    assert first.played == len(seen) == 3 * 3
    # none was made here but the first's (the live ratings look whether the whole schedule is stored: it is not)
    assert [spec.id for spec in seen if "key" in vars(spec)] in ([], [seen[0].id])
    assert _stored_keys(first.folder) == {spec.id: spec.key for spec in seen}
    again = run_tournament(tournament, plugins, jobs=2, sandbox="none", progress_stream=io.StringIO())
    assert (again.reused, again.played) == (9, 0)


def test_the_writers_log_is_copied_into_the_store_while_it_is_still_written(tmp_path):
    """The checkpoint thread copies what another connection committed into the store file itself while that
    connection goes on writing with its own copying off (as the run's store writer does): the copy is not left
    to the first commit or the close after the last game."""
    path = str(tmp_path / "results.sqlite")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")  # the writer never copies its log itself
    writer.execute("CREATE TABLE games (record BLOB)")
    empty = os.path.getsize(path)
    checkpointer = Checkpointer(path, every=0.01)
    try:
        for _ in range(20):
            writer.execute("INSERT INTO games VALUES (?)", (os.urandom(4096),))
        deadline = time.monotonic() + 30
        while os.path.getsize(path) < empty + 20 * 4096 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        checkpointer.close()
    assert os.path.getsize(path) >= empty + 20 * 4096  # the rows are in the store file, the writer still open
    assert checkpointer.copies >= 1
    assert writer.execute("SELECT COUNT(*) FROM games").fetchone() == (20,)
    writer.close()
