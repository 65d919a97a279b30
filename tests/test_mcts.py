"""``mcts``: legal and reproducible in both games, its budgets, and a search that finds the winning line."""

from __future__ import annotations

import math
import random

import pytest

from arena.match import InProcessBot, Limits, derive_seed, events_for, play_game
from arena.testing import check_bot
from arena_bots.mcts import MctsBot
from arena_bots.mcts_search import PAIRED_PREFERENCE, PairedSearch, Search, rewards


def started(bot: MctsBot, game: str, players: int, move_ms: int = 1000) -> MctsBot:
    bot.start({"type": "start", "game": game, "seat": 0, "players": [f"p{seat}" for seat in range(players)],
               "options": {}, "time": {"start_ms": 5000, "move_ms": move_ms, "bank_ms": 10000},
               "setup_public": {}, "seed": 7})
    return bot


def first_real_choice(plugins, game_name: str, players: int, seed: int = 3):
    """A state of ``game_name`` standing at seat 0's first decision with two or more tree actions."""
    game = plugins.game(game_name)
    options = game.check_options(players, {})
    state = game.new_state(game.random_setup(players, options, random.Random(seed)), options)
    return game, state


def request_for(state, time_left_ms: int = 11000) -> dict:
    return {"type": "decide", "decision": state.decision, "legal": state.legal, "view": state.view(state.seat),
            "events": [], "time_left_ms": time_left_ms}


def test_mcts_plays_both_games_legally_and_the_same_way_for_a_seed():
    report = check_bot("mcts:iterations=8", games=3, sandbox="none")
    assert [check.game for check in report.checks] == ["modern-art", "silk-road"]
    assert all(check.deterministic and check.repeated == 2 for check in report.checks)


@pytest.mark.parametrize("game_name, players", [("modern-art", 4), ("silk-road", 3)])
def test_a_fixed_budget_runs_exactly_that_many_iterations(plugins, game_name, players):
    _, state = first_real_choice(plugins, game_name, players)
    bot = started(MctsBot(iterations=25), game_name, players)
    action = bot.decide(request_for(state))
    assert bot.last_search.iterations == 25
    assert sum(child["visits"] for child in bot.last_search.statistics()) == 25
    state.apply(action)  # legal: the engine takes it


def test_without_a_fixed_budget_it_searches_a_share_of_the_move_time_and_of_the_bank_within_what_is_left():
    bot = MctsBot(time_fraction=0.5)
    bot.move_ms, bot.bank_ms = 1000, 10000
    # a share of the bank left above the reserve (half the game's bank), too
    assert bot.budget_ms(11000) == pytest.approx(500 + 5000 / 30)
    assert bot.budget_ms(6000) == 500  # the bank down to its reserve: the share of the move time alone
    assert bot.budget_ms(3500) == 250  # overruns ate half the reserve: half the share of the move time
    assert bot.budget_ms(1000) == 125  # no bank left: a quarter of it at the least
    assert bot.budget_ms(300) == 50  # the time left less a margin of a quarter of the move time
    bot.move_ms, bot.bank_ms = 100, 0
    assert bot.budget_ms(100) == 50
    assert bot.budget_ms(80) == 30  # the margin is at least 50 ms


def test_the_share_of_the_move_time_keeps_a_margin_that_grows_with_the_move_time():
    bot = MctsBot(time_fraction=1.0)
    bot.move_ms = 200
    assert bot.budget_ms(200) == 150
    bot.move_ms = 2000
    assert bot.budget_ms(2000) == 1500


def test_a_fixed_budget_is_cut_short_only_to_answer_in_time():
    bot = MctsBot(iterations=10**6)
    bot.move_ms = 1000
    assert bot.budget_ms(11000) == 10750
    assert bot.budget_ms(100) < 0


def test_with_no_time_left_it_still_answers_after_one_iteration(plugins):
    _, state = first_real_choice(plugins, "silk-road", 3)
    bot = started(MctsBot(), "silk-road", 3, move_ms=100)
    action = bot.decide(request_for(state, time_left_ms=0))
    assert bot.last_search.iterations == 1
    state.apply(action)


def test_rewards_mix_the_rank_and_the_margin_and_share_equal_ranks():
    assert rewards([50, 50, 30]) == [pytest.approx(0.3 * 0.75 + 0.7), pytest.approx(0.3 * 0.75 + 0.7), 0.0]
    assert rewards([10, 10]) == [0.5, 0.5]
    high, middle, low = rewards([90, 40, 30])
    assert high == 1.0 and low == 0.0 and middle == pytest.approx(0.3 * 0.5 + 0.7 * 10 / 60)


class LoadsPorcelainAndPasses:
    """A scripted Silk Road opponent."""

    def decide(self, request):
        if request["decision"] == "load_ship":
            return {"good": "porcelain"}
        return {"action": "pass"} if request["decision"] == "phase1" else {"action": "draw"}


