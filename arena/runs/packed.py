"""A finished game as the process that played it hands it over: the stored record, the store's rows, the log line.

The main process of a run receives every game of every worker, so whatever
it does per game bounds the whole run (``benchmarks/scale.py``). Everything
about a game that can be made where it was played is made there, once:

- the record as the store keeps it: its JSON text (``orjson``, exactly the
  text ``arena export`` prints) compressed with zlib (about 1.2 KB for a
  random four-player Modern Art game's 11-12 KB);
- its seats' rows (bot, version, money, rank, fault count) and its faults' rows;
- the run log's "finished" line, formatted as the log formats a record.

The main process only inserts the rows, counts and writes the lines.

A store keeps a record as zlib data (a BLOB) or, when an older arena wrote
it, as JSON text: :func:`record_text` reads both, so stores of either kind,
or of both, read the same.
"""

from __future__ import annotations

import logging
import os
import zlib
from typing import Any, NamedTuple

import orjson

from arena.runs.logs import LINE_FORMAT, escape_control

#: zlib's level for stored records: level 6 makes a random Modern Art record 1.2 KB in about 50 us
#: (level 1: 1.6 KB in 30 us; level 9: 1.15 KB in 100 us)
LEVEL = 6
_FORMATTER = logging.Formatter(LINE_FORMAT)


class PackedGame(NamedTuple):
    """What a worker made of one finished game for the store and the log."""

    record: bytes  # the record's JSON text, zlib-compressed: what the store keeps
    seats: tuple[tuple[str, str, int, int, int], ...]  # per seat: bot, version, money, rank, faults
    faults: tuple[tuple[int, Any, str, str, str], ...]  # per fault: seat, move, decision, kind, detail
    line: str  # the run log's line for the game, newline included


def compress(record_json: bytes) -> bytes:
    """A record's JSON text as the store keeps it."""
    return zlib.compress(record_json, LEVEL)


def record_text(stored: str | bytes) -> str:
    """The JSON text of a record as a store holds it (zlib data, or the text itself in an older store)."""
    if isinstance(stored, str):
        return stored
    return zlib.decompress(stored).decode("utf-8")


def seat_rows(record: dict[str, Any], versions: tuple[str, ...]) -> tuple[tuple[str, str, int, int, int], ...]:
    """Per seat of ``record``: its bot, its version (``versions`` by seat, or none), money, rank and faults."""
    players = record["players"]
    fault_count = [0] * len(players)
    for fault in record["faults"]:
        fault_count[fault["seat"]] += 1
    result = record["result"]
    by_seat = versions or ("",) * len(players)
    return tuple((bot, by_seat[seat], money, rank, fault_count[seat])
                 for seat, (bot, money, rank) in enumerate(zip(players, result["money"], result["ranks"])))


def fault_rows(record: dict[str, Any]) -> tuple[tuple[int, Any, str, str, str], ...]:
    """Per fault of ``record``: its seat, move, decision, kind and detail (as text)."""
    return tuple((fault["seat"], fault["move"], fault["decision"], fault["kind"], str(fault["detail"]))
                 for fault in record["faults"])


def finished_line(game_id: str, record: dict[str, Any], seconds: float, worker: str) -> str:
    """The run log's line for a game that ended, as the log would write it had ``worker`` logged it."""
    line = logging.LogRecord("arena.runs", logging.INFO, __file__, 0, "finished in %.3f s: %s", (
        seconds, ", ".join(f"{name} {money}" for name, money in zip(record["players"], record["result"]["money"]))),
        None)
    line.msg = escape_control(line.getMessage())
    line.args = None
    line.processName = worker or line.processName
    line.process = os.getpid()
    line.game = game_id
    return _FORMATTER.format(line) + "\n"


def pack(game_id: str, record: dict[str, Any], versions: tuple[str, ...], seconds: float,
         worker: str) -> PackedGame:
    """Everything the main process stores and logs of a finished game, made where it was played."""
    return PackedGame(compress(orjson.dumps(record)), seat_rows(record, versions), fault_rows(record),
                      finished_line(game_id, record, seconds, worker))
