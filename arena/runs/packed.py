"""A finished game as the process that played it hands it over: the stored record, the store's rows, the log line.

The main process of a run receives every game of every worker, so whatever
it does per game bounds the whole run (``benchmarks/scale.py``). Everything
about a game that can be made where it was played is made there, once:

- the record as the store keeps it: its JSON text (``orjson``, exactly the
  text ``arena export`` prints) compressed with zlib (about 1.35 KB for a
  random four-player Modern Art game's 11-12 KB);
- its seats' rows (bot, version, money, rank, fault count) and its faults' rows;
- the run log's "finished" line, formatted as the log formats a record.

The main process only inserts the rows, counts and writes the lines.

A store keeps a record as zlib data (a BLOB) or, when an older arena wrote
it, as JSON text: :func:`record_text` reads both, so stores of either kind,
or of both, read the same.
"""

from __future__ import annotations

import functools
import sys
import time
import zlib
from typing import Any, NamedTuple

import orjson

from arena.runs.logs import LINE_FORMAT, escape_control

#: zlib's level for stored records: level 3 makes a random Modern Art x4 record (11.4 KB of JSON) 1.35 KB in
#: about 42 us of a worker's time, a Silk Road x3 record (8.1 KB) 1.0 KB in 31 us; level 6, the default, 1.18
#: and 0.88 KB but in 75-93 and 52 us (a tenth of a random game's whole time in its worker); levels 1 and 2 save
#: 1-4 us for 4-15% more bytes (issue 26)
LEVEL = 3
#: zlib's memory level for them: 6 (a hash table of 8,192 entries, not the default 8's 32,768) makes the same bytes
#: of a 10-12 KB record, and spares the 64 KB of the table that each compression first clears (some 43,000
#: instructions, 4-5 us, of a record's 310,000-390,000)
MEMORY_LEVEL = 6
#: what :func:`finished_line` writes, as :data:`arena.runs.logs.LINE_FORMAT` formats a record (checked at import)
_LINE = "{time} {process} INFO {game} arena.runs: {message}\n"
assert LINE_FORMAT == "%(asctime)s %(processName)s %(levelname)s %(game)s %(name)s: %(message)s"


class PackedGame(NamedTuple):
    """What a worker made of one finished game for the store and the log."""

    record: bytes  # the record's JSON text, zlib-compressed: what the store keeps
    seats: tuple[tuple[str, str, int, int, int], ...]  # per seat: bot, version, money, rank, faults
    faults: tuple[tuple[int, Any, str, str, str], ...]  # per fault: seat, move, decision, kind, detail
    line: str  # the run log's line for the game, newline included


def compress(record_json: bytes) -> bytes:
    """A record's JSON text as the store keeps it (a zlib stream, as ``zlib.compress`` makes)."""
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, zlib.MAX_WBITS, MEMORY_LEVEL)
    return packer.compress(record_json) + packer.flush()


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
    """The run log's line for a game that ended, as the log would write it had ``worker`` logged it.

    The same text as ``logging.Formatter(LINE_FORMAT)`` gives a record made now (its time, with milliseconds,
    in local time; a worker's name, or this process's), made without a ``LogRecord`` and a formatter: they
    cost 15 us a game, a fortieth of a random game's time in its worker.
    """
    now = time.time()
    whole = int(now)
    message = escape_control("finished in %.3f s: %s" % (
        seconds, ", ".join(f"{name} {money}" for name, money in zip(record["players"], record["result"]["money"]))))
    return _LINE.format(time=f"{_second_text(whole)},{int((now - whole) * 1000):03d}",
                        process=worker or _process_name(), game=game_id, message=message)


@functools.lru_cache(maxsize=4)
def _second_text(second: int) -> str:
    """``second`` (seconds since the epoch) as logging's default time format writes it: the same for the many
    games that end within one second."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(second))


def _process_name() -> str:
    """This process's name as a log record gives it (multiprocessing's name for it, once multiprocessing is
    imported)."""
    process = sys.modules.get("multiprocessing")
    return process.current_process().name if process is not None else "MainProcess"


def pack(game_id: str, record: dict[str, Any], versions: tuple[str, ...], seconds: float,
         worker: str) -> PackedGame:
    """Everything the main process stores and logs of a finished game, made where it was played."""
    return PackedGame(compress(orjson.dumps(record)), seat_rows(record, versions), fault_rows(record),
                      finished_line(game_id, record, seconds, worker))
