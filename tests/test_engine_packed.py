"""What a worker packs of a finished game reads as before (issue 26's cheaper packing).

The run log's "finished" line is now written without a ``LogRecord``: it must
stay the text the log's formatter gives, character for character (the log is
read by people and by tools); and a stored record, now compressed at a faster
zlib level, must still give back the record's JSON text within issue 26's
size (3 KB a random Modern Art game).
"""

from __future__ import annotations

import logging
import os
import random

import orjson
import pytest

from arena.match import InProcessBot, derive_seed, play_game
from arena.plugins import get_plugins
from arena.runs import packed
from arena.runs.logs import LINE_FORMAT, escape_control

#: a moment with milliseconds whose float value is not exact (``.999`` rounding is logging's to make)
MOMENTS = (1_764_900_000.0, 1_764_900_000.5, 1_764_903_599.9996, 1_764_908_123.047)


def logged_line(game_id: str, record: dict, seconds: float, worker: str) -> str:
    """The line as the log's own formatter writes a record of it (what :func:`packed.finished_line` replaces)."""
    line = logging.LogRecord("arena.runs", logging.INFO, __file__, 0, "finished in %.3f s: %s", (
        seconds, ", ".join(f"{name} {money}" for name, money in zip(record["players"], record["result"]["money"]))),
        None)
    line.msg = escape_control(line.getMessage())
    line.args = None
    line.processName = worker or line.processName
    line.process = os.getpid()
    line.game = game_id  # type: ignore[attr-defined]
    return logging.Formatter(LINE_FORMAT).format(line) + "\n"


@pytest.mark.parametrize("moment", MOMENTS)
@pytest.mark.parametrize("worker", ["", "ForkProcess-2"])
@pytest.mark.parametrize("players", [["random", "b2"], ["ev\x1b[31mil", "tab\there", "bell\x07"]],
                         ids=["plain", "control characters"])
def test_the_finished_line_is_the_text_the_log_formatter_writes(monkeypatch, moment, worker, players):
    monkeypatch.setattr("time.time", lambda: moment)
    record = {"players": players, "result": {"money": [12, 7, 0][:len(players)], "ranks": [1, 2, 3][:len(players)]}}
    made = packed.finished_line("t/modern-art/3/1", record, 0.0123456, worker)
    assert made == logged_line("t/modern-art/3/1", record, 0.0123456, worker)
    assert made.endswith("\n")


def test_a_stored_random_modern_art_game_reads_back_and_stays_under_3_kb():
    plugins = get_plugins()
    game = plugins.game("modern-art")
    options = game.check_options(4, {})
    factory = plugins.bot("random").factory
    sizes = []
    for number in range(20):
        seed = derive_seed("packed", number)
        record = play_game(game, options, game.random_setup(4, options, random.Random(seed)),
                           [InProcessBot(factory) for _ in range(4)], ["a", "b", "c", "d"], game_id=f"g{number}",
                           seed=seed, bot_seeds=[derive_seed(seed, seat) for seat in range(4)])
        text = orjson.dumps(record)
        stored = packed.pack(f"g{number}", record, (), 0.001, "w").record
        assert packed.record_text(stored) == text.decode()
        sizes.append(len(stored))
    assert max(sizes) <= 3000, sizes