def test_it_finds_the_only_winning_line_of_a_silk_road_endgame(plugins):
    """Seat 0 holds three tea and has 0 coins against 5; one card is left in the deck.

    Seat 1 holds nothing, so its turn draws the last card and ends the game.
    Seat 0 wins only by loading (or swapping) both ships to tea and delivering
    all three cards: 3 slots showing tea x 2 ships = 6 coins. Drawing ends the
    game at once, lost.
    """
    game = plugins.game("silk-road")
    tea = [22, 23, 24]
    setup = {"players": 2, "hands": [tea, []], "market": [0, 1, 11, 12, 33, 34], "deck": [60],
             "money": [0, 5], "first": 0}
    options = game.check_options(2, {})
    game.check_setup(setup, options)
    seats = [InProcessBot(lambda: MctsBot(iterations=60)), InProcessBot(LoadsPorcelainAndPasses)]
    record = play_game(game, options, setup, seats, ["mcts", "script"], game_id="endgame", seed=1,
                       bot_seeds=[derive_seed(1, seat) for seat in range(2)], limits=Limits())
    delivery = next(move for move in record["moves"] if move["decision"] == "phase2")
    assert delivery["action"]["action"] == "play" and sorted(delivery["action"]["cards"]) == tea
    assert record["result"] == {"money": [6, 5], "ranks": [1, 2]}


class OneDecision:
    """A one-decision game: one seat picks an arm; ``deal`` is what the deal holds (its worth, its noise)."""

    def __init__(self, deal):
        self.seat, self.deal, self.arm = 0, deal, None

    def clone(self):
        return OneDecision(self.deal)

    def apply(self, action):
        self.arm, self.seat = action["arm"], None


class ArmsPolicy:
    """Two root actions in a one-decision game (no rollouts): ``reward(state)`` is seat 0's reward."""

    rollout_limit = 0

    def __init__(self, reward, preference=PAIRED_PREFERENCE):
        self.reward, self.preference = reward, preference

    def candidates(self, state):
        return [{"arm": 0}, {"arm": 1}]

    def rollout(self, state, rng):
        raise AssertionError("a finished game has no rollout")

    def evaluate(self, state):
        return [self.reward(state)]


def test_the_search_prefers_the_policy_action_until_the_evidence_says_otherwise():
    class TwoArms:
        """A one-decision game: action 0 (the policy's choice) pays 0.4, action 1 pays 0.6."""

        def __init__(self):
            self.seat, self.done = 0, None

        def apply(self, action):
            self.done = action["arm"]
            self.seat = None

    policy = ArmsPolicy(lambda state: 0.4 if state.done == 0 else 0.6)
    search = Search(policy, exploration=0.5, rng=random.Random(1))
    for _ in range(3):
        search.iterate(TwoArms())
    assert search.best() == {"arm": 0}  # after one visit each, the preference earns arm 0 the third
    for _ in range(200):
        search.iterate(TwoArms())
    assert search.best() == {"arm": 1}


def test_a_paired_search_judges_actions_on_the_same_deals():
    """Deals vary far more than the actions do: only comparing on common deals finds the better one."""

    def searched(gain):
        rng = random.Random(3)
        search = PairedSearch(ArmsPolicy(lambda state: state.deal + gain * state.arm), exploration=0.5, rng=rng)
        for _ in range(40):  # 20 deals worth 0..0.7, both arms on each; arm 1 adds ``gain``
            search.iterate(OneDecision(rng.random() * 0.7))
        return search

    search = searched(0.2)
    assert search.iterations == 40
    assert [child["visits"] for child in search.statistics()] == [20, 20]
    assert search.best() == {"arm": 1}
    assert searched(PAIRED_PREFERENCE / 2).best() == {"arm": 0}  # less than the margin: the policy's own


def test_the_subtree_of_its_own_action_is_reused_when_it_decides_again_at_once(plugins):
    """Modern Art: after playing a fixed-price card the same seat names the price, with only its play between."""
    game = plugins.game("modern-art")
    options = game.check_options(3, {})
    setup = {"players": 3, "hands": [[8, 20], [17, 58, 64], [28, 39, 67]], "deck": [], "first": 0}
    state = game.new_state(setup, options)  # seat 0 holds two fixed-price cards: either way it prices next
    bot = started(MctsBot(iterations=60), "modern-art", 3)
    request = request_for(state)
    request["events"] = events_for(state.log, 0, 0)
    seen = len(state.log)
    state.apply(bot.decide(request))
    assert state.seat == 0 and state.decision == "set_price"
    follow = request_for(state)
    follow["events"] = events_for(state.log, 0, seen)
    assert [event["type"] for event in follow["events"]] == ["play"]
    bot.decide(follow)
    assert bot.last_search.reused > 0  # visits of the kept subtree
    assert bot.last_search.iterations == 60  # and the budget is spent on top of them


