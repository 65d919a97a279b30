"""Replaying game records through the engine, decision by decision."""

from __future__ import annotations

import json
from typing import Any, Callable, Iterator, TextIO

from arena.errors import ActionError, ArenaError, RecordError
from arena.games.base import Game, GameState
from arena.plugins import Plugins


#: the most text one record (a line of JSON lines) or one whole JSON document may hold; a game record is tens of KB
MAX_TEXT = 256 * 2**20


def read_records(stream: TextIO, where: str) -> Iterator[Any]:
    """Records from a stream holding one JSON record, a JSON list, or JSON lines (read a line at a time).

    JSON lines are read one record at a time, so an export of any size replays
    in little memory; a record or list spread over several lines is read whole,
    up to :data:`MAX_TEXT`. What is not JSON, not UTF-8 or too long is a
    :class:`RecordError` naming ``where`` and the line.
    """
    seen: list[str] = []  # the lines read before the first record: a document spread over lines starts there
    number = found = 0
    while line := _line(stream, where, number + 1):
        number += 1
        if not line.strip():
            seen.append(line)
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            if found:
                raise RecordError(f"{where}, line {number}: not JSON ({error.msg})") from None
            yield from _whole(seen + [line], stream, where)
            return
        found += 1
        if isinstance(value, list) and found == 1:
            yield from value
        else:
            yield value
    if not found:
        raise RecordError(f"{where}: no game record in it")


def _line(stream: TextIO, where: str, number: int) -> str:
    try:
        line = stream.readline(MAX_TEXT + 1)
    except UnicodeDecodeError as error:
        raise RecordError(f"{where}, line {number}: not UTF-8 text ({error.reason}); expected JSON game records") \
            from None
    if len(line) > MAX_TEXT:
        raise RecordError(f"{where}, line {number}: longer than {MAX_TEXT // 2**20} MB; expected JSON game records")
    return line


def _whole(lines: list[str], stream: TextIO, where: str) -> Iterator[Any]:
    """The records of one JSON document (a record or a list) that starts with ``lines`` and runs to the end."""
    text = "".join(lines)
    while len(text) <= MAX_TEXT and (line := _line(stream, where, text.count("\n") + 1)):
        text += line
    if len(text) > MAX_TEXT:
        raise RecordError(f"{where}: a JSON document longer than {MAX_TEXT // 2**20} MB; write the records "
                          "as JSON lines (what `arena export` prints)")
    try:
        whole = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(f"{where}, line {error.lineno}: not JSON ({error.msg})") from None
    if isinstance(whole, list):
        yield from whole
    else:
        yield whole


#: the keys a record must have: name, JSON type, the type as the error names it
RECORD_KEYS: tuple[tuple[str, type, str], ...] = (
    ("game", str, "a game name"), ("setup", dict, "a JSON object"), ("moves", list, "a JSON list"),
    ("result", dict, "a JSON object"),
)


def rebuild(record: dict[str, Any], plugins: Plugins) -> tuple[Game, dict[str, Any], GameState]:
    """The game, its checked options and the initial state of a record."""
    name = record.get("id", "?")
    for key, kind, expected in RECORD_KEYS:
        if key not in record:
            raise RecordError(f"record {name}: missing key {key!r}")
        if not isinstance(record[key], kind):
            raise RecordError(f"record {name}: {key}: expected {expected}, got {json.dumps(record[key])[:80]}")
    options = record.get("options") or {}
    if not isinstance(options, dict):
        raise RecordError(f"record {name}: options: expected a JSON object, got {json.dumps(options)[:80]}")
    setup = record["setup"]
    players = setup.get("players")
    if not isinstance(players, int) or isinstance(players, bool):
        raise RecordError(f"record {name}: setup.players: expected the number of players, got {json.dumps(players)}")
    for index, move in enumerate(record["moves"]):
        if not isinstance(move, dict):
            raise RecordError(f"record {name}: move {index}: expected a JSON object, got {json.dumps(move)[:80]}")
    game = plugins.game(record["game"])
    options = game.check_options(players, options)
    game.check_setup(setup, options)
    return game, options, game.new_state(setup, options)


def replay(record: dict[str, Any], plugins: Plugins,
           observe: Callable[[GameState, dict[str, Any] | None], None] | None = None) -> tuple[list[str], GameState]:
    """Replay ``record``; the differences found (empty when it replays exactly) and the final state.

    ``observe(state, move)``, when given, sees the initial state (``move`` None)
    and the state after each recorded move (the replay viewer draws its frames so).
    """
    game, options, state = rebuild(record, plugins)
    problems: list[str] = []
    if observe is not None:
        observe(state, None)
    name = record.get("id", "?")
    for index, move in enumerate(record["moves"]):
        if state.seat is None:
            problems.append(f"{name}: move {index}: the game was already over")
            return problems, state
        if move.get("seat") != state.seat or move.get("decision") != state.decision:
            problems.append(
                f"{name}: move {index}: record has seat {move.get('seat')} {move.get('decision')}, "
                f"engine asks seat {state.seat} {state.decision}"
            )
            return problems, state
        try:
            state.apply(move.get("action"))
        except ActionError as error:
            problems.append(f"{name}: move {index}: {error}")
            return problems, state
        if observe is not None:
            observe(state, move)
    if state.seat is not None:
        problems.append(f"{name}: the record ends but the engine still asks seat {state.seat} {state.decision}")
        return problems, state
    result = state.result()
    if result != record["result"]:
        problems.append(f"{name}: result differs: record {record['result']}, engine {result}")
    return problems, state


def replay_checked(record: dict[str, Any], plugins: Plugins) -> list[str]:
    """Like :func:`replay`, but a record the engine cannot even start is one difference too."""
    try:
        return replay(record, plugins)[0]
    except ArenaError as error:
        return [f"{record.get('id', '?')}: {error}"]
