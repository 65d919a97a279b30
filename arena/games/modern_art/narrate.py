"""The readable account of a Modern Art game, built from its full event log.

One line per auction (the card or cards, the kind, the bids, who bought for
how much and who was paid), a heading per round, and each round's counts,
ranking, values and payouts. ``arena play`` prints it; the final money and
ranks are printed by the CLI itself.
"""

from __future__ import annotations

from typing import Any

from arena.games.base import LogEntry, seat_names


def _card(card: dict[str, Any]) -> str:
    return f"{card['artist']} #{card['id']} ({card['auction'].replace('_', ' ')})"


class _Account:
    """Collects the lines; ``current`` is the auction line being written."""

    def __init__(self, names: list[str]) -> None:
        # the same bot often plays several seats: then its seat number tells them apart
        self.names = seat_names(names)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.bids: list[str] = []
        self.declines: list[str] = []

    def name(self, seat: int | None) -> str:
        return "the bank" if seat is None else self.names[seat]

    def flush(self) -> None:
        if self.current:
            self.lines.append("  " + "; ".join(self.current) + ".")
        self.current, self.bids, self.declines = [], [], []

    def close_bids(self) -> None:
        if self.bids:
            self.current.append("bids " + ", ".join(self.bids))
            self.bids = []
        if self.declines:
            self.current.append("declined by " + ", ".join(self.declines))
            self.declines = []

    def on_round_start(self, event: dict[str, Any]) -> None:
        self.flush()
        dealt = event["dealt"]
        if not any(dealt) and not event["phantom_dealt"]:
            cards = "no cards"
        elif len(set(dealt)) == 1:
            cards = f"{dealt[0]} cards to each player"
        else:
            cards = ", ".join(f"{count} to {self.name(seat)}" for seat, count in enumerate(dealt))
        if event["phantom_dealt"]:
            cards += f", {event['phantom_dealt']} to the phantom pile"
        self.lines.append(f"Round {event['round']} (starts with {self.name(event['starter'])}): "
                          f"dealt {cards}; {event['deck_size']} cards left in the deck.")

    def on_play(self, event: dict[str, Any]) -> None:
        self.flush()
        self.current.append(f"{self.name(event['seat'])} plays {_card(event['card'])}")

    def on_double_added(self, event: dict[str, Any]) -> None:
        self.current.append(f"{self.name(event['seat'])} adds {_card(event['card'])}")

    def on_bid(self, event: dict[str, Any]) -> None:
        self.bids.append(f"{self.name(event['seat'])} {event['bid']}")

    def on_decline(self, event: dict[str, Any]) -> None:
        self.declines.append(self.name(event["seat"]))

    def on_reveal(self, event: dict[str, Any]) -> None:
        bids = ", ".join(f"{self.name(seat)} {bid}" for seat, bid in enumerate(event["bids"]))
        self.current.append(f"sealed bids {bids}")

    def on_price(self, event: dict[str, Any]) -> None:
        self.current.append(f"{self.name(event['seat'])} asks {event['price']}")

    def on_sale(self, event: dict[str, Any]) -> None:
        self.close_bids()
        buyer = self.name(event["buyer"])
        lot = "both" if len(event["cards"]) == 2 else "it"
        if not event["payments"]:
            how = "free" if event["price"] == 0 else f"for {event['price']}"
            self.current.append(f"{buyer} takes {lot} {how}")
            return
        paid = " and ".join(f"{payment['amount']} to {self.name(payment['to'])}" for payment in event["payments"])
        self.current.append(f"{buyer} buys {lot} for {event['price']} (paid {paid})")

    def on_flip(self, event: dict[str, Any]) -> None:
        self.current.append(f"{self.name(event['seat'])} turns over the phantom card {_card(event['card'])}")

    def on_round_end(self, event: dict[str, Any]) -> None:
        if self.current:
            self.current.append("the round ends")
        self.flush()
        counts = ", ".join(f"{artist} {count}" for artist, count in event["counts"].items() if count)
        if event["reason"] == "no cards":
            self.lines.append(f"Round {event['round']} ends at once: every hand is empty; it scores nothing.")
            return
        if event["reason"] == "fifth card":
            artist = next(artist for artist, count in event["counts"].items() if count == 5)
            why = f"the fifth {artist} card, from {self.name(event['ended_by'])}"
        else:
            why = f"the last card in any hand, from {self.name(event['ended_by'])}"
        self.lines.append(f"Round {event['round']} ends with {why} (not auctioned). Cards played: {counts}.")
        markers = ", ".join(f"{artist} {marker}" for artist, marker in event["markers"].items())
        values = ", ".join(f"{artist} {event['values'][artist]}" for artist in event["ranking"])
        self.lines.append(f"  Markers: {markers}. Paintings sell for: {values}; others for nothing.")
        payouts = ", ".join(f"{self.name(seat)} {amount}" for seat, amount in enumerate(event["payouts"]))
        self.lines.append(f"  Paid by the bank: {payouts}.")

    def on_game_end(self, event: dict[str, Any]) -> None:
        self.flush()
        self.lines.append("Game over after round 4.")


def narrate(log: list[LogEntry], names: list[str]) -> list[str]:
    """The account of the public events of ``log`` (``(audience, event)`` pairs), one line per line."""
    account = _Account(names)
    for audience, event in log:
        if audience is None:
            handler = getattr(account, "on_" + event["type"], None)
            if handler is not None:
                handler(event)
    account.flush()
    return account.lines
