"""Replaying game records through the engine, decision by decision."""

from __future__ import annotations

import json
from typing import Any, Callable, Iterator, TextIO

from arena.errors import ActionError, ArenaError, RecordError
from arena.games.base import Game, GameState
from arena.plugins import Plugins


def read_records(stream: TextIO, where: str) -> Iterator[dict[str, Any]]:
    """Records from a file holding one JSON record, a JSON list, or JSON lines."""
    try:
        text = stream.read()
    except UnicodeDecodeError as error:
        raise RecordError(f"{where}: not UTF-8 text (byte {error.start}); expected JSON game records") from None
    stripped = text.strip()
    if not stripped:
        raise RecordError(f"{where}: no game record in it")
    try:
        whole = json.loads(stripped)
    except ValueError:
        whole = None
    if isinstance(whole, dict):
        yield whole
        return
    if isinstance(whole, list):
        yield from whole
        return
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                yield json.loads(line)
            except json.JSONDecodeError as error:
                raise RecordError(f"{where}, line {number}: not JSON ({error.msg})") from None


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
