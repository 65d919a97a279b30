"""The store writer's process: batches that wait for it are stored together, each answered, in order."""

from __future__ import annotations

import multiprocessing
import pickle

from arena.runs import writer


def _batch(*games: int) -> tuple[list[tuple[int]], list[bytes]]:
    """A batch as the main process sends it: no rows as they are, one piece pickled by a worker."""
    return [], [pickle.dumps([(game,) for game in games])]


def test_batches_already_waiting_are_stored_in_one_transaction_in_order():
    mine, theirs = multiprocessing.Pipe()
    for batch in (_batch(1, 2), _batch(3), ([(4,)], [pickle.dumps([(5,)])])):
        mine.send(batch)
    mine.send(None)
    assert list(writer._received(theirs)) == [([(1,), (2,), (3,), (4,), (5,)], 3)]


def test_a_merged_transaction_stops_at_its_size_and_nothing_waits_for_more(monkeypatch):
    monkeypatch.setattr(writer, "MERGED_GAMES", 3)
    mine, theirs = multiprocessing.Pipe()
    for batch in (_batch(1, 2), _batch(3), _batch(4), _batch(5)):
        mine.send(batch)
    received = writer._received(theirs)
    assert next(received) == ([(1,), (2,), (3,)], 2)  # full: the batches behind wait for the next transaction
    assert next(received) == ([(4,), (5,)], 2)
    mine.send(_batch(6))  # sent only now: stored alone, as soon as it comes
    assert next(received) == ([(6,)], 1)
    mine.send(None)
    assert list(received) == []
