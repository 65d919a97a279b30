"""What a bot writes cannot flood the runner, its log or a terminal: capped, batched, escaped."""

from __future__ import annotations

import logging
import sys
import time

import pytest
from click.testing import CliRunner

from conftest import BOTS, KINDS, honest, play
from arena.cli import cli
from arena.sandbox.output import STDERR_GAME_LIMIT, STDERR_TAIL


@pytest.mark.parametrize("kind", ["cmd", "py"])
@pytest.mark.parametrize("what", ["text", "newlines"])
def test_a_stderr_flood_is_capped_per_game_batched_in_the_log_and_delays_nothing(kind, what, caplog):
    control, _ = play([KINDS[kind]("none"), honest()])
    began = time.perf_counter()
    with caplog.at_level(logging.INFO, logger="arena.bot"):
        record, texts = play([KINDS[kind]("flood", what, "4"), honest()])  # 4 MiB at every decision
    took = time.perf_counter() - began
    assert record["faults"] == [] and record["moves"] == control["moves"]
    logged = [r.getMessage() for r in caplog.records if r.name == "arena.bot.attacker"]
    assert len(logged) < 100, f"{len(logged)} log records"
    assert sum(len(message) for message in logged) <= 2 * STDERR_GAME_LIMIT
    assert any("more bytes dropped" in message for message in logged)
    assert len(texts[0]) <= STDERR_TAIL
    assert took < 60, f"the flooded game took {took:.0f} s"


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_terminal_escapes_from_a_bot_reach_neither_the_record_the_log_nor_the_terminal(kind, caplog):
    with caplog.at_level(logging.INFO, logger="arena"):
        record, _ = play([KINDS[kind]("escape"), honest()])
    crash = [fault for fault in record["faults"] if fault["seat"] == 0]
    assert crash and crash[0]["kind"] == "crash"
    assert "\\x1b[31mRED" in crash[0]["detail"] and "\x1b" not in crash[0]["detail"]
    for entry in caplog.records:
        message = entry.getMessage()
        assert "\x1b" not in message and "\r" not in message and "\u202e" not in message and "\x07" not in message
    assert any("\\x1b" in entry.getMessage() for entry in caplog.records if entry.name == "arena.bot.attacker")


def test_arena_play_prints_no_escape_sequence_from_a_bot():
    spec = f"attacker=cmd:{sys.executable} {BOTS / 'hostile.py'} escape"
    result = CliRunner().invoke(cli, ["play", "silk-road", "-b", spec, "-b", "random", "--seed", "3"])
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output and "\\x1b" in result.output
