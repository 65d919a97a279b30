"""Standings people can read: games not seats, head-to-head that adds up, rank ranges from the deals,
the rater named, wide names aligned, and --diff of one section."""

from __future__ import annotations

import itertools
import json
import random

import pytest
import wcwidth

from arena.compare.diff import diff_boards, render_diff
from arena.standings.figures import game_figures
from arena.standings.raters import rate
from arena.standings.seats import from_rows
from arena.standings.leaderboard import build_leaderboard, render, select


class MemoryStore:
    """The part of the results store the leaderboard reads, in memory."""

    def __init__(self, rows_by_game: dict[str, list[tuple]], definition: dict | None = None) -> None:
        self.rows = rows_by_game
        self.cache: dict = {}
        games = [{"name": game, "entries": list(dict.fromkeys(row[3] for row in rows)), "left_out": [],
                  "games": len({row[0] for row in rows})} for game, rows in rows_by_game.items()]
        self.head = {"name": "cup", "definition": definition or {}, "total": sum(g["games"] for g in games),
                     "plan": {"games": games, "bots": list(dict.fromkeys(b for g in games for b in g["entries"]))}}

    def header(self) -> dict:
        return self.head

    def meta(self, key: str, default=None):
        """No run metadata beyond the header (no disqualified entries)."""
        return default

    def seats_with_blocks(self, game: str) -> list[tuple]:
        return self.rows[game]

    def cached_figures(self, game: str, games: int):
        return self.cache.get((game, games))

    def cache_figures(self, game: str, games: int, payload) -> None:
        self.cache[(game, games)] = payload


def duplicate_games(strength: dict[str, float], players: int, deals: int, seed: int = 1,
                    tables: list[tuple[str, ...]] | None = None) -> list[tuple]:
    """Store rows of duplicate blocks: each deal at each table in every rotation, placings from
    strength + the deal's luck per seat + noise."""
    rng = random.Random(seed)
    tables = tables or list(itertools.combinations(strength, players))
    rows, order = [], 0
    for number, table in enumerate(tables):
        for deal in range(deals):
            luck = [rng.gauss(0, 1) for _ in range(players)]
            for rotation in range(players):
                seated = [table[(seat + rotation) % players] for seat in range(players)]
                score = [strength[bot] + luck[seat] + rng.gauss(0, 1) for seat, bot in enumerate(seated)]
                ranks = [1 + sum(other > mine for other in score) for mine in score]
                rows += [(order, f"table {number}", deal, bot, ranks[seat], round(10 * score[seat]), 0)
                         for seat, bot in enumerate(seated)]
                order += 1
    return rows


STRENGTH = {"alpha": 1.5, "beta": 1.0, "gamma": 0.9, "delta": 0.0, "eps": -1.0}


def test_a_bot_at_two_seats_counts_one_game_and_head_to_head_adds_up_to_shared_games():
    rows = [  # game 0: a holds two seats; game 1: a, b, c; game 2: b, c, d
        (0, "t1", 1, "a", 1, 30, 0), (0, "t1", 1, "b", 2, 20, 1), (0, "t1", 1, "a", 3, 10, 0),
        (1, "t2", 1, "a", 2, 20, 0), (1, "t2", 1, "b", 2, 20, 0), (1, "t2", 1, "c", 1, 40, 0),
        (2, "t3", 1, "b", 1, 50, 0), (2, "t3", 1, "c", 3, 10, 2), (2, "t3", 1, "d", 2, 30, 0),
    ]
    figures = game_figures(from_rows(rows), "g")
    a = figures.totals["a"]
    assert (a.games, a.seats, a.firsts) == (2, 3, 1)
    assert a.placing_sum / a.games == pytest.approx(((1 + 3) / 2 + 2) / 2)
    assert a.money_sum / a.games == pytest.approx((20 + 20) / 2)
    assert figures.totals["c"].faults == 2 and figures.totals["b"].faults == 1
    shared = {frozenset(pair): sum(1 for g in range(3) if {r[3] for r in rows if r[0] == g} >= set(pair))
              for pair in itertools.combinations("abcd", 2)}
    for (bot, other), record in figures.head_to_head.items():
        assert record.wins + record.draws + record.losses == shared[frozenset((bot, other))]
        mirror = figures.head_to_head[(other, bot)]
        assert (record.wins, record.draws, record.losses) == (mirror.losses, mirror.draws, mirror.wins)
    # game 0: a's mean placing 2 equals b's 2: a draw; game 1: a and b placed 2: a draw
    assert (figures.head_to_head[("a", "b")].wins, figures.head_to_head[("a", "b")].draws) == (0, 2)
    assert figures.head_to_head[("c", "b")].wins == 1 and figures.head_to_head[("c", "b")].losses == 1


def test_head_to_head_in_the_leaderboard_adds_up_to_the_games_each_pair_shared():
    rows = duplicate_games(STRENGTH, 3, deals=2)
    board = build_leaderboard(MemoryStore({"g": rows}))
    section = board["sections"][0]
    games = {}
    for row in rows:
        games.setdefault(row[0], set()).add(row[3])
    for bot, others in section["head_to_head"].items():
        for other, pair in others.items():
            assert pair["above"] + pair["equal"] + pair["below"] == pair["meetings"]
            assert pair["meetings"] == sum(1 for seated in games.values() if {bot, other} <= seated)
            assert pair["low"] <= pair["score"] <= pair["high"]


