"""Helpers shared by the tournament tests: a small tournament file (as tables or written out), a store read back.

One place says what a test's tournament file holds (:func:`tournament_data`,
the tables :func:`arena.tournament.config.parse_tournament` takes) and one
writes it as TOML (:func:`write_tournament`), so a test that parses tables and
a test that runs ``arena run FILE`` build the same file the same way.
"""

from __future__ import annotations

import json
import re
import sqlite3
import tomllib
from pathlib import Path
from typing import Any, Iterator, Sequence

from arena.runs.store import open_store

#: a bot: its spec (``"random"``, ``"r2=py:arena_bots.random_bot:RandomBot"``), its whole ``[[bots]]`` entry,
#: or that entry as TOML lines (``'spec = "random"'``)
Bot = str | dict[str, Any]


def tournament_data(bots: Sequence[Bot], games: str | Sequence[dict[str, Any]] = "modern-art:3", *,
                    name: str = "cup", seed: int | None = 11, deals: int | None = 2,
                    **settings: Any) -> dict[str, Any]:
    """The tables of a tournament file: ``[tournament]``, ``[[games]]`` and ``[[bots]]``.

    ``games`` is ``"modern-art:3,silk-road:3"`` or the ``[[games]]`` entries
    themselves; ``seed`` or ``deals`` None leaves the key out (a drawn secret,
    the default deals); ``settings`` are more ``[tournament]`` keys
    (``format``, ``rounds``, ...), and a ``limits`` table becomes ``[limits]``.
    """
    limits = settings.pop("limits", None)
    head: dict[str, Any] = {"name": name}
    if seed is not None:
        head["seed"] = seed
    if deals is not None:
        head["deals"] = deals
    head.update(settings)
    data: dict[str, Any] = {"tournament": head, "games": _games(games), "bots": [_bot(bot) for bot in bots]}
    if limits is not None:
        data["limits"] = limits
    return data


def write_tournament(folder: Path, bots: Sequence[Bot], games: str | Sequence[dict[str, Any]] = "modern-art:3",
                     deals: int | None = 2, name: str = "cup", seed: int | None = 11, **settings: Any) -> str:
    """Write :func:`tournament_data` as ``folder/NAME.toml`` and return its path (see there for the arguments)."""
    data = tournament_data(bots, games, name=name, seed=seed, deals=deals, **settings)
    sections = [_table("[tournament]", data["tournament"])]
    sections += [_table("[[games]]", game) for game in data["games"]]
    if "limits" in data:
        sections.append(_table("[limits]", data["limits"]))
    sections += [_table("[[bots]]", bot) for bot in data["bots"]]
    path = folder / f"{name}.toml"
    path.write_text("\n".join(sections))
    return str(path)


def stored_records(folder: Path) -> list[dict]:
    """Every record in a tournament folder's store, in schedule order."""
    store = open_store(str(folder))
    try:
        return [json.loads(record) for record in store.records()]
    finally:
        store.close()


def stored_count(folder: Path) -> int:
    """Games stored so far in a tournament folder, read while a run writes (0 before the store exists)."""
    try:
        db = sqlite3.connect(f"file:{folder / 'results.sqlite'}?mode=ro", uri=True)
        try:
            return db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error:
        return 0


def _games(games: str | Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    if not isinstance(games, str):
        return [dict(game) for game in games]
    entries = []
    for game in games.split(","):
        game_name, players = game.split(":")
        entries.append({"name": game_name, "players": int(players)})
    return entries


def _bot(bot: Bot) -> dict[str, Any]:
    """A ``[[bots]]`` entry from a spec, an entry, or an entry's TOML lines (``key = "..."``: no spec reads so)."""
    if isinstance(bot, dict):
        return dict(bot)
    if re.match(r"\s*[\w-]+\s*=\s*[\"'\[{]", bot):
        return tomllib.loads(bot)
    return {"spec": bot}


def _table(header: str, table: dict[str, Any]) -> str:
    return "".join([f"{header}\n", *(f"{_key(key)} = {_value(value)}\n" for key, value in table.items())])


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _value(value: Any) -> str:
    """A TOML value: strings as basic strings, booleans, numbers, arrays and inline tables."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(key)} = {_value(item)}" for key, item in value.items()) + "}"
    return "[" + ", ".join(_value(item) for item in value) + "]"


def living_processes() -> Iterator[tuple[int, list[str]]]:
    """Every living process (zombies excluded): its id and the fields of its ``/proc/PID/stat`` after its name
    (``[1]`` its parent, ``[3]`` its session)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                yield int(entry.name), fields


def session_processes(session: int) -> list[int]:
    """Processes still alive in a session (zombies excluded): what a stopped run must not leave behind."""
    return [pid for pid, fields in living_processes() if int(fields[3]) == session]
