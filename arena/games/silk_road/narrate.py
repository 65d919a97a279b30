"""The readable account of a game that ``arena play`` prints, built from the full event log.

One line for the setup, one for the loading round, then one line per turn:
what the player did in phase 1 (swaps, a purchase), its delivery with the
income it paid every player (or its draw), and any extra draws. The CLI
prints the final money after it.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import LogEntry, seat_names


def _goods_of(cards: list[dict[str, Any] | None]) -> str:
    return ", ".join("-" if card is None else card["good"] for card in cards)


def narrate(log: list[LogEntry], players: list[str]) -> list[str]:
    names = seat_names(players)
    lines: list[str] = []
    loads: list[str] = []
    turn = 0
    parts: list[str] = []
    header = ""

    def flush() -> None:
        if parts:
            lines.append(f"{header}{'; '.join(parts)}.")
            parts.clear()

    for audience, event in log:
        if audience is not None:
            continue
        kind = event["type"]
        seat: Any = event.get("seat")
        if kind == "setup":
            lines.append(f"Setup: {event['players']} players, {names[event['first']]} first; "
                         f"market {_goods_of(event['market'])}; {event['deck']} cards in the deck; "
                         f"money {', '.join(map(str, event['money']))}.")
        elif kind == "load" and not turn:
            loads.append(f"{names[seat]} {event['good']}")
        elif kind in ("pass", "swap", "buy"):
            if loads:
                lines.append(f"Loading: {', '.join(loads)}.")
                loads.clear()
            flush()
            turn += 1
            header = f"Turn {turn}, {names[seat]}: "
            if kind == "swap":
                parts.append("swaps " + ", ".join(
                    f"ship {swap['ship']} {swap['from']} -> {swap['good']}" for swap in event["swaps"]))
            elif kind == "buy":
                parts.append(f"buys {'an' if event['card'] == 'exchange' else 'a'} {event['card']} "
                             f"for {event['cost']}")
        elif kind == "load":
            parts.append(f"loads ship {event['ship']} with {event['good']}")
        elif kind == "deliver":
            paid = [f"{names[other]} +{coins}" for other, coins in enumerate(event["income"]) if coins]
            slots = ", ".join(map(str, event["slots"]))
            count = len(event["cards"])
            parts.append(f"delivers {count} {event['good']} (slot{'s' if count > 1 else ''} {slots}), "
                         f"{event['showing']} showing: {', '.join(paid) if paid else 'no income'}")
        elif kind == "draw":
            parts.append(f"draws {event['count']} (deck {event['deck']})")
        elif kind == "extra_draw" and event["count"]:
            parts.append(f"draws {event['count']} extra (deck {event['deck']})")
        elif kind == "game_end":
            if loads:
                lines.append(f"Loading: {', '.join(loads)}.")
            flush()
            lines.append("The deck is empty: the game is over." if turn else
                         "The deck is empty from the start: the game is over.")
    flush()
    return lines
