"""Helpers shared by the tournament tests: write a small tournament file, read back a store."""

from __future__ import annotations

import json
from pathlib import Path

from arena.runs.store import open_store


def write_tournament(folder: Path, bot_lines: list[str], games: str, deals: int = 2, name: str = "cup",
                     seed: int = 11) -> str:
    """Write ``folder/NAME.toml``; ``games`` is ``"modern-art:3,silk-road:3"``, each bot a TOML body line."""
    lines = [f'[tournament]\nname = "{name}"\nseed = {seed}\ndeals = {deals}\n']
    for game in games.split(","):
        game_name, players = game.split(":")
        lines.append(f'[[games]]\nname = "{game_name}"\nplayers = {players}\n')
    lines += [f"[[bots]]\n{bot}\n" for bot in bot_lines]
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines))
    return str(path)


def stored_records(folder: Path) -> list[dict]:
    """Every record in a tournament folder's store, in schedule order."""
    store = open_store(str(folder))
    try:
        return [json.loads(record) for record in store.records()]
    finally:
        store.close()
