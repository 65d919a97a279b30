"""The results store moved to :mod:`arena.runs.store` (one store for every command); these names stay importable here.

NOTE TO EVERY ENGINEER: do not add queries here. Add them as ``Store`` methods
in arena/runs/store.py. Schema 2: games(row, key, id, game, table_label TEXT
(e.g. "t1"), deal, rotation, current = schedule order, or NULL for history
that is out of the standings, record, finished); seats(row, seat, game, bot,
version, money, rank, faults); faults(row, seat, move, decision, kind, detail).
Join seats to games on ``row`` and keep ``current IS NOT NULL``.
"""

from __future__ import annotations

from typing import Iterator

from arena.runs.store import STORE_FILE, SeatRow, Store, create_or_open, open_store, remove_store, store_path

__all__ = ["STORE_FILE", "SeatRow", "Store", "create_or_open", "open_store", "remove_store", "store_path",
           "stored_record", "selected_records", "seats_with_blocks", "game_index", "seats_by_game", "fault_kinds"]


def game_index(store: Store) -> list[tuple[int, str, str, str, int, int]]:
    return store.game_index()


def seats_by_game(store: Store) -> dict[int, list[tuple[str, int, int, int]]]:
    return store.seats_by_game()


def fault_kinds(store: Store) -> dict[str, dict[str, int]]:
    return store.fault_kinds()


def seats_with_blocks(store: Store, game: str) -> list[tuple[int, str, int, str, int, int, int]]:
    """Seats of ``game`` with their table and deal (:meth:`Store.seats_with_blocks`)."""
    return store.seats_with_blocks(game)


def stored_record(store: Store, game_id: str) -> str | None:
    """The record (JSON text) of the game with this id, or None (:meth:`Store.record`)."""
    return store.record(game_id)


def selected_records(store: Store, games: tuple[str, ...] = (), bots: tuple[str, ...] = (),
                     ids: tuple[str, ...] = ()) -> Iterator[str]:
    """Current records filtered by game, seated bot and id (:meth:`Store.records`)."""
    return store.records(games, bots, ids)
