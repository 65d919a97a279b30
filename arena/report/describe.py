"""What a game's describer gives the replay page, and the describer of a game arena does not know.

A describer is made per record with ``(players, options)`` and answers:

- ``palette``: colour name -> ``[background, text colour]`` for its cards;
- ``chips``: a :class:`Chips` table of every card drawn, written once per page
  (cells name cards by key, so a frame stays small);
- ``action_text(decision, action)``: a recorded action in words;
- ``event_text(event)``: one log event in words;
- ``seat_columns(views)``: extra column titles, and per seat their cells
  (the page adds seat, bot and money itself);
- ``panels(views, fresh)``: the board as panels ``{"title", "head"?, "rows",
  "note"?, "highlight"? (a row index)}``, from every seat's view and the log
  entries of this step. It is called once per step, in order, so it may
  follow the game through the events (an auction's bids, past deliveries).

A cell is text, a number, ``{"text", "class"}``, or ``{"cards": [chip keys], "text"?}``.
The base class is the describer of a game without one of its own: its
events in JSON words and seat 0's public view as a table.
"""

from __future__ import annotations

import json
from typing import Any

from arena.games.base import LogEntry

PRIVATE_KEYS = ("seat", "hand")


class Chips(dict[str, Any]):
    """Chip key -> ``[label, palette name, tooltip]``: the cards a page draws, each stored once."""

    def cell(self, chips: list[tuple[Any, str, str, str]], text: str = "") -> dict[str, Any]:
        """A cell of cards given as ``(key, label, palette name, tooltip)``; registers each key."""
        for key, label, kind, title in chips:
            if key not in self:
                self[key] = [label, kind, title]
        keys = [key for key, *_ in chips]
        return {"cards": keys, "text": text} if text else {"cards": keys}


def words(value: Any) -> str:
    """A dict as ``key value, key value`` (``{"bid": 12}`` -> ``bid 12``); anything else as JSON."""
    if not isinstance(value, dict):
        return json.dumps(value)
    return ", ".join(f"{key} {json.dumps(item)}" for key, item in value.items()) or "-"


def event_words(event: Any) -> str:
    """An event as its kind followed by its other keys (``deal: seat 1, cards [...]``)."""
    if not isinstance(event, dict):
        return json.dumps(event)
    rest = {key: value for key, value in event.items() if key not in ("kind", "type")}
    return f"{event.get('kind') or event.get('type') or 'event'}: {words(rest)}"


class Describer:
    """Draws a game frame by frame; subclasses draw their own game's board."""

    palette: dict[str, Any] = {}

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        self.players = players
        self.chips = Chips()

    def name(self, seat: int | None) -> str:
        """``seat 2 (greedy)``; the bank for no seat."""
        if seat is None:
            return "the bank"
        return f"seat {seat} ({self.players[seat]})" if 0 <= seat < len(self.players) else f"seat {seat}"

    def action_text(self, decision: str, action: Any) -> str:
        return words(action)

    def event_text(self, event: Any) -> str:
        return event_words(event)

    def seat_columns(self, views: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
        return ["hand"], [[json.dumps(view.get("hand")) if isinstance(view, dict) else ""] for view in views]

    def panels(self, views: list[dict[str, Any]], fresh: list[LogEntry]) -> list[dict[str, Any]]:
        public = views[0] if views and isinstance(views[0], dict) else {}
        rows = [[key, json.dumps(value)] for key, value in public.items() if key not in PRIVATE_KEYS]
        return [{"title": "Table (seat 0's view, hand left out)", "head": ["key", "value"], "rows": rows}]