def test_rank_ranges_are_wide_with_few_deals_and_narrow_with_many():
    def mean_width(deals: int) -> float:
        section = build_leaderboard(MemoryStore({"g": duplicate_games(STRENGTH, 4, deals, seed=3)}))["sections"][0]
        return sum(row["rank_high"] - row["rank_low"] for row in section["standings"]) / len(section["standings"])

    few, many = mean_width(1), mean_width(40)
    assert few > many + 0.5
    section = build_leaderboard(MemoryStore({"g": duplicate_games(STRENGTH, 4, 40, seed=3)}))["sections"][0]
    rows = {row["bot"]: row for row in section["standings"]}
    assert (rows["alpha"]["rank_low"], rows["alpha"]["rank_high"]) == (1, 1) and rows["alpha"]["decided"]
    assert rows["eps"]["rank_high"] == 5
    every = section["standings"]
    assert all(row["rank_low"] <= row["rank"] <= row["rank_high"] or not row["decided"] for row in every)
    assert any(row["decided"] is False for row in every)  # beta (1.0) and gamma (0.9) are too close to call
    assert "?" in render({**build_leaderboard(MemoryStore({"g": duplicate_games(STRENGTH, 4, 40, seed=3)})),
                          "sections": [section]}, "table")


def test_the_rating_has_a_95_percent_interval_and_the_board_names_its_rater():
    rows = duplicate_games(STRENGTH, 4, deals=3)
    for rater, title in (("trueskill", "TrueSkill"), ("openskill", "OpenSkill (Plackett-Luce)")):
        board = build_leaderboard(MemoryStore({"g": rows}, {"rating": rater}))
        assert board["rating"]["rater"] == rater
        expected = rate(rater, from_rows(rows).rated_games())
        for row in board["sections"][0]["standings"]:
            mine = expected[row["bot"]]
            assert row["rating"] == pytest.approx(mine.mu)
            assert (row["rating_low"], row["rating_high"]) == pytest.approx((mine.mu - 1.96 * mine.sigma,
                                                                              mine.mu + 1.96 * mine.sigma), abs=1e-3)
        assert f"rated with {title}" in render(board, "table")
        assert json.loads(render(board, "json"))["rating"]["title"] == title


def test_the_overall_section_states_its_rule_and_never_shows_a_mixed_rating():
    board = build_leaderboard(MemoryStore({"one": duplicate_games(STRENGTH, 3, 2, seed=1),
                                           "two": duplicate_games(STRENGTH, 4, 2, seed=2)}))
    overall = board["sections"][-1]
    assert overall["game"] == "overall" and all(row["rating"] is None for row in overall["standings"])
    text = render(board, "markdown")
    assert "ordered by the mean of their ranks in the games they play" in text
    assert "mean game rank" in text and "game ranks" in text


def test_wide_names_keep_the_columns_aligned():
    strength = {"天才机器人": 1.0, "random": 0.0, "商人": 0.5, "trader": -0.5}
    board = build_leaderboard(MemoryStore({"g": duplicate_games(strength, 3, 2)}))
    text = render(board, "table")
    table = text.split("\n\n")[2].splitlines()  # title, section title, then the standings
    assert any("天才机器人" in line for line in table)
    widths = {wcwidth.wcswidth(line) for line in table}
    assert len(widths) == 1, table
    head_to_head = [block for block in text.split("\n\n") if block.startswith("bot ")][0].splitlines()
    assert len({wcwidth.wcswidth(line) for line in head_to_head}) == 1


def test_diff_of_one_section_compares_that_section_only():
    def board(deals: int) -> dict:
        return build_leaderboard(MemoryStore({game: duplicate_games(STRENGTH, 3, deals) for game in ("one", "two")}))

    old, new = board(1), board(3)
    for game in ("one", "two", "overall"):
        diff = diff_boards(old, select(new, game))
        assert [section["game"] for section in diff["sections"]] == [game] and diff["dropped"] == []
        text = render_diff(diff, "markdown")
        assert "is gone" not in text and f"#### {game}" in text
        assert all(row["old_rank"] is not None for row in diff["sections"][0]["rows"])
    whole = diff_boards(old, new)
    assert [section["game"] for section in whole["sections"]] == ["one", "two", "overall"] and not whole["dropped"]
    assert "mean game rank" in render_diff(whole, "table")
    json.loads(render_diff(diff_boards(old, select(new, "two")), "json"))


def test_a_game_not_played_yet_leaves_its_order_open_and_the_overall_ranks_alone():
    store = MemoryStore({"one": duplicate_games(STRENGTH, 3, 2), "two": []})
    store.head["plan"]["games"][1]["entries"] = list(STRENGTH)
    board = build_leaderboard(store)
    two, overall = board["sections"][1], board["sections"][2]
    assert all((row["rank_low"], row["rank_high"], row["games"]) == (1, 5, 0) for row in two["standings"])
    one = {row["bot"]: row["rank"] for row in board["sections"][0]["standings"]}
    assert all(row["game_ranks"] == {"one": one[row["bot"]]} for row in overall["standings"])


def test_a_large_field_shows_the_head_to_head_of_its_top_bots_and_keeps_every_pair_in_json():
    strength = {f"bot{n:02d}": n / 10 for n in range(20)}
    tables = [tuple(f"bot{(start + step) % 20:02d}" for step in (0, 1, 3)) for start in range(20)]
    board = build_leaderboard(MemoryStore({"g": duplicate_games(strength, 3, 2, tables=tables)}))
    text = render(board, "table")
    assert "the top 16 of 20 bots shown here" in text
    header = [line for line in text.splitlines() if line.startswith("bot ")][0]
    assert len(header.split()) == 1 + 16
    assert sum(len(others) for others in board["sections"][0]["head_to_head"].values()) == 20 * 3 * 2
