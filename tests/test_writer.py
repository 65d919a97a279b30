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


def test_a_batch_of_many_games_stores_every_seat_in_its_place(tmp_path):
    """Seats go in statements of many rows (64 a statement): 50 games of four seats cross that size twice."""
    from arena.runs.packed import compress
    from arena.runs.store import create_or_open

    store = create_or_open(str(tmp_path), {"name": "t", "kind": "tournament", "definition": {}, "plan": {},
                                           "total": 50})
    rows = [((f"key{order}", f"t/g/d{order}", "modern-art", "t1", order, 0, order, compress(b"{}"), "1"),
             tuple((f"bot{(order + seat) % 6}", "v", 10 * seat + order, 1 + (order + seat) % 4, seat % 2)
                   for seat in range(4)), ())
            for order in range(50)]
    try:
        store.add_rows(rows[:1])
        store.add_rows(rows[1:])
        stored = store.seat_results()
    finally:
        store.close()
    assert sorted(stored) == list(range(50))
    for order, (_, seats, _) in enumerate(rows):
        assert stored[order] == [(bot, money, rank, faults) for bot, _, money, rank, faults in seats]
