"""One event vocabulary for both games, and records stored before it still replay and draw.

Both games name an event's kind with ``type`` and end with ``game_end``
(docs/protocol.md). The two records in tests/records/ were played by arena
before Silk Road's events were renamed (from ``kind`` and ``end``); records
hold setups and moves, not events, so they replay exactly and their replay
pages are drawn from the events rebuilt in the new words.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.replay import replay_checked
from arena.report.replay_page import replay_frames

RECORDS = Path(__file__).parent / "records"
OLD_RECORDS = sorted(RECORDS.glob("*-before-event-rename.json"))


@pytest.mark.parametrize("game_name, players", [("modern-art", 3), ("silk-road", 3)])
def test_every_event_is_named_by_type_and_the_game_ends_with_game_end(plugins, game_name, players):
    game = plugins.game(game_name)
    options = game.check_options(players, {})
    state = game.new_state(game.random_setup(players, options, random.Random(4)), options)
    while state.seat is not None:
        state.apply(state.default_action())
    events = [event for _, event in state.log]
    assert all("type" in event and "kind" not in event for event in events)
    assert events[-1]["type"] == "game_end" and events[-1]["money"] == state.money()


@pytest.mark.parametrize("path", OLD_RECORDS, ids=lambda path: path.stem)
def test_a_record_stored_before_the_rename_replays_and_draws(plugins, path):
    record = json.loads(path.read_text(encoding="utf-8"))
    assert replay_checked(record, plugins) == []
    frames = replay_frames(record, plugins)["frames"]
    assert len(frames) == len(record["moves"]) + 1
    last = frames[-1]["events"][-1]
    assert "game ends" in last and ": {" not in last  # the describer's words, not a raw event dump


def test_both_old_records_are_kept():
    assert [path.name for path in OLD_RECORDS] == ["modern-art-before-event-rename.json",
                                                   "silk-road-before-event-rename.json"]
