"""Maritime Silk Road rules, one table row per rule case (rules/silk-road.md, protocol.md section 4).

Each row names the rule, gives a hand-written setup and the actions taken
from it, and states what a player would then see: whose decision is asked
with what ``legal``, money, ships, hands, the market, the deck, the last
delivery's income, ranks.
"""

from __future__ import annotations

import random

import pytest

from arena.games.silk_road.cards import GOODS
from arena.games.silk_road.game import SilkRoad

GAME = SilkRoad()


def card(good: str, index: int) -> int:
    """The id of the ``index``-th card of ``good`` (ids run eleven per good, in goods order)."""
    return GOODS.index(good) * 11 + index


def setup(players: int = 2, **changes) -> dict:
    """A small two-player setup: seat 0 holds three tea, seat 1 two silk and an ore; 20 cards in the deck."""
    base = {
        "players": players,
        "hands": [[card("tea", 0), card("tea", 1), card("tea", 2)], [card("silk", 0), card("silk", 1), card("ore", 0)]]
        + [[card("spice", 5 + seat)] for seat in range(2, players)],
        "market": [card("porcelain", 0), card("porcelain", 1), card("spice", 0), card("spice", 1),
                   card("glass", 0), card("tea", 3)],
        "deck": [card("glass", index) for index in range(1, 11)] + [card("ore", index) for index in range(1, 11)],
        "money": [0] * players,
        "first": 0,
    }
    base.update(changes)
    return base


def load(*goods: str) -> list[dict]:
    return [{"good": good} for good in goods]


PASS = {"action": "pass"}
DRAW = {"action": "draw"}


def buy(special: str) -> dict:
    return {"action": "buy", "card": special}


def swap(*pairs: tuple[int, str]) -> dict:
    return {"action": "swap", "swaps": [{"ship": ship, "good": good} for ship, good in pairs]}


def play(cards: list[int], slots: list[int]) -> dict:
    return {"action": "play", "cards": cards, "slots": slots}


def extra(count: int) -> dict:
    return {"count": count}


#: the setup's loading: seat 0 carries tea twice, seat 1 silk and ore
LOADED = load("tea", "silk", "tea", "ore")
TEA = [card("tea", index) for index in range(3)]


def last_delivery(state) -> list[int]:
    return [event for audience, event in state.log if event["type"] == "deliver"][-1]["income"]


PROBES = {
    "next": lambda state: (state.seat, state.decision),
    "legal": lambda state: state.legal,
    "money": lambda state: state.money(),
    "ranks": lambda state: state.result()["ranks"],
    "income": last_delivery,
    "ships": lambda state: [player["ships"] for player in state.view(0)["players"]],
    "hand0": lambda state: [c["id"] for c in state.view(0)["hand"]],
    "hand_sizes": lambda state: [player["hand_size"] for player in state.view(0)["players"]],
    "market": lambda state: [c and c["good"] for c in state.view(0)["market"]],
    "covered": lambda state: state.view(0)["covered"],
    "deck": lambda state: state.view(0)["deck"],
    "markers": lambda state: state.view(0)["markers"],
    "specials0": lambda state: {k: state.view(0)["players"][0][k] for k in ("license", "porter", "exchange")},
    "supply": lambda state: state.view(0)["supply"],
}

