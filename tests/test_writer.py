"""The store writer's process: batches that wait for it are stored together, each answered, in order."""

from __future__ import annotations

import multiprocessing
import pickle
import threading
import time

from arena.runs import writer


def _batch(*games: int) -> tuple[list[tuple[int]], list[bytes]]:
    """A batch as the main process sends it: no rows as they are, one piece pickled by a worker."""
    return [], [pickle.dumps([(game,) for game in games])]


def send(conn, batch) -> None:
    """``batch`` (rows, pieces) sent down ``conn`` as the main process sends it to the writer."""
    writer.send_batch(conn, *batch)


def test_batches_already_waiting_are_stored_in_one_transaction_in_order():
    mine, theirs = multiprocessing.Pipe()
    for batch in (_batch(1, 2), _batch(3), ([(4,)], [pickle.dumps([(5,)])])):
        send(mine, batch)
    mine.send(None)
    assert list(writer._received(theirs)) == [([(1,), (2,), (3,), (4,), (5,)], 3)]


def test_a_transaction_gathers_batches_up_to_its_sizes_and_a_stop_ends_the_wait(monkeypatch):
    monkeypatch.setattr(writer, "MERGED_GAMES", 3)
    monkeypatch.setattr(writer, "GATHER_GAMES", 2)
    monkeypatch.setattr(writer, "GATHER_SECONDS", 30.0)
    mine, theirs = multiprocessing.Pipe()
    for batch in (_batch(1, 2), _batch(3), _batch(4), _batch(5)):
        send(mine, batch)
    received = writer._received(theirs)
    assert next(received) == ([(1,), (2,), (3,)], 2)  # full: the batches behind wait for the next transaction
    assert next(received) == ([(4,), (5,)], 2)  # enough gathered: nothing more is waited for
    send(mine, _batch(6))
    later = threading.Timer(0.05, send, [mine, _batch(7)])  # under GATHER_GAMES: the writer waits for it
    later.start()
    assert next(received) == ([(6,), (7,)], 2)
    later.join()
    send(mine, _batch(8))
    mine.send(None)  # the run stops: what was gathered is stored at once, the stop ends the batches
    began = time.monotonic()
    assert list(received) == [([(8,)], 1)]
    assert time.monotonic() - began < 10  # not the 30 s a transaction may wait to be gathered


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
