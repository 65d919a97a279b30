"""Modern Art's rules, one table row per rule case of rules/modern-art.md.

Each row names the rule, starts from a small hand-written setup, plays the
scripted decisions (asserting at every step which seat is asked what) and
checks what a player would check: money, the paintings bought, the counts and
markers on the board, the cards dealt, and who plays next. Moves a seat is not
asked for (a single legal action) are absent from the scripts, as they are
from game records.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from arena.games.modern_art.cards import ARTISTS, CARD_ARTIST, CARD_KIND, KINDS
from arena.games.modern_art.game import ModernArt

LM, YO, CP, KG, KR = ARTISTS


def card(artist: str, kind: str, index: int = 0) -> int:
    """The id of the ``index``-th card of ``artist`` with auction ``kind``."""
    ids = [c for c in range(70) if ARTISTS[CARD_ARTIST[c]] == artist and KINDS[CARD_KIND[c]] == kind]
    return ids[index]


KR_OPEN = [card(KR, "open", i) for i in range(4)]
KR_ONCE = [card(KR, "once_around", i) for i in range(3)]
KR_SEALED = card(KR, "sealed")
KR_FIXED = card(KR, "fixed")
KR_DOUBLE = card(KR, "double")
LM_OPEN = [card(LM, "open", i) for i in range(3)]
YO_OPEN = [card(YO, "open", i) for i in range(3)]
CP_OPEN = [card(CP, "open", i) for i in range(3)]
KG_OPEN = [card(KG, "open", i) for i in range(3)]


class Case(NamedTuple):
    rule: str
    setup: dict
    moves: list  # (seat, decision, action) in the order the engine asks
    expect: dict
    options: dict = {}


def setup(hands, money=None, first=0, deck=(), phantom=None) -> dict:
    result = {"players": len(hands), "hands": hands, "deck": list(deck), "first": first}
    if money is not None:
        result["money"] = money
    if phantom is not None:
        result["phantom"] = phantom
    return result


# three players, two cards each of artists that cannot reach five: seat 0 auctions hands[0][0]
def table3(lot: int, money=None, **more) -> dict:
    return setup([[lot, LM_OPEN[0]], [YO_OPEN[0], YO_OPEN[1]], [CP_OPEN[0], CP_OPEN[1]]], money, **more)


# four players for doubles: seat 0 plays the double, seats 1 and 2 hold a Krypto card each
def double4(second: int, money=None) -> dict:
    return setup([[KR_DOUBLE, LM_OPEN[0]], [KR_OPEN[0], YO_OPEN[0]], [second, CP_OPEN[0]],
                  [KG_OPEN[0], KG_OPEN[1]]], money)


def bid(n):
    return {"bid": n}


PLAY0 = lambda lot: (0, "play_card", {"card": lot})  # noqa: E731 - a table shorthand

BROKE = [0, 0, 0]
# five cards of one artist per round, played in this order by a lone seat; from round 2 it has
# money and passes in its own auctions (the fifth card of each round is not auctioned)
FOUR_ROUNDS = [*range(54, 59), *range(39, 44), *range(12, 17), *range(25, 30)]
FOUR_ROUNDS_MOVES = [
    move
    for index, lot in enumerate(FOUR_ROUNDS)
    for move in [(0, "play_card", {"card": lot})] + [(0, "bid", {"bid": None})] * (index >= 5 and index % 5 != 4)
]

CASES = [
    # -- open auction --
    Case("open: seats bid clockwise from the auctioneer's left; the highest bid buys and pays the auctioneer",
         table3(KR_OPEN[0]),
         [PLAY0(KR_OPEN[0]), (1, "bid", bid(10)), (2, "bid", bid(20)), (0, "bid", bid(None)),
          (1, "bid", bid(30)), (2, "bid", bid(None)), (0, "bid", bid(None))],
         {"money": [130, 70, 100], "bought": [[], [KR_OPEN[0]], []], "next": (1, "play_card")}),
    Case("open: a pass is not final; the auction ends when all but the high bidder passed since the last raise",
         table3(KR_OPEN[0]),
         [PLAY0(KR_OPEN[0]), (1, "bid", bid(None)), (2, "bid", bid(10)), (0, "bid", bid(None)),
          (1, "bid", bid(15)), (2, "bid", bid(None)), (0, "bid", bid(None))],
         {"money": [115, 85, 100], "bought": [[], [KR_OPEN[0]], []]}),
    Case("open: the bid asked is above the high bid and at most the seat's money",
         table3(KR_OPEN[0], money=[100, 60, 100]),
         [PLAY0(KR_OPEN[0]), (1, "bid", bid(10))],
         {"next": (2, "bid"), "legal": {"min": 11, "max": 100}}),
    Case("open: with no bid at all every seat passes once and the auctioneer takes the painting free",
         table3(KR_OPEN[0]),
         [PLAY0(KR_OPEN[0]), (1, "bid", bid(None)), (2, "bid", bid(None)), (0, "bid", bid(None))],
         {"money": [100, 100, 100], "bought": [[KR_OPEN[0]], [], []], "next": (1, "play_card")}),
    Case("open: the auctioneer may bid too; when it wins it pays the bank",
         table3(KR_OPEN[0]),
         [PLAY0(KR_OPEN[0]), (1, "bid", bid(10)), (2, "bid", bid(None)), (0, "bid", bid(20)),
          (1, "bid", bid(None)), (2, "bid", bid(None))],
         {"money": [80, 100, 100], "bought": [[KR_OPEN[0]], [], []]}),
    Case("only real choices: a seat that cannot raise (min above its money) passes without being asked",
         table3(KR_OPEN[0], money=[100, 15, 100]),
         [PLAY0(KR_OPEN[0]), (1, "bid", bid(15)), (2, "bid", bid(20)), (0, "bid", bid(None))],
         {"money": [120, 15, 80], "bought": [[], [], [KR_OPEN[0]]], "next": (1, "play_card")}),
    # -- once around --
    Case("once around: each seat once, clockwise from the auctioneer's left, the auctioneer last",
         table3(KR_ONCE[0]),
         [PLAY0(KR_ONCE[0]), (1, "bid", bid(10)), (2, "bid", bid(25)), (0, "bid", bid(None))],
         {"money": [125, 100, 75], "bought": [[], [], [KR_ONCE[0]]], "next": (1, "play_card")}),
    Case("once around: the auctioneer, last, may outbid; it pays the bank",
         table3(KR_ONCE[0]),
         [PLAY0(KR_ONCE[0]), (1, "bid", bid(10)), (2, "bid", bid(None)), (0, "bid", bid(11))],
         {"money": [89, 100, 100], "bought": [[KR_ONCE[0]], [], []]}),
    Case("once around: nobody bids, the auctioneer takes it free",
         table3(KR_ONCE[0]),
         [PLAY0(KR_ONCE[0]), (1, "bid", bid(None)), (2, "bid", bid(None)), (0, "bid", bid(None))],
         {"money": [100, 100, 100], "bought": [[KR_ONCE[0]], [], []]}),
    # -- sealed --
    Case("sealed: every seat offers secretly, the auctioneer included; the highest pays the auctioneer",
         table3(KR_SEALED),
         [PLAY0(KR_SEALED), (1, "sealed_bid", bid(10)), (2, "sealed_bid", bid(30)), (0, "sealed_bid", bid(20))],
         {"money": [130, 100, 70], "bought": [[], [], [KR_SEALED]], "next": (1, "play_card")}),
    Case("sealed: a tie that includes the auctioneer goes to the auctioneer, who pays the bank",
         table3(KR_SEALED),
         [PLAY0(KR_SEALED), (1, "sealed_bid", bid(30)), (2, "sealed_bid", bid(10)), (0, "sealed_bid", bid(30))],
         {"money": [70, 100, 100], "bought": [[KR_SEALED], [], []]}),
    Case("sealed: other ties go to the tied seat nearest clockwise from the auctioneer",
         setup([[LM_OPEN[0], LM_OPEN[1]], [YO_OPEN[0], YO_OPEN[1]], [KR_SEALED, CP_OPEN[0]],
                [KG_OPEN[0], KG_OPEN[1]]], first=2),
         [(2, "play_card", {"card": KR_SEALED}), (3, "sealed_bid", bid(5)), (0, "sealed_bid", bid(30)),
          (1, "sealed_bid", bid(30)), (2, "sealed_bid", bid(10))],
         {"money": [70, 100, 130, 100], "bought": [[KR_SEALED], [], [], []], "next": (3, "play_card")}),
    Case("only real choices: a seat with no money is not asked for a sealed bid; it offers 0",
         table3(KR_SEALED, money=[100, 0, 100]),
         [PLAY0(KR_SEALED), (2, "sealed_bid", bid(10)), (0, "sealed_bid", bid(5))],
         {"money": [110, 0, 90], "bought": [[], [], [KR_SEALED]]}),
    Case('sealed: {"bid": null} counts as 0; with no offer the auctioneer takes it free',
         table3(KR_SEALED),
         [PLAY0(KR_SEALED), (1, "sealed_bid", bid(None)), (2, "sealed_bid", bid(0)), (0, "sealed_bid", bid(0))],
         {"money": [100, 100, 100], "bought": [[KR_SEALED], [], []]}),
    # -- fixed price --
    Case("fixed: the auctioneer names 1..its money; clockwise from its left the first to accept buys",
         table3(KR_FIXED),
         [PLAY0(KR_FIXED), (0, "set_price", {"price": 40}), (1, "accept_price", {"accept": False}),
          (2, "accept_price", {"accept": True})],
         {"money": [140, 100, 60], "bought": [[], [], [KR_FIXED]], "next": (1, "play_card")}),
    Case("fixed: the price asked is from 1 to the auctioneer's money",
         table3(KR_FIXED, money=[70, 100, 100]),
         [PLAY0(KR_FIXED)],
         {"next": (0, "set_price"), "legal": {"min": 1, "max": 70}}),
    Case("fixed: if all decline the auctioneer must buy at its price, paying the bank",
         table3(KR_FIXED),
         [PLAY0(KR_FIXED), (0, "set_price", {"price": 40}), (1, "accept_price", {"accept": False}),
          (2, "accept_price", {"accept": False})],
         {"money": [60, 100, 100], "bought": [[KR_FIXED], [], []], "next": (1, "play_card")}),
    Case("only real choices: a fixed price above a seat's money is declined without asking",
         table3(KR_FIXED, money=[100, 30, 100]),
         [PLAY0(KR_FIXED), (0, "set_price", {"price": 40}), (2, "accept_price", {"accept": True})],
         {"money": [140, 30, 60], "bought": [[], [], [KR_FIXED]]}),
    Case("only real choices: an auctioneer with no money names 0 unasked; anyone may accept 0",
         table3(KR_FIXED, money=[0, 100, 100]),
         [PLAY0(KR_FIXED), (1, "accept_price", {"accept": True})],
         {"money": [0, 100, 100], "bought": [[], [KR_FIXED], []]}),
    Case("only real choices: an auctioneer with 1 names 1 unasked",
         table3(KR_FIXED, money=[1, 100, 100]),
         [PLAY0(KR_FIXED)],
         {"next": (1, "accept_price"), "legal": {"price": 1}}),
    # -- the double --
    Case("double: its owner adds a second card first; both sell as one lot under the second card's kind",
         setup([[KR_DOUBLE, KR_OPEN[0], LM_OPEN[0]], [YO_OPEN[0], YO_OPEN[1]], [CP_OPEN[0], CP_OPEN[1]]]),
         [PLAY0(KR_DOUBLE), (0, "add_double", {"card": KR_OPEN[0]}), (1, "bid", bid(10)),
          (2, "bid", bid(None)), (0, "bid", bid(None))],
         {"money": [110, 90, 100], "bought": [[], [KR_DOUBLE, KR_OPEN[0]], []], "next": (1, "play_card")}),
    Case("double: only cards of the same artist that are not doubles may be added",
         setup([[KR_DOUBLE, card(KR, "double", 1), KR_SEALED, LM_OPEN[0]], [YO_OPEN[0], YO_OPEN[1]],
                [CP_OPEN[0], CP_OPEN[1]]]),
         [PLAY0(KR_DOUBLE)],
         {"next": (0, "add_double"), "legal": {"cards": [KR_SEALED]}}),
    Case("double: the offer goes clockwise; the adder runs the lot, gets all the money, and play goes on to "
         "its left (players in between lose their turn)",
         double4(KR_SEALED),
         [PLAY0(KR_DOUBLE), (1, "add_double", {"card": None}), (2, "add_double", {"card": KR_SEALED}),
          (3, "sealed_bid", bid(20)), (0, "sealed_bid", bid(10)), (1, "sealed_bid", bid(5)),
          (2, "sealed_bid", bid(0))],
         {"money": [100, 100, 120, 80], "bought": [[], [], [], [KR_DOUBLE, KR_SEALED]],
          "next": (3, "play_card")}),
    Case("double: the adder that wins its own lot pays the bank (a forced fixed-price purchase included)",
         double4(KR_FIXED),
         [PLAY0(KR_DOUBLE), (1, "add_double", {"card": None}), (2, "add_double", {"card": KR_FIXED}),
          (2, "set_price", {"price": 30}), (3, "accept_price", {"accept": False}),
          (0, "accept_price", {"accept": False}), (1, "accept_price", {"accept": False})],
         {"money": [100, 100, 70, 100], "bought": [[], [], [KR_DOUBLE, KR_FIXED], []], "next": (3, "play_card")}),
    Case("double: if nobody adds a card the original auctioneer takes the double free",
         double4(CP_OPEN[1]),
         [PLAY0(KR_DOUBLE), (1, "add_double", {"card": None})],
         {"money": [100] * 4, "bought": [[KR_DOUBLE], [], [], []], "next": (1, "play_card")}),
    Case("only real choices: with no card to add anywhere nobody is asked; the owner takes the double free",
         setup([[KR_DOUBLE, LM_OPEN[0]], [YO_OPEN[0], YO_OPEN[1]], [CP_OPEN[0], CP_OPEN[1]]]),
         [PLAY0(KR_DOUBLE)],
         {"bought": [[KR_DOUBLE], [], []], "next": (1, "play_card")}),
    Case("double_split: a third player's payment goes ceil(p/2) to the adder and floor(p/2) to the original",
         double4(KR_FIXED),
         [PLAY0(KR_DOUBLE), (1, "add_double", {"card": None}), (2, "add_double", {"card": KR_FIXED}),
          (2, "set_price", {"price": 25}), (3, "accept_price", {"accept": True})],
         {"money": [112, 100, 113, 75]}, {"double_split": True}),
    Case("double_split: the original auctioneer buying pays ceil(p/2) to the adder, floor(p/2) to the bank",
         double4(KR_FIXED),
         [PLAY0(KR_DOUBLE), (1, "add_double", {"card": None}), (2, "add_double", {"card": KR_FIXED}),
          (2, "set_price", {"price": 25}), (3, "accept_price", {"accept": False}),
          (0, "accept_price", {"accept": True})],
         {"money": [75, 100, 113, 100]}, {"double_split": True}),
    Case("double_split: the adder buying (a forced purchase here) pays floor(p/2) to the original, "
         "ceil(p/2) to the bank",
         double4(KR_FIXED),
         [PLAY0(KR_DOUBLE), (1, "add_double", {"card": None}), (2, "add_double", {"card": KR_FIXED}),
          (2, "set_price", {"price": 25}), (3, "accept_price", {"accept": False}),
          (0, "accept_price", {"accept": False}), (1, "accept_price", {"accept": False})],
         {"money": [112, 100, 75, 100]}, {"double_split": True}),
    Case("double_split: a double whose owner adds the card is paid as usual",
         setup([[KR_DOUBLE, KR_FIXED, LM_OPEN[0]], [YO_OPEN[0], YO_OPEN[1]], [CP_OPEN[0], CP_OPEN[1]]]),
         [PLAY0(KR_DOUBLE), (0, "add_double", {"card": KR_FIXED}), (0, "set_price", {"price": 25}),
          (1, "accept_price", {"accept": True})],
         {"money": [125, 75, 100]}, {"double_split": True}),
    # -- turns --
    Case("turns: the player to the left of the auctioneer plays next",
         setup([[KR_OPEN[0], LM_OPEN[0]], [YO_OPEN[0], YO_OPEN[1]], [CP_OPEN[0], CP_OPEN[1]]], first=2),
         [(2, "play_card", {"card": CP_OPEN[0]}), (0, "bid", bid(None)), (1, "bid", bid(None)),
          (2, "bid", bid(None))],
         {"next": (0, "play_card")}),
    Case("turns: a player with no cards is skipped as auctioneer but still bids",
         setup([[KR_OPEN[0], LM_OPEN[0]], [], [CP_OPEN[0], CP_OPEN[1]]]),
         [PLAY0(KR_OPEN[0]), (1, "bid", bid(10)), (2, "bid", bid(None)), (0, "bid", bid(None))],
         {"money": [110, 90, 100], "bought": [[], [KR_OPEN[0]], []], "next": (2, "play_card")}),
    Case("only real choices: a player's last card is played without asking",
         setup([[KR_OPEN[0]], [YO_OPEN[0], YO_OPEN[1]], [CP_OPEN[0], CP_OPEN[1]]]),
         [],
         {"next": (1, "bid"), "counts": {KR: 1}}),
    # -- the end of a round --
    Case("round end: the fifth card of an artist ends the round; it is not auctioned but counts",
         setup([[KR_OPEN[0], KR_OPEN[1], LM_OPEN[0]], [KR_OPEN[2], KR_ONCE[0], YO_OPEN[0]],
                [KR_OPEN[3], CP_OPEN[0], CP_OPEN[1]]], money=BROKE),
         [PLAY0(KR_OPEN[0]), (1, "play_card", {"card": KR_OPEN[2]}), (2, "play_card", {"card": KR_OPEN[3]}),
          PLAY0(KR_OPEN[1]), (1, "play_card", {"card": KR_ONCE[0]})],
         {"round_end": {"round": 1, "reason": "fifth card", "ended_by": 1, "counts": {KR: 5},
                        "payouts": [60, 30, 30]},
          "money": [60, 30, 30], "markers": {KR: [30, 0, 0, 0]}}),
    Case("round end: the next round starts to the left of the player of the round-ending card",
         setup([[KR_OPEN[0], KR_OPEN[1], LM_OPEN[0]], [KR_OPEN[2], KR_ONCE[0], YO_OPEN[0]],
                [KR_OPEN[3], CP_OPEN[0], CP_OPEN[1]]], money=BROKE),
         [PLAY0(KR_OPEN[0]), (1, "play_card", {"card": KR_OPEN[2]}), (2, "play_card", {"card": KR_OPEN[3]}),
          PLAY0(KR_OPEN[1]), (1, "play_card", {"card": KR_ONCE[0]})],
         {"round": 2, "next": (2, "play_card"), "bought": [[], [], []], "counts": {}}),
    Case("round end: a double played as an artist's fifth card ends the round at once, with no second card",
         setup([[KR_OPEN[0], KR_OPEN[1], LM_OPEN[0]], [KR_OPEN[2], KR_DOUBLE, YO_OPEN[0]],
                [KR_OPEN[3], KR_ONCE[0], CP_OPEN[0]]], money=BROKE),
         [PLAY0(KR_OPEN[0]), (1, "play_card", {"card": KR_OPEN[2]}), (2, "play_card", {"card": KR_OPEN[3]}),
          PLAY0(KR_OPEN[1]), (1, "play_card", {"card": KR_DOUBLE})],
         {"round_end": {"ended_by": 1, "counts": {KR: 5}, "payouts": [60, 30, 30]}, "round": 2,
          "next": (2, "play_card")}),
    Case("round end: a double played as the fourth card; the added card is the fifth: the round ends, "
         "both unsold and counted",
         setup([[KR_OPEN[0], KR_DOUBLE, LM_OPEN[0], LM_OPEN[1]], [KR_OPEN[1], YO_OPEN[0], YO_OPEN[1]],
                [KR_OPEN[2], KR_OPEN[3], CP_OPEN[0]]], money=BROKE),
         [PLAY0(KR_OPEN[0]), (1, "play_card", {"card": KR_OPEN[1]}), (2, "play_card", {"card": KR_OPEN[2]}),
          PLAY0(KR_DOUBLE), (2, "add_double", {"card": KR_OPEN[3]})],
         {"round_end": {"reason": "fifth card", "ended_by": 2, "counts": {KR: 5}, "payouts": [30, 30, 30]},
          "round": 2, "next": (0, "play_card")}),
    Case("round end: when every hand is empty first, the last card played ends the round, unsold but counted",
         setup([[KR_OPEN[0]], [KR_OPEN[1]], [YO_OPEN[0]]], money=BROKE),
         [],
         {"round_end": {"round": 1, "reason": "hands empty", "ended_by": 2, "counts": {KR: 2, YO: 1},
                        "payouts": [30, 30, 0]}}),
    Case("round end: a double whose added card empties the last hand ends the round, both unsold and counted",
         setup([[KR_DOUBLE], [KR_OPEN[0]], []], money=BROKE),
         [(1, "add_double", {"card": KR_OPEN[0]})],
         {"round_end": {"reason": "hands empty", "ended_by": 1, "counts": {KR: 2}, "payouts": [0, 0, 0]},
          "markers": {KR: [30, 0, 0, 0]}}),
    Case("round end: a round that begins with every hand empty ends at once and scores nothing; the next "
         "round starts with the player who would have started it",
         setup([[], [], []], first=1, deck=[KR_OPEN[0], YO_OPEN[0], CP_OPEN[0], KR_OPEN[1], YO_OPEN[1]]),
         [],
         {"round_end": {"round": 1, "reason": "no cards", "counts": {}, "payouts": [0, 0, 0]}, "round": 2,
          "next": (1, "play_card"), "money": [100, 100, 100], "markers": {}}),
    # -- scoring --
    Case("ranking: the top three artists get 30, 20, 10; ties go to the artist further left on the board",
         setup([[KR_OPEN[0], KR_OPEN[1], YO_OPEN[0]], [KR_OPEN[2], YO_OPEN[1], CP_OPEN[0]],
                [KR_OPEN[3], CP_OPEN[1], LM_OPEN[0], KR_ONCE[0]]], money=BROKE),
         [PLAY0(KR_OPEN[0]), (1, "play_card", {"card": YO_OPEN[1]}), (2, "play_card", {"card": CP_OPEN[1]}),
          PLAY0(YO_OPEN[0]), (1, "play_card", {"card": CP_OPEN[0]}), (2, "play_card", {"card": LM_OPEN[0]}),
          (2, "play_card", {"card": KR_OPEN[3]})],
         {"round_end": {"counts": {KR: 5, YO: 2, CP: 2, LM: 1}, "ranking": [KR, YO, CP],
                        "payouts": [80, 60, 40]},
          "markers": {KR: [30, 0, 0, 0], YO: [20, 0, 0, 0], CP: [10, 0, 0, 0]}, "money": [80, 60, 40]}),
    Case("ranking: an artist with no card this round does not rank; with two artists played only those rank",
         setup([[KR_OPEN[0]], [KR_OPEN[1]], [YO_OPEN[0]]], money=BROKE),
         [],
         {"round_end": {"ranking": [KR, YO]}, "markers": {KR: [30, 0, 0, 0], YO: [20, 0, 0, 0]}}),
    Case("sale: a painting sells for all its artist's markers so far if the artist ranks this round, "
         "else for nothing; values accumulate over rounds",
         setup([[KR_OPEN[0]], [KR_OPEN[1]], [YO_OPEN[0]]], money=BROKE,
               deck=[KR_OPEN[2], YO_OPEN[1], LM_OPEN[0], CP_OPEN[0]]),
         [PLAY0(KR_OPEN[2]), (1, "bid", bid(None)), (0, "bid", bid(None)),
          (0, "bid", bid(None)), (1, "bid", bid(None)), (0, "bid", bid(None)), (1, "bid", bid(None))],
         {"round_end": {"round": 2, "ranking": [LM, YO, CP], "values": {LM: 30, YO: 40, CP: 10, KG: 0, KR: 0},
                        "payouts": [0, 40, 30]},
          "markers": {KR: [30, 0, 0, 0], YO: [20, 20, 0, 0], LM: [0, 30, 0, 0], CP: [0, 10, 0, 0]},
          "money": [30, 70, 30]}),
    # -- the end of the game --
    Case("game end: after round 4 the game ends; equal money is an equal rank (competition ranking)",
         setup([[KR_OPEN[0]], [KR_OPEN[1]], [YO_OPEN[0]]], money=BROKE),
         [],
         {"next": None, "result": {"money": [30, 30, 0], "ranks": [1, 1, 3]}}),
    Case("game end: the game ends after round 4; cards still in hand are worthless",
         setup([FOUR_ROUNDS + [LM_OPEN[0]], [], []], money=BROKE),
         FOUR_ROUNDS_MOVES,
         {"next": None, "hands": [[LM_OPEN[0]], [], []], "result": {"money": [480, 0, 0], "ranks": [1, 2, 2]},
          "markers": {KR: [30, 0, 0, 0], KG: [0, 30, 0, 0], YO: [0, 0, 30, 0], CP: [0, 0, 0, 30]}}),
    # -- deals --
    Case("deal, 3 players: 6 cards each in round 2, one at a time in seat order from the deck's top",
         setup([[], [], []], deck=list(range(20))),
         [],
         {"hands": [[0, 3, 6, 9, 12, 15], [1, 4, 7, 10, 13, 16], [2, 5, 8, 11, 14, 17]], "deck_size": 2}),
    Case("deal, 4 players: 4 cards each in round 2; a short deck deals until it is empty",
         setup([[], [], [], []], deck=list(range(10))),
         [],
         {"hands": [[0, 4, 8], [1, 5, 9], [2, 6], [3, 7]], "deck_size": 0}),
    Case("deal, 5 players: 3 cards each in round 2",
         setup([[], [], [], [], [69]], deck=list(range(20)), money=[0] * 5, first=4),
         [],
         {"hands": [[0, 5, 10], [1, 6, 11], [2, 7, 12], [3, 8, 13], [4, 9, 14]], "deck_size": 5,
          "round": 2}),
    # -- the phantom hand --
    Case("phantom: after acquiring a painting the buyer may turn over the phantom pile's top card; "
         "it is not auctioned but counts",
         table3(KR_OPEN[0], phantom=[YO_OPEN[2], KG_OPEN[0]]),
         [PLAY0(KR_OPEN[0]), (1, "bid", bid(None)), (2, "bid", bid(None)), (0, "bid", bid(None)),
          (0, "flip_phantom", {"flip": True})],
         {"counts": {KR: 1, YO: 1}, "phantom_size": 1, "bought": [[KR_OPEN[0]], [], []],
          "next": (1, "play_card")}, {"phantom": True}),
    Case("phantom: the flip may be declined",
         table3(KR_OPEN[0], phantom=[YO_OPEN[2]]),
         [PLAY0(KR_OPEN[0]), (1, "bid", bid(None)), (2, "bid", bid(None)), (0, "bid", bid(None)),
          (0, "flip_phantom", {"flip": False})],
         {"counts": {KR: 1}, "phantom_size": 1, "next": (1, "play_card")}, {"phantom": True}),
    Case("phantom: a forced fixed-price purchase is an acquisition too",
         table3(KR_FIXED, phantom=[YO_OPEN[2]]),
         [PLAY0(KR_FIXED), (0, "set_price", {"price": 40}), (1, "accept_price", {"accept": False}),
          (2, "accept_price", {"accept": False})],
         {"next": (0, "flip_phantom"), "legal": {}}, {"phantom": True}),
    Case("phantom: not asked when the phantom pile is empty",
         table3(KR_OPEN[0], phantom=[]),
         [PLAY0(KR_OPEN[0]), (1, "bid", bid(None)), (2, "bid", bid(None)), (0, "bid", bid(None))],
         {"next": (1, "play_card")}, {"phantom": True}),
    Case("phantom: a flipped double gets no second card",
         table3(KR_OPEN[0], phantom=[card(YO, "double")]),
         [PLAY0(KR_OPEN[0]), (1, "bid", bid(None)), (2, "bid", bid(None)), (0, "bid", bid(None)),
          (0, "flip_phantom", {"flip": True})],
         {"counts": {KR: 1, YO: 1}, "next": (1, "play_card")}, {"phantom": True}),
    Case("phantom: a flip that brings an artist to five ends the round; the next starts left of the flipper",
         setup([[KR_OPEN[0], LM_OPEN[0]], [KR_OPEN[1], YO_OPEN[0]], [KR_OPEN[2], CP_OPEN[0]]], money=BROKE,
               phantom=[KR_ONCE[0], KR_ONCE[1]], deck=[YO_OPEN[1], YO_OPEN[2], CP_OPEN[1], CP_OPEN[2]]),
         [PLAY0(KR_OPEN[0]), (0, "flip_phantom", {"flip": False}), (1, "play_card", {"card": KR_OPEN[1]}),
          (1, "flip_phantom", {"flip": False}), (2, "play_card", {"card": KR_OPEN[2]}),
          (2, "flip_phantom", {"flip": True}), (0, "flip_phantom", {"flip": True})],
         {"round_end": {"reason": "fifth card", "ended_by": 0, "counts": {KR: 5, LM: 1},
                        "payouts": [50, 30, 30]},
          "round": 2, "next": (1, "play_card"), "phantom_size": 1,
          "hands": [[YO_OPEN[1]], [YO_OPEN[0], YO_OPEN[2]], [CP_OPEN[0], CP_OPEN[1]]]},
         {"phantom": True}),
    Case("phantom: deal as for four players; the pile's new cards go under it",
         setup([[], [], []], deck=list(range(20)), phantom=[69]),
         [],
         {"hands": [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14]], "phantom_size": 5, "deck_size": 4},
         {"phantom": True}),
    Case("phantom: only the three players' hands count for 'every hand is empty'",
         setup([[KR_OPEN[0]], [KR_OPEN[1]], [YO_OPEN[0]]], money=BROKE, phantom=[LM_OPEN[0]]),
         [(0, "flip_phantom", {"flip": False}), (1, "flip_phantom", {"flip": False})],
         {"round_end": {"round": 1, "reason": "hands empty", "ended_by": 2, "counts": {KR: 2, YO: 1}},
          "phantom_size": 1, "next": None},
         {"phantom": True}),
]


def run_case(case: Case):
    game = ModernArt()
    options = game.check_options(case.setup["players"], case.options)
    game.check_setup(case.setup, options)
    state = game.new_state(case.setup, options)
    for step, (seat, decision, action) in enumerate(case.moves):
        assert (state.seat, state.decision) == (seat, decision), f"move {step}: {action}"
        state.apply(action)
    return state


@pytest.mark.parametrize("case", CASES, ids=[case.rule for case in CASES])
def test_rule(case):
    state = run_case(case)
    expect = case.expect
    view = state.view(0)  # the public table, as every seat sees it
    if "next" in expect:
        assert (None if state.seat is None else (state.seat, state.decision)) == expect["next"]
    if "legal" in expect:
        assert state.legal == expect["legal"]
    if "money" in expect:
        assert state.money() == expect["money"]
    if "bought" in expect:
        assert [[c["id"] for c in cards] for cards in view["bought"]] == expect["bought"]
    if "counts" in expect:
        assert {artist: n for artist, n in view["counts"].items() if n} == expect["counts"]
    if "markers" in expect:
        assert {artist: row for artist, row in view["markers"].items() if any(row)} == expect["markers"]
    if "round" in expect:
        assert view["round"] == expect["round"]
    if "hands" in expect:
        assert [[c["id"] for c in state.view(seat)["hand"]] for seat in range(state.players)] == expect["hands"]
    if "deck_size" in expect:
        assert view["deck_size"] == expect["deck_size"]
    if "phantom_size" in expect:
        assert view["phantom_size"] == expect["phantom_size"]
    if "result" in expect:
        assert state.result() == expect["result"]
    if "round_end" in expect:
        ends = [event for _, event in state.log if event["type"] == "round_end"]
        wanted = expect["round_end"]
        event = next(e for e in ends if e["round"] == wanted.get("round", 1))
        for key, value in wanted.items():
            got = event[key]
            if key == "counts":
                got = {artist: n for artist, n in got.items() if n}
            assert got == value, key


def test_card_ids_follow_the_protocol_table():
    from arena.games.modern_art.cards import CARD_OBJECTS

    assert CARD_OBJECTS[17] == {"id": 17, "artist": "Yoko", "auction": "sealed"}
    per_artist = [sum(1 for c in range(70) if CARD_ARTIST[c] == a) for a in range(5)]
    assert per_artist == [12, 13, 14, 15, 16]
    table = {(ARTISTS[CARD_ARTIST[c]], KINDS[CARD_KIND[c]]): 0 for c in range(70)}
    for c in range(70):
        table[ARTISTS[CARD_ARTIST[c]], KINDS[CARD_KIND[c]]] += 1
    assert [table[KR, kind] for kind in KINDS] == [4, 3, 3, 3, 3]
    assert [table[YO, kind] for kind in KINDS] == [3, 2, 3, 3, 2]
    assert [table[LM, kind] for kind in KINDS] == [3, 3, 2, 2, 2]
    # ids run by artist in board order, then by auction kind in protocol order
    assert [(CARD_ARTIST[c], CARD_KIND[c]) for c in range(70)] == sorted(
        (CARD_ARTIST[c], CARD_KIND[c]) for c in range(70))


@pytest.mark.parametrize("players,options,hand_sizes,pile,deck", [
    (3, {}, 10, 0, 40), (4, {}, 9, 0, 34), (5, {}, 8, 0, 30), (3, {"phantom": True}, 9, 9, 34)])
def test_random_setups_deal_round_one(players, options, hand_sizes, pile, deck):
    import random

    game = ModernArt()
    options = game.check_options(players, options)
    made = game.random_setup(players, options, random.Random(5))
    game.check_setup(made, options)
    assert [len(hand) for hand in made["hands"]] == [hand_sizes] * players
    assert len(made.get("phantom", [])) == pile and len(made["deck"]) == deck
    assert made["money"] == [100] * players and 0 <= made["first"] < players
