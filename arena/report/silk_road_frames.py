"""How the replay page draws Maritime Silk Road: the market, ships, special cards, deliveries.

Everything comes from the seats' views and the log's events (their keys are
listed in docs/games/silk-road.md), never from the engine's internals.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import LogEntry
from arena.games.silk_road.cards import GOODS, SPECIALS
from arena.report.describe import Describer, event_words

#: the goods' colours in the rules (porcelain white, silk purple, tea green, spice yellow, glass red, ore black)
PALETTE = {
    "porcelain": ["#f4f2ec", "#1d232b"],
    "silk": ["#7b4ea3", "#ffffff"],
    "tea": ["#3f8f47", "#ffffff"],
    "spice": ["#e6c13f", "#1d232b"],
    "glass": ["#c23b36", "#ffffff"],
    "ore": ["#2e2e2e", "#ffffff"],
}
#: how many past deliveries the board lists
DELIVERIES_SHOWN = 6


class SilkRoadDescriber(Describer):
    """Draws one Silk Road game, frame by frame (see :mod:`arena.report.describe`)."""

    palette = PALETTE

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        super().__init__(players, options)
        #: every delivery so far, newest first, as rows of the deliveries panel
        self.deliveries: list[list[Any]] = []

    # -- words --

    def action_text(self, decision: str, action: dict[str, Any]) -> str:
        if decision == "load_ship":
            return f"load {action.get('good')}"
        if decision == "phase1":
            if action.get("action") == "swap":
                swaps = ", ".join(f"ship {swap['ship']} to {swap['good']}" for swap in action.get("swaps", []))
                return f"swap {swaps}"
            if action.get("action") == "buy":
                return f"buy a {action.get('card')}"
            return "pass"
        if decision == "phase2":
            if action.get("action") == "play":
                ids = ", ".join(map(str, action.get("cards", [])))
                slots = ", ".join(map(str, action.get("slots", [])))
                return f"deliver cards {ids} onto slots {slots}"
            return "draw"
        if decision == "extra_draw":
            return f"draw {action.get('count')} extra"
        return super().action_text(decision, action)

    def event_text(self, event: dict[str, Any]) -> str:
        kind = event.get("type")
        if kind == "setup":
            market = ", ".join("empty" if top is None else top["good"] for top in event["market"])
            return (f"Setup: {event['players']} players, {self.name(event['first'])} starts; "
                    f"market {market}; deck {event['deck']} cards")
        if kind in ("deal", "drawn"):
            verb = "is dealt" if kind == "deal" else "draws"
            listed = ", ".join(f"{view['good']} {view['id']}" for view in event["cards"])
            return f"{self.name(event['seat'])} {verb} {listed}"
        if kind == "load":
            return f"{self.name(event['seat'])} loads ship {event['ship']} with {event['good']}"
        if kind == "pass":
            return f"{self.name(event['seat'])} passes phase 1"
        if kind == "swap":
            swaps = ", ".join(f"ship {swap['ship']} from {swap['from']} to {swap['good']}" for swap in event["swaps"])
            return f"{self.name(event['seat'])} swaps {swaps}"
        if kind == "buy":
            return f"{self.name(event['seat'])} buys a {event['card']} for {event['cost']}"
        if kind == "deliver":
            paid = ", ".join(f"{self.name(seat)} +{pay}" for seat, pay in enumerate(event["income"]) if pay) or "nobody"
            return (f"{self.name(event['seat'])} delivers {len(event['cards'])} {event['good']} onto slots "
                    f"{', '.join(map(str, event['slots']))}: {event['good']} shows in {event['showing']} slots; "
                    f"income {paid}")
        if kind in ("draw", "extra_draw"):
            extra = " extra" if kind == "extra_draw" else ""
            return f"{self.name(event['seat'])} draws {event['count']}{extra} (deck: {event['deck']} left)"
        if kind == "game_end":
            money = ", ".join(f"{self.name(seat)} {coins}" for seat, coins in enumerate(event["money"]))
            return f"The deck is empty: the game ends. Money: {money}"
        return event_words(event)

    # -- the board --

    def cards(self, views: list[dict[str, Any]]) -> dict[str, Any]:
        """Goods cards as chips in their good's colour (the card id in the tooltip)."""
        return self.chips.cell([(view["id"], view["good"], view["good"], f"card {view['id']}") for view in views])

    def goods(self, names: list[str], text: str = "") -> dict[str, Any]:
        """Goods (a ship's cargo, a row of the goods table) as chips."""
        return self.chips.cell([(name, name, name, name) for name in names], text)

    def seat_columns(self, views: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
        table = views[0]["players"]
        rows = []
        for seat, view in enumerate(views):
            mine = table[seat]
            ships = self.goods([good for good in mine["ships"] if good is not None],
                               f"+ {mine['ships'].count(None)} waiting to load" if None in mine["ships"] else "")
            specials = ", ".join(f"{mine[kind]} {kind}" for kind in SPECIALS[1:] if mine[kind]) or "none"
            rows.append([self.cards(view["hand"]), ships, specials])
        return ["hand (omniscient)", "ships' goods (ship 0 first)", "special cards"], rows

    def panels(self, views: list[dict[str, Any]], fresh: list[LogEntry]) -> list[dict[str, Any]]:
        public = views[0]
        for _, event in fresh:
            if event.get("type") == "deliver":
                paid = ", ".join(f"seat {seat} +{pay}" for seat, pay in enumerate(event["income"]) if pay)
                self.deliveries.insert(0, [self.name(event["seat"]), self.cards(event["cards"]),
                                           ", ".join(map(str, event["slots"])), event["showing"], paid or "nobody"])
        market = {
            "title": "Market",
            "head": [f"slot {slot}" for slot in range(len(public["market"]))],
            "rows": [[self.cards([top]) if top else "empty" for top in public["market"]]],
            "note": f"{len(public['covered'])} cards covered so far.",
        }
        goods = {
            "title": "Goods",
            "head": ["good", "slots showing", "markers left", *(f"ships of seat {seat}" for seat in range(len(views)))],
            "rows": [
                [self.goods([good]),
                 sum(1 for top in public["market"] if top and top["good"] == good),
                 public["markers"][good],
                 *(player["ships"].count(good) for player in public["players"])]
                for good in GOODS
            ],
            "note": "A delivery pays each player (slots showing the good) x (its ships carrying it), "
                    "+2 per license when it pays.",
        }
        supply = {
            "title": "Supply",
            "head": ["special card", "left"],
            "rows": [[kind, public["supply"][kind]] for kind in SPECIALS] + [["deck (goods cards)", public["deck"]]],
        }
        deliveries = {
            "title": "Deliveries, newest first",
            "head": ["by", "cards", "slots", "showing", "incomes"],
            "rows": self.deliveries[:DELIVERIES_SHOWN] or [["none yet", "", "", "", ""]],
        }
        return [market, supply, goods, deliveries]