CASES = [
    # -- setup and loading --
    ("loading goes clockwise from the first player, first ships then second ships",
     setup(3, first=1), load("tea", "silk", "ore", "glass", "spice", "tea"),
     {"asked": [(1, "load_ship"), (2, "load_ship"), (0, "load_ship")] * 2,
      "ships": [["ore", "tea"], ["tea", "glass"], ["silk", "spice"]], "next": (1, "phase1")}),
    ("the first player's first turn follows the loading",
     setup(), LOADED, {"next": (0, "phase1"), "legal": {
         "swap": {"ships": 2, "goods": list(GOODS), "max_swaps": 1}, "buy": []}}),
    ("setup money overrides the start_money option",
     setup(money=[3, 7]), [], {"money": [3, 7]}),
    ("special supply: 14 ships minus 2 per player, 2 of each other card",
     setup(3), [], {"supply": {"ship": 8, "license": 2, "porter": 2, "exchange": 2}}),
    ("a setup with an empty deck is a game already over",
     setup(deck=[], money=[4, 4]), [], {"next": (None, None), "ranks": [1, 1]}),
    # -- goods markers --
    ("a good whose five markers are on ships is unavailable",
     setup(3), load("tea", "tea", "tea", "tea", "tea"),
     {"next": (2, "load_ship"), "legal": {"goods": ["porcelain", "silk", "spice", "glass", "ore"]},
      "markers": {"porcelain": 5, "silk": 5, "tea": 0, "spice": 5, "glass": 5, "ore": 5}}),
    ("swapping returns the old marker to the supply",
     setup(), LOADED + [swap((0, "glass"))],
     {"ships": [["glass", "tea"], ["silk", "ore"]], "markers": {
         "porcelain": 5, "silk": 4, "tea": 4, "spice": 5, "glass": 4, "ore": 4}, "next": (0, "phase2")}),
    ("a marker freed by an earlier swap of the same action may be taken by the next",
     setup(3, money=[12, 0, 0]), load("tea", "tea", "tea", "ore", "tea", "tea")
     + [buy("porter"), DRAW, PASS, DRAW, PASS, DRAW, swap((0, "silk"), (1, "tea"))],
     {"ships": [["silk", "tea"], ["tea", "tea"], ["tea", "tea"]], "next": (0, "phase2")}),
    # -- phase 1: buying --
    ("buying pays the cost to the bank and lists what is affordable in protocol order",
     setup(money=[11, 0]), LOADED + [buy("license")],
     {"money": [0, 0], "specials0": {"license": 1, "porter": 0, "exchange": 0},
      "supply": {"ship": 10, "license": 1, "porter": 2, "exchange": 2}, "next": (0, "phase2")}),
    ("phase 1 offers the specials in supply the player can afford, in the order ship, license, porter, exchange",
     setup(money=[11, 0]), LOADED, {"legal": {"swap": {"ships": 2, "goods": list(GOODS), "max_swaps": 1},
                                             "buy": ["ship", "license", "exchange"]}}),
    ("a special card sold out is not offered",
     setup(money=[24, 0]), LOADED + [buy("exchange"), DRAW, extra(0), PASS, DRAW, buy("exchange"), DRAW,
                                     extra(0), PASS, DRAW],
     {"next": (0, "phase1"), "legal": {"swap": {"ships": 2, "goods": list(GOODS), "max_swaps": 1}, "buy": []}}),
    ("buying a ship loads it at once, then phase 2 follows",
     setup(money=[10, 0]), LOADED + [buy("ship")],
     {"next": (0, "load_ship"), "legal": {"goods": ["porcelain", "silk", "tea", "spice", "glass", "ore"]},
      "ships": [["tea", "tea", None], ["silk", "ore"]], "money": [0, 0]}),
    ("the bought ship carries the good chosen for it, numbered after the first two",
     setup(money=[10, 0]), LOADED + [buy("ship"), {"good": "spice"}],
     {"ships": [["tea", "tea", "spice"], ["silk", "ore"]], "next": (0, "phase2"),
      "supply": {"ship": 9, "license": 2, "porter": 2, "exchange": 2}}),
    # -- porters --
    ("without porters a swap changes one ship",
     setup(), LOADED, {"legal": {"swap": {"ships": 2, "goods": list(GOODS), "max_swaps": 1}, "buy": []}}),
    ("a porter lets a swap change one more ship",
     setup(money=[12, 0]), LOADED + [buy("porter"), DRAW, PASS, DRAW, swap((0, "spice"), (1, "ore"))],
     {"ships": [["spice", "ore"], ["silk", "ore"]], "next": (0, "phase2")}),
    ("two porters make three swaps",
     setup(money=[34, 0]), LOADED + [buy("porter"), DRAW, PASS, DRAW, buy("porter"), DRAW, PASS, DRAW,
                                     buy("ship"), {"good": "glass"}, DRAW, PASS, DRAW],
     {"next": (0, "phase1"), "legal": {"swap": {"ships": 3, "goods": list(GOODS), "max_swaps": 3}, "buy": []}}),
    # -- phase 2: deliveries and income --
    ("a delivery pays every player, the deliverer included: slots showing the good x its ships carrying it",
     setup(), load("tea", "tea", "spice", "ore") + [PASS, play(TEA[:2], [0, 1])],
     {"income": [3, 3], "money": [3, 3], "market": ["tea", "tea", "spice", "spice", "glass", "tea"]}),
    ("each ship carrying the good pays again",
     setup(), LOADED + [PASS, play(TEA[:1], [2])], {"income": [4, 0], "money": [4, 0]}),
    ("only the good just played pays",
     setup(), load("spice", "silk", "tea", "spice") + [PASS, play(TEA[:1], [0])], {"income": [2, 0]}),
    ("a card covers the slot it is played on; only the top cards count",
     setup(), LOADED + [PASS, play(TEA[:1], [5])],
     {"income": [2, 0], "covered": [card("tea", 3)],
      "market": ["porcelain", "porcelain", "spice", "spice", "glass", "tea"]}),
    ("a card may cover an empty slot",
     setup(market=[None, None, None, None, None, card("tea", 3)]), LOADED + [PASS, play(TEA[:2], [0, 1])],
     {"income": [6, 0], "covered": [], "market": ["tea", "tea", None, None, None, "tea"]}),
    ("the delivered cards leave the hand; play lists the hand's ids ascending",
     setup(), LOADED + [PASS, play([card("tea", 2), card("tea", 0)], [4, 3])],
     {"hand0": [card("tea", 1)], "income": [6, 0], "next": (1, "phase1")}),
    ("phase 2 offers every card in hand, ids ascending, and the draw",
     setup(hands=[[card("spice", 9), card("tea", 0), card("porcelain", 5)], [card("silk", 0)]]), LOADED + [PASS],
     {"next": (0, "phase2"),
      "legal": {"play": [card("porcelain", 5), card("tea", 0), card("spice", 9)], "draw": True}}),
    # -- licenses --
    ("a license adds 2 to a payout of at least one coin, on anyone's delivery",
     setup(money=[11, 0]), load("silk", "silk", "tea", "ore") + [buy("license"), DRAW, PASS,
                                                                play([card("silk", 0)], [5])],
     {"income": [3, 1], "money": [3, 1]}),
    ("a license earns nothing on a delivery that pays its owner nothing",
     setup(money=[11, 0]), load("tea", "ore", "tea", "ore") + [buy("license"), DRAW, PASS,
                                                              play([card("silk", 0)], [5])],
     {"income": [0, 0], "money": [0, 0]}),
    ("the license bonus counts on the owner's own delivery",
     setup(money=[11, 0]), LOADED + [buy("license"), play(TEA[:1], [0])], {"income": [6, 0], "money": [6, 0]}),
    ("two licenses add 4",
     setup(money=[22, 0]), LOADED + [buy("license"), DRAW, PASS, DRAW, buy("license"), play(TEA[:1], [0])],
     {"income": [8, 0], "money": [8, 0]}),
    # -- draws, exchanges and the end --
    ("a draw takes the deck's top two cards",
     setup(), LOADED + [PASS, DRAW], {"hand0": TEA + [card("glass", 1), card("glass", 2)], "deck": 18,
                                     "next": (1, "phase1")}),
    ("phase 2 with an empty hand is a forced draw (not asked)",
     setup(hands=[[], [card("silk", 0)]]), LOADED + [PASS],
     {"asked": [(0, "load_ship"), (1, "load_ship")] * 2 + [(0, "phase1")], "hand_sizes": [2, 1],
      "next": (1, "phase1")}),
    ("an exchange offers one extra draw after phase 2",
     setup(money=[8, 0]), LOADED + [buy("exchange"), DRAW], {"next": (0, "extra_draw"), "legal": {"max": 1}}),
    ("the extra draw may be declined",
     setup(money=[8, 0]), LOADED + [buy("exchange"), DRAW, extra(0)], {"deck": 18, "next": (1, "phase1")}),
    ("the extra draw follows a delivery too",
     setup(money=[8, 0]), LOADED + [buy("exchange"), play(TEA[:1], [0]), extra(1)],
     {"deck": 19, "hand_sizes": [3, 3], "next": (1, "phase1")}),
    ("two exchanges offer up to two extra draws",
     setup(money=[16, 0]), LOADED + [buy("exchange"), DRAW, extra(0), PASS, DRAW, buy("exchange"), DRAW],
     {"next": (0, "extra_draw"), "legal": {"max": 2}}),
    ("two exchanges may draw one extra card",
     setup(money=[16, 0]), LOADED + [buy("exchange"), DRAW, extra(0), PASS, DRAW, buy("exchange"), DRAW, extra(1)],
     {"deck": 13, "next": (1, "phase1")}),
    ("the extra draw is limited by the deck's size",
     setup(money=[16, 0], deck=[card("glass", index) for index in range(1, 8)]),
     LOADED + [buy("exchange"), DRAW, extra(0), PASS, DRAW, buy("exchange"), DRAW],
     {"next": (0, "extra_draw"), "legal": {"max": 1}}),
    ("without an exchange there is no extra draw",
     setup(), LOADED + [PASS, DRAW], {"next": (1, "phase1")}),
    ("a draw of two with one card left takes it and ends the game at once",
     setup(money=[8, 0], deck=[card("glass", 1)]), LOADED + [buy("exchange"), DRAW],
     {"next": (None, None), "deck": 0, "hand0": TEA + [card("glass", 1)], "ranks": [1, 1]}),
    ("an exchange's extra draw of the last card ends the game",
     setup(money=[8, 0], deck=[card("glass", 1), card("glass", 2), card("glass", 3)]),
     LOADED + [buy("exchange"), DRAW, extra(1)], {"next": (None, None), "deck": 0}),
    ("equal money is an equal rank (competition ranking)",
     setup(3, money=[5, 5, 3], deck=[card("glass", 1)]),
     load("tea", "silk", "ore", "tea", "silk", "ore") + [PASS, DRAW],
     {"next": (None, None), "ranks": [1, 1, 3]}),
    ("most money ranks first",
     setup(3, money=[1, 5, 3], deck=[card("glass", 1)]),
     load("tea", "silk", "ore", "tea", "silk", "ore") + [PASS, DRAW],
     {"ranks": [3, 1, 2]}),
]


