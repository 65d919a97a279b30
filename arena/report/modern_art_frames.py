"""How the replay page draws Modern Art: the lot on auction, the bids, the value board, the payouts.

Everything comes from the seats' views and the log's events (their keys are
listed in docs/games/modern-art.md), never from the engine's internals. The
lot and its bids are followed through the events, because the view forgets
an auction as soon as it is sold.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import LogEntry
from arena.games.modern_art.cards import ARTISTS, ROUNDS
from arena.report.describe import Describer, event_words

#: an artist's colour on its cards, and a readable text colour on it
PALETTE = {
    "Lite Metal": ["#f0c419", "#1d232b"],
    "Yoko": ["#3c9a48", "#ffffff"],
    "Christin P": ["#d4553a", "#ffffff"],
    "Karl Gitter": ["#3a6fc4", "#ffffff"],
    "Krypto": ["#8e5bb5", "#ffffff"],
}
KIND_WORDS = {"open": "open", "once_around": "once around", "sealed": "sealed", "fixed": "fixed price",
              "double": "double"}


class ModernArtDescriber(Describer):
    """Draws one Modern Art game, frame by frame (see :mod:`arena.report.describe`)."""

    palette = PALETTE

    def __init__(self, players: list[str], options: dict[str, Any]) -> None:
        super().__init__(players, options)
        #: the lot being (or last) auctioned: cards, auctioneer, kind, bids (in words), outcome
        self.lot: dict[str, Any] | None = None
        #: each finished round's payouts row, and its ranking
        self.rounds: list[list[Any]] = []
        #: every card id seen so far (events carry ids alone in sales)
        self.known: dict[int, dict[str, Any]] = {}

    # -- words --

    def action_text(self, decision: str, action: dict[str, Any]) -> str:
        if decision in ("play_card", "add_double"):
            chosen = action.get("card")
            if chosen is None:
                return "adds no card"
            known = self.known.get(chosen)
            return f"card {chosen}" + (f" ({known['artist']}, {KIND_WORDS[known['auction']]})" if known else "")
        if decision in ("bid", "sealed_bid"):
            return "pass" if action.get("bid") is None else f"bid {action['bid']}"
        if decision == "set_price":
            return f"price {action.get('price')}"
        if decision == "accept_price":
            return "accept" if action.get("accept") else "decline"
        if decision == "flip_phantom":
            return "flip the phantom card" if action.get("flip") else "do not flip"
        return super().action_text(decision, action)

    def event_text(self, event: dict[str, Any]) -> str:
        kind = event.get("type")
        if isinstance(event.get("card"), dict):
            self.known[event["card"]["id"]] = event["card"]
        if kind == "round_start":
            dealt = ", ".join(str(count) for count in event["dealt"])
            phantom = f", {event['phantom_dealt']} to the phantom pile" if event["phantom_dealt"] else ""
            return (f"Round {event['round']} begins with {self.name(event['starter'])}: cards dealt by seat "
                    f"{dealt}{phantom}; {event['deck_size']} left in the deck")
        if kind == "hand_dealt":
            for view in event["cards"]:
                self.known[view["id"]] = view
            listed = ", ".join(f"{view['artist']} {KIND_WORDS[view['auction']]}" for view in event["cards"])
            return f"dealt for round {event['round']}: {listed}"
        if kind == "play":
            return f"{self.name(event['seat'])} plays {self._card_words(event['card'])}"
        if kind == "double_added":
            return f"{self.name(event['seat'])} adds {self._card_words(event['card'])} to the double"
        if kind == "bid":
            return f"{self.name(event['seat'])} bids {event['bid']}"
        if kind == "pass":
            return f"{self.name(event['seat'])} passes"
        if kind == "sealed_bid":
            return f"{self.name(event['seat'])} seals a bid of {event['bid']}"
        if kind == "reveal":
            return "sealed bids revealed: " + ", ".join(
                f"{self.name(seat)} {bid}" for seat, bid in enumerate(event["bids"]))
        if kind == "price":
            return f"{self.name(event['seat'])} sets the price at {event['price']}"
        if kind == "decline":
            return f"{self.name(event['seat'])} declines"
        if kind == "sale":
            return self._sale_words(event)
        if kind == "flip":
            return f"{self.name(event['seat'])} flips the phantom card {self._card_words(event['card'])}"
        if kind == "round_end":
            ranking = ", ".join(f"{artist} +{event['markers'][artist]}" for artist in event["ranking"]) or "none"
            payouts = ", ".join(f"{self.name(seat)} {amount}" for seat, amount in enumerate(event["payouts"]))
            return (f"Round {event['round']} ends ({event['reason']}): markers {ranking}; "
                    f"paintings sold to the bank: {payouts}")
        if kind == "game_end":
            return "The game ends: money " + ", ".join(
                f"{self.name(seat)} {money}" for seat, money in enumerate(event["money"]))
        return event_words(event)

    def _card_words(self, view: dict[str, Any]) -> str:
        return f"{view['artist']} ({KIND_WORDS.get(view['auction'], view['auction'])}, card {view['id']})"

    def _sale_words(self, event: dict[str, Any]) -> str:
        buyer = self.name(event["buyer"])
        if event["price"] == 0:
            return f"{buyer} takes the lot free"
        paid = "; ".join(f"{self.name(payment['to'])} receives {payment['amount']}" for payment in event["payments"])
        return f"{buyer} buys the lot for {event['price']}: {paid}"

    # -- following the lot --

    def _follow(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "round_end":
            if self.lot is not None and self.lot["outcome"] == "bidding":
                self.lot["outcome"] = "not auctioned: its card ended the round"
            self.rounds.append([event["round"], ", ".join(event["ranking"]) or "none", *event["payouts"]])
        elif kind == "play":
            self.lot = {"cards": [event["card"]], "auctioneer": event["seat"], "kind": event["card"]["auction"],
                        "bids": [], "outcome": "bidding"}
        elif self.lot is None:
            return
        elif kind == "double_added":
            self.lot["cards"].append(event["card"])
            self.lot["kind"] = event["card"]["auction"]
            self.lot["auctioneer"] = event["seat"]
        elif kind in ("bid", "pass", "decline", "price", "sealed_bid", "reveal"):
            self.lot["bids"].append(self.event_text(event))
        elif kind == "sale":
            self.lot["outcome"] = self._sale_words(event)

    # -- the board --

    def cards(self, views: list[dict[str, Any]]) -> dict[str, Any]:
        """Paintings as chips in their artist's colour, labelled with artist and auction kind."""
        return self.chips.cell([
            (view["id"], f"{view['artist']} · {KIND_WORDS.get(view['auction'], view['auction'])}",
             view["artist"], f"card {view['id']}") for view in views])

    def seat_columns(self, views: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
        bought = views[0]["bought"]
        rows = [[self.cards(view["hand"]), self.cards(bought[seat])] for seat, view in enumerate(views)]
        return ["hand (omniscient)", "paintings bought this round"], rows

    def panels(self, views: list[dict[str, Any]], fresh: list[LogEntry]) -> list[dict[str, Any]]:
        for _, event in fresh:
            self._follow(event)
        public = views[0]
        panels = [self._lot_panel(), self._artists_panel(public), self._payouts_panel(len(views))]
        panels.append({
            "title": "Deck",
            "head": ["round", "deck", "phantom pile"],
            "rows": [[f"{min(public['round'], ROUNDS)} of {ROUNDS}", public["deck_size"], public["phantom_size"]]],
        })
        return panels

    def _lot_panel(self) -> dict[str, Any]:
        if self.lot is None:
            return {"title": "Lot on auction", "rows": [["no card played yet"]]}
        lot = self.lot
        rows = [["cards", self.cards(lot["cards"])],
                ["auction", KIND_WORDS.get(lot["kind"], lot["kind"])],
                ["auctioneer", self.name(lot["auctioneer"])],
                ["bids", " · ".join(lot["bids"]) or "none yet"],
                ["outcome", lot["outcome"]]]
        return {"title": "Lot on auction", "rows": rows}

    def _artists_panel(self, public: dict[str, Any]) -> dict[str, Any]:
        rows = []
        for artist in ARTISTS:
            markers = public["markers"][artist]
            rows.append([self.chips.cell([(artist, artist, artist, artist)]), public["counts"][artist],
                         *(value or "" for value in markers), sum(markers)])
        return {
            "title": "Artists: cards played this round and the value board",
            "head": ["artist", "played this round", *(f"round {number}" for number in range(1, ROUNDS + 1)),
                     "sum of markers"],
            "rows": rows,
            "note": "A painting sells for its artist's sum of markers, if the artist is in this round's top three.",
        }

    def _payouts_panel(self, players: int) -> dict[str, Any]:
        return {
            "title": "Each round's payouts",
            "head": ["round", "ranking", *(self.name(seat) for seat in range(players))],
            "rows": list(self.rounds) or [["none yet", "", *([""] * players)]],
        }
