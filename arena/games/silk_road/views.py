"""What one seat may know: its view of the state (every key is listed in docs/games/silk-road.md).

A view shows the seat's own hand and everything public: every player's money,
hand size, ships and special cards; the market's top cards and the ids of the
cards covered under them (a list that grows to dozens, so ids rather than card
objects keep views and messages small); the goods markers and special cards
left in supply; the deck's size. It never shows another hand or the deck's order. It holds
enough to rebuild a full state consistent with it (``determinize``).

The state imports this module (``SilkRoadState.view``); this module reads the
state's fields and imports only the card table, so imports go one way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arena.games.silk_road.cards import CARD_GOOD_NAMES, GOODS

if TYPE_CHECKING:  # for the annotations only: the state imports this module
    from arena.games.silk_road.state import SilkRoadState

#: a ship's cargo as views show it: a good's name, or None while it waits to be loaded
CARGO_NAMES = GOODS + (None,)
#: a seat's ships (a tuple of cargo indices, replaced when one changes) as views name them, made once per tuple
#: while recent: a random Silk Road game builds some 20 views of three seats' ships, which change a few times a
#: game (a tenth of a view's instructions)
_NAMED_SHIPS: dict[tuple[int, ...], tuple[str | None, ...]] = {}
#: the most tuples :data:`_NAMED_SHIPS` keeps (all of up to four ships, 2,800, fit)
_NAMED_MOST = 4096


def _named_ships(ships: tuple[int, ...]) -> tuple[str | None, ...]:
    """``ships``' cargo names, noted in :data:`_NAMED_SHIPS` (emptied when full)."""
    if len(_NAMED_SHIPS) >= _NAMED_MOST:
        _NAMED_SHIPS.clear()
    named = _NAMED_SHIPS[ships] = tuple(map(CARGO_NAMES.__getitem__, ships))
    return named
# build_view spells the goods out in this order (quicker than zipping with GOODS)
assert GOODS == ("porcelain", "silk", "tea", "spice", "glass", "ore")


def build_view(state: SilkRoadState, seat: int) -> dict[str, Any]:
    """The view of ``seat`` (JSON-compatible, freshly built: the bot may keep or change it)."""
    names = CARD_GOOD_NAMES
    named = _NAMED_SHIPS.get
    porcelain, silk, tea, spice, glass, ore = state.markers
    return {
        "seat": seat,
        "phase": state.phase,
        "to_move": state.seat,
        "first": state.first,
        "hand": [{"id": card, "good": names[card]} for card in state.hands[seat]],
        "players": [
            {
                "money": money,
                "hand_size": len(hand),
                "ships": list(named(ships) or _named_ships(ships)),  # (a fresh list: the bot may change it)
                "license": licenses,
                "porter": porters,
                "exchange": exchanges,
            }
            for money, hand, ships, licenses, porters, exchanges in zip(
                state.coins, state.hands, state.ships, state.licenses, state.porters, state.exchanges
            )
        ],
        "market": [None if card is None else {"id": card, "good": names[card]} for card in state.market],
        "covered": state.covered[:],
        "absent": list(state.absent),
        # spelled out rather than zipped with GOODS: views are built often, and this is quicker
        "markers": {"porcelain": porcelain, "silk": silk, "tea": tea, "spice": spice, "glass": glass, "ore": ore},
        "supply": state.supply.copy(),
        "deck": len(state.deck),
    }