def run(rows_setup: dict, moves: list[dict]):
    options = GAME.check_options(rows_setup["players"], {})
    GAME.check_setup(rows_setup, options)
    state = GAME.new_state(rows_setup, options)
    asked = []
    for action in moves:
        asked.append((state.seat, state.decision))
        state.apply(action)
    return state, asked


@pytest.mark.parametrize("rule, rows_setup, moves, expected", CASES, ids=[case[0] for case in CASES])
def test_rule(rule, rows_setup, moves, expected):
    state, asked = run(rows_setup, moves)
    for probe, value in expected.items():
        seen = asked if probe == "asked" else PROBES[probe](state)
        assert seen == value, f"{rule}: {probe}"


def test_start_money_option_sets_every_seats_money():
    options = GAME.check_options(3, {"start_money": 9})
    state = GAME.new_state({key: value for key, value in setup(3).items() if key != "money"}, options)
    assert state.money() == [9, 9, 9]


def test_phase1_with_no_swap_and_nothing_affordable_is_a_forced_pass():
    # Only ore is available and the player's only ship carries it: no swap is possible.
    # (30 markers and at most 14 ships make this impossible in a real game; a built position shows it.)
    view = GAME.new_state(setup(), {"start_money": 0}).view(0)
    view["phase"], view["to_move"] = "phase1", 0
    view["players"][0]["ships"] = ["ore"]
    view["players"][1]["ships"] = [good for good in GOODS[:5] for _ in range(5)]
    state = GAME.determinize(view, {}, random.Random(0))
    assert [event["type"] for _, event in state.log] == ["pass"]
    assert (state.seat, state.decision) == (0, "phase2")
