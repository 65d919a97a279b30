"""The replay page: one self-contained HTML file that steps through one game.

The record is replayed through its engine (:func:`arena.replay.replay`), and
after the deal and after every recorded move a *frame* is taken: what happened
(every event of the log, private ones included), every seat's money and hand,
and the game's board, drawn by the game's describer (``modern_art_frames``,
``silk_road_frames``; another game gets the plain :class:`Describer`). The
frames are embedded in the page as JSON and a small script (``replay.js``)
shows one at a time, stepped with buttons, the arrow keys and a slider. The
final result and the faults are plain HTML, readable without JavaScript.
"""

from __future__ import annotations

import json
from html import escape
from importlib.resources import files
from typing import Any

from arena.errors import RecordError
from arena.games.base import GameState, LogEntry
from arena.plugins import Plugins
from arena.replay import replay
from arena.report.describe import Describer
from arena.report.markup import Cell, link, page, table, write_text
from arena.report.modern_art_frames import ModernArtDescriber
from arena.report.silk_road_frames import SilkRoadDescriber

SCRIPT = files("arena.report").joinpath("replay.js").read_text(encoding="utf-8")
DESCRIBERS: dict[str, type[Describer]] = {"modern-art": ModernArtDescriber, "silk-road": SilkRoadDescriber}


def replay_frames(record: dict[str, Any], plugins: Plugins) -> dict[str, Any]:
    """``{"palette", "chips", "frames"}`` of ``record``: one frame for the deal and one per move.

    Raises :class:`RecordError` when the record does not replay exactly: a
    viewer must never show a game other than the one recorded.
    """
    describer = DESCRIBERS.get(record.get("game", ""), Describer)(record.get("players") or [],
                                                                 record.get("options") or {})
    faults = {fault["move"]: fault for fault in record.get("faults") or [] if fault.get("move") is not None}
    frames: list[dict[str, Any]] = []
    seen = [0]

    def observe(state: GameState, move: dict[str, Any] | None) -> None:
        fresh = state.log[seen[0]:]
        seen[0] = len(state.log)
        fault = None if move is None else faults.get(len(frames) - 1)
        frames.append(_frame(describer, state, move, len(frames), fresh, fault))

    problems, _ = replay(record, plugins, observe=observe)
    if problems:
        raise RecordError(f"cannot draw the replay: {problems[0]}")
    return {"palette": describer.palette, "chips": describer.chips, "frames": frames}


def _frame(describer: Describer, state: GameState, move: dict[str, Any] | None, number: int, fresh: list[LogEntry],
           fault: dict[str, Any] | None) -> dict[str, Any]:
    """Frame ``number``: the state after move ``number`` (the deal for 0), with this step's log entries."""
    if move is None:
        label = "The deal: the game as it begins"
    else:
        label = (f"Move {number}: {describer.name(move['seat'])} {move['decision']}: "
                 f"{describer.action_text(move['decision'], move['action'])}")
        if fault is not None:
            label += f" (the default, after a {fault['kind']} fault)"
    if state.seat is None:
        upcoming = "The game is over."
    else:
        upcoming = f"Next: {describer.name(state.seat)} to {state.decision}."
    events = []
    for audience, event in fresh:
        text = describer.event_text(event)
        events.append(text if audience is None else f"(only {describer.name(audience)} sees) {text}")
    views = [state.view(seat) for seat in range(state.players)]
    head, columns = describer.seat_columns(views)
    money = state.money()
    names = describer.players
    seats = {
        "title": "Players",
        "head": ["seat", "bot", "money", *head],
        "rows": [[seat, names[seat] if seat < len(names) else "?", {"text": money[seat], "class": "money"},
                  *columns[seat]] for seat in range(state.players)],
        "highlight": state.seat,
    }
    return {"label": label, "next": upcoming, "events": events,
            "panels": [seats, *describer.panels(views, fresh)]}