def test_the_fast_table_of_rollouts_takes_traders_actions(plugins):
    """mcts's rollouts score deliveries in one pass per good: the same actions as trader's own table."""
    from arena_bots.mcts_trader import FastTable
    from arena_bots.silk_road_heuristic import Table, trader_action

    game = plugins.game("silk-road")
    compared = 0
    for seed in range(12):
        players = 2 + seed % 3
        options = game.check_options(players, {})
        state = game.new_state(game.random_setup(players, options, random.Random(seed)), options)
        rng = random.Random(seed)
        while state.seat is not None:
            slow, fast = Table(state, state.seat), FastTable(state, state.seat)
            action = trader_action(state.decision, state.legal, slow)
            assert trader_action(state.decision, state.legal, fast) == action
            assert fast.deliveries() == slow.deliveries() and fast.target() == slow.target()
            compared += 1
            state.apply(state.default_action() if rng.random() < 0.3 else action)  # off trader's path too
    assert compared > 500


def test_silk_road_rewards_follow_the_lead_over_the_best_rival():
    from arena_bots.mcts_silk_road import LEAD_SCALE, lead_rewards

    first, second, third = lead_rewards([50, 40, 30])
    assert first == pytest.approx(0.5 + 0.5 * math.tanh(1)) and second == pytest.approx(1 - first)
    assert third < second
    assert lead_rewards([50, 50, 30])[:2] == [0.5, 0.5]
    assert lead_rewards([10 + LEAD_SCALE * 10, 10, 0])[0] == pytest.approx(1.0)


def test_the_policy_weighs_how_much_of_the_bank_a_decision_spends(plugins):
    from arena_bots.mcts_silk_road import EARLY_BANK_WEIGHT, LATE_BANK_WEIGHT, SilkRoadPolicy

    bot = MctsBot(time_fraction=0.5)
    bot.move_ms, bot.bank_ms = 1000, 10000
    assert bot.budget_ms(11000, 3.0) == pytest.approx(500 + 5000 / 10)
    assert bot.budget_ms(11000, 0.0) == 500
    assert bot.budget_ms(11000, 100.0) == pytest.approx(500 + 5000)  # never more than the spendable bank
    _, state = first_real_choice(plugins, "silk-road", 3)
    assert SilkRoadPolicy().bank_weight(state) == EARLY_BANK_WEIGHT < LATE_BANK_WEIGHT


def test_a_paired_search_keeps_the_policys_action_until_the_difference_is_clear():
    """Action 1 is better by 0.2 on average, but its rollouts are noisy: a few deals do not show it."""

    def searched(deals):
        rng = random.Random(5)
        policy = ArmsPolicy(lambda state: 0.5 if state.arm == 0 else 0.7 + state.deal, preference=0.0)
        search = PairedSearch(policy, exploration=0.5, rng=rng)
        for _ in range(deals):
            noise = rng.choice([-0.6, 0.6])  # the deal's noise, the same for both arms
            search.iterate(OneDecision(noise))
            search.iterate(OneDecision(noise))
        return search

    assert searched(1).best() == {"arm": 0}  # one deal: no spread to judge by
    assert searched(3).best() == {"arm": 0}  # three deals: within the noise
    assert searched(200).best() == {"arm": 1}


def test_the_modern_art_tree_grows_only_the_searching_seats_decisions(plugins):
    """Rivals play the rollout policy (appraiser's rules) in the tree too: a node for a rival's searched
    reply would model a rival cleverer than the usual one, the more so the more iterations."""
    _, state = first_real_choice(plugins, "modern-art", 4)
    bot = MctsBot(iterations=300)
    bot.start({"type": "start", "game": "modern-art", "seat": state.seat, "options": {}, "seed": 7,
               "time": {"start_ms": 5000, "move_ms": 1000, "bank_ms": 10000}})
    bot.decide(request_for(state))
    seats, deepest = set(), 0
    stack = [(bot.last_search.root, 0)]
    while stack:
        node, depth = stack.pop()
        for child in node.children.values():
            seats.add(child.seat)
            deepest = max(deepest, depth + 1)
            stack.append((child, depth + 1))
    assert seats == {state.seat} and deepest >= 2  # the seat's own later decisions, below its first


def test_rivals_in_modern_art_rollouts_take_appraisers_actions(plugins):
    """mcts's model of a rival, with its appraisal unspread, is appraiser: the same action at every decision."""
    from arena_bots.mcts_modern_art import artist_worth, rival_action
    from arena_bots.modern_art_heuristic import ModernArtHeuristic

    game = plugins.game("modern-art")
    compared = 0
    for seed in range(10):
        players = 3 + seed % 3
        options = game.check_options(players, {"phantom": players == 3 and seed % 2 == 0})
        state = game.new_state(game.random_setup(players, options, random.Random(seed)), options)
        bots = [ModernArtHeuristic() for _ in range(players)]
        for seat, bot in enumerate(bots):
            bot.start({"seat": seat})
        rng = random.Random(seed)
        while state.seat is not None:
            action = bots[state.seat].decide({"decision": state.decision, "legal": state.legal,
                                               "view": state.view(state.seat)})
            assert rival_action(state, artist_worth(state, state.seat), 0.5) == action
            compared += 1
            state.apply(state.default_action() if rng.random() < 0.2 else action)  # off appraiser's path too
    assert compared > 1500
