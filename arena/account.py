"""The readable account of one game: what ``arena play`` prints and ``arena show`` prints again.

The account is the game's own narration of its full log (``game.narrate``:
every auction or delivery, each scoring), then the faults and the final money
and ranks. A stored record holds no log, so :func:`record_account` replays the
record through the engine to get it back, exactly as it was played.
"""

from __future__ import annotations

from typing import Any

from arena.errors import RecordError
from arena.games.base import Game, LogEntry
from arena.plugins import Plugins
from arena.replay import replay


def format_faults(record: dict[str, Any]) -> str:
    """The faults of a record as lines ("Faults: none" when there were none)."""
    if not record["faults"]:
        return "Faults: none"
    lines = [f"Faults: {len(record['faults'])}"]
    for fault in record["faults"]:
        move = "start" if fault["move"] is None else f"move {fault['move']}"
        lines.append(f"  seat {fault['seat']} ({record['players'][fault['seat']]}), {move}, "
                     f"{fault['decision']}: {fault['kind']}: {fault['detail']}")
    return "\n".join(lines)


def format_result(record: dict[str, Any]) -> str:
    """The final money and ranks as a table."""
    from tabulate import tabulate  # with wcwidth, about 30 ms: not at every command's start (this module is)

    rows = sorted(
        ([rank, seat, name, money] for seat, (name, money, rank) in
         enumerate(zip(record["players"], record["result"]["money"], record["result"]["ranks"]))),
    )
    return "Final result:\n" + tabulate(rows, headers=["rank", "seat", "bot", "money"])


def account(game: Game, log: list[LogEntry], record: dict[str, Any]) -> list[str]:
    """The account of a game as lines, from its final state's log and its record."""
    return [*game.narrate(log, list(record["players"])), format_faults(record), format_result(record)]


def record_account(record: dict[str, Any], plugins: Plugins) -> list[str]:
    """The account of a stored record, its log rebuilt by replaying it; :class:`RecordError` if it does not replay."""
    problems, state = replay(record, plugins)
    if problems:
        raise RecordError(f"cannot tell game {record.get('id')}: it does not replay exactly ({problems[0]})")
    return account(plugins.game(record["game"]), state.log, record)