def replay_page(record: dict[str, Any], plugins: Plugins, back: tuple[str, str] | None = None) -> str:
    """The replay page of ``record`` as HTML; ``back`` is an optional ``(href, text)`` link up."""
    data = replay_frames(record, plugins)
    game = plugins.game(record["game"])
    title = f"{getattr(game, 'title', record['game'])}: {record.get('id', 'game')}"
    players = ", ".join(f"{seat}: {name}" for seat, name in enumerate(record["players"]))
    options = json.dumps(record.get("options") or {}, sort_keys=True)
    parts = []
    if back:
        parts.append(f'<nav class="site">{link(*back)}</nav>')
    parts.append(f"<h1>{escape(title)}</h1>")
    parts.append(
        '<p class="banner"><strong>This replay is omniscient.</strong> It shows every player\'s hand and '
        "private cards at every step: more than any player could see during the game.</p>"
    )
    parts.append(f'<p class="muted">Seats {escape(players)} · seed {escape(str(record.get("seed")))} · '
                 f"options {escape(options)} · {len(record['moves'])} recorded decisions</p>")
    parts.append(
        "<noscript><p class=\"banner\">Stepping through the game needs JavaScript; "
        "the final result and the faults are below.</p></noscript>"
    )
    parts.append(
        '<div id="viewer" hidden>\n<nav id="controls" aria-label="replay controls">'
        '<button id="first" title="first step (Home)">« first</button>'
        '<button id="prev" title="previous step (←)">◀ previous</button>'
        '<input id="slider" type="range" min="0" value="0" aria-label="step">'
        '<button id="next" title="next step (→)">next ▶</button>'
        '<button id="last" title="last step (End)">last »</button>'
        '<span id="position"></span></nav>\n'
        '<p class="muted">Keys: ← and → step, Home and End jump to the deal and the end.</p>\n'
        '<div id="frame"></div>\n</div>'
    )
    parts.append(_final(record))
    payload = json.dumps({**data, "frames": unchanged_as_zero(data["frames"])},
                         separators=(",", ":")).replace("</", "<\\/")
    parts.append(f'<script type="application/json" id="replay-data">{payload}</script>')
    return page(f"Replay {title}", "\n".join(parts), SCRIPT)


def unchanged_as_zero(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames with each panel, or panel row, equal to the previous frame's written as 0.

    Most of a step leaves most of the board as it was; the viewer takes a 0
    from the frame before, which makes a page about three times smaller.
    """
    shrunk: list[dict[str, Any]] = []
    before: list[dict[str, Any]] = []
    for frame in frames:
        panels: list[dict[str, Any] | int] = []
        for index, panel in enumerate(frame["panels"]):
            old = before[index] if index < len(before) else {"rows": []}
            if panel == old:
                panels.append(0)
                continue
            rows = [0 if number < len(old["rows"]) and row == old["rows"][number] else row
                    for number, row in enumerate(panel["rows"])]
            panels.append({**panel, "rows": rows})
        shrunk.append({**frame, "panels": panels})
        before = frame["panels"]
    return shrunk


def _final(record: dict[str, Any]) -> str:
    result = record["result"]
    rows = sorted(
        ([rank, seat, name, Cell(money, "money")] for seat, (name, money, rank)
         in enumerate(zip(record["players"], result["money"], result["ranks"]))),
        key=lambda row: (row[0], row[1]),
    )
    parts = ['<details id="final"><summary>The final result and the faults (open to see how it ends)</summary>',
             "<h2>Final result</h2>", table(["rank", "seat", "bot", "money"], rows, css_id="final-result"),
             "<h2>Faults</h2>"]
    faults = record.get("faults") or []
    if faults:
        parts.append(table(
            ["seat", "bot", "move (step)", "decision", "kind", "detail"],
            ([fault["seat"], record["players"][fault["seat"]], "start" if fault["move"] is None else fault["move"] + 1,
              fault["decision"], fault["kind"], fault["detail"]] for fault in faults),
        ))
    else:
        parts.append("<p>None: every bot answered every decision in time and within the rules.</p>")
    parts.append("</details>")
    return "\n".join(parts)


def write_replay_page(record: dict[str, Any], plugins: Plugins, path: Any, back: tuple[str, str] | None = None) -> None:
    """Write :func:`replay_page` to ``path`` (UTF-8); :class:`ReportError` when the file cannot be written."""
    text = replay_page(record, plugins, back)
    write_text(path, text)
