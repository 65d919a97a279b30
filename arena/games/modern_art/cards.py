"""The material of Modern Art: artists, auction kinds, the card id table, markers and deals.

Cards are numbered 0..69 by artist in board order and, within an artist, by
auction kind in the order open, once_around, sealed, fixed, double
(protocol.md section 3). Inside the engine an artist and a kind are indexes
into :data:`ARTISTS` and :data:`KINDS`; views and events use their names.
"""

from __future__ import annotations

from typing import Any

ARTISTS = ("Lite Metal", "Yoko", "Christin P", "Karl Gitter", "Krypto")
KINDS = ("open", "once_around", "sealed", "fixed", "double")
OPEN, ONCE_AROUND, SEALED, FIXED, DOUBLE = range(len(KINDS))

#: cards per artist and auction kind (rules/modern-art.md, the material table)
DISTRIBUTION = (
    (3, 3, 2, 2, 2),  # Lite Metal, 12
    (3, 2, 3, 3, 2),  # Yoko, 13
    (3, 3, 3, 3, 2),  # Christin P, 14
    (3, 3, 3, 3, 3),  # Karl Gitter, 15
    (4, 3, 3, 3, 3),  # Krypto, 16
)

#: the artist and auction kind of every card id
CARD_ARTIST: tuple[int, ...] = tuple(
    artist for artist, kinds in enumerate(DISTRIBUTION) for kind, count in enumerate(kinds) for _ in range(count)
)
CARD_KIND: tuple[int, ...] = tuple(
    kind for kinds in DISTRIBUTION for kind, count in enumerate(kinds) for _ in range(count)
)
CARD_COUNT = len(CARD_ARTIST)

#: a card as views and events show it; shared, so read-only by convention
CARD_OBJECTS: tuple[dict[str, Any], ...] = tuple(
    {"id": card, "artist": ARTISTS[CARD_ARTIST[card]], "auction": KINDS[CARD_KIND[card]]}
    for card in range(CARD_COUNT)
)

#: the value markers placed each round on the top three artists
MARKERS = (30, 20, 10)
ROUNDS = 4
START_MONEY = 100
#: the fifth card of an artist in a round ends the round
ROUND_ENDING_COUNT = 5

#: cards dealt to each hand at the start of each round, by number of hands
DEALS = {3: (10, 6, 6, 0), 4: (9, 4, 4, 0), 5: (8, 3, 3, 0)}


def card_object(card: int) -> dict[str, Any]:
    """A fresh ``{"id", "artist", "auction"}`` object for a view a bot may modify."""
    return dict(CARD_OBJECTS[card])
