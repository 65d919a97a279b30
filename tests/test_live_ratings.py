"""The store writer's live rating (arena.standings.live_ratings) gives exactly the ratings of rating the games
afterwards in schedule order, whatever order and batches the games are stored in.

The writer rates each batch it stores in one pass (the games ready in
schedule order go to the rater together); these tests hand its task batches
of store rows as a run's writer would, games out of order, a bot in two
seats and drawn places among them, and compare with :func:`rate` of the same
games in schedule order, for both raters.
"""

from __future__ import annotations

import random

import pytest

from arena.standings.live_ratings import _Rating
from arena.standings.raters import rate

BOTS = ["ann", "bob", "cy", "dee", "eve"]


def schedule(games: int, seed: int) -> list[tuple[str, int, list[str], list[int]]]:
    """``games`` games of 3 or 4 seats in schedule order: (game, order, bots by seat, ranks by seat), some with
    a bot in two seats, some with drawn places."""
    draw = random.Random(seed)
    made = []
    for order in range(games):
        seats = draw.choice((3, 4))
        bots = draw.sample(BOTS, seats) if order % 5 else ([BOTS[0], BOTS[1], BOTS[0]] + BOTS[2:])[:seats]
        ranks = sorted(draw.choice((1, 1, 2)) + seat for seat in range(seats))
        draw.shuffle(ranks)
        made.append(("modern-art", order, bots, ranks))
    return made


def rows_of(games: list[tuple[str, int, list[str], list[int]]]) -> list[tuple]:
    """The store's rows of ``games`` (arena.runs.store.game_rows's shape: games row, seats' rows, faults)."""
    return [((f"key{order}", f"id{order}", game, "t", order // 4, order % 4, order, b"", ""),
             tuple((bot, "v", 100 - rank, rank, 0) for bot, rank in zip(bots, ranks)), ())
            for game, order, bots, ranks in games]


@pytest.mark.parametrize("rater", ["trueskill", "openskill"])
def test_batches_out_of_order_rate_as_the_schedule_does(rater):
    games = schedule(300, seed=7)
    assert any(len(set(bots)) < len(bots) for _, _, bots, _ in games)  # a bot in two seats
    assert any(len(set(ranks)) < len(ranks) for _, _, _, ranks in games)  # drawn places
    arrived = games[:]
    random.Random(3).shuffle(arrived[40:])  # the first games in order, the rest as workers finish them
    task = _Rating(rater, {"modern-art": list(range(len(games)))}, [])
    task.begin()
    cut = 0
    draw = random.Random(5)
    while cut < len(arrived):
        size = draw.randint(1, 60)
        task.add(rows_of(arrived[cut:cut + size]))
        cut += size
    result = task.result()
    expected = rate(rater, [(bots, ranks) for _, _, bots, ranks in games])
    assert result.ratings["modern-art"] == {bot: (rating.mu, rating.sigma) for bot, rating in expected.items()}


def test_placings_sent_beside_the_writer_rate_as_the_rows_do():
    games = schedule(120, seed=11)
    arrived = games[::-1]
    by_rows = _Rating("trueskill", {"modern-art": list(range(len(games)))}, [])
    by_placings = _Rating("trueskill", {"modern-art": list(range(len(games)))}, [])
    for task in (by_rows, by_placings):
        task.begin()
    for cut in range(0, len(arrived), 25):
        by_rows.add(rows_of(arrived[cut:cut + 25]))
        by_placings.add_placings(arrived[cut:cut + 25])
    assert by_rows.result().ratings == by_placings.result().ratings


def test_a_one_game_runs_leaderboard_takes_the_runs_seats_only_while_the_store_holds_as_many(tmp_path, monkeypatch):
    """The run's seats stand for the store's while its count of current games agrees (read from an index alone
    for a tournament of one game); once the store holds another number, the leaderboard reads it back."""
    import io

    from arena.plugins import get_plugins
    from arena.runs.store import Store, open_store
    from arena.standings.leaderboard import build_leaderboard
    from arena.tournament.config import load_tournament
    from arena.tournament.runner import run_tournament
    from tournament_files import write_tournament

    plugins = get_plugins()
    bots = ['spec = "random"', 'spec = "r2=random"', 'spec = "r3=random"', 'spec = "r4=random"']
    tournament = load_tournament(write_tournament(tmp_path, bots, "modern-art:4", deals=6, name="cup"), plugins)
    outcome = run_tournament(tournament, plugins, root=str(tmp_path / "results"), jobs=2, sandbox="none",
                             progress_stream=io.StringIO())
    assert list(outcome.seats) == ["modern-art"] and outcome.seats["modern-art"].games == 24
    read = []
    real = Store.seats_with_blocks
    monkeypatch.setattr(Store, "seats_with_blocks", lambda store, game: read.append(game) or real(store, game))
    store = open_store(outcome.folder)
    try:
        assert build_leaderboard(store, seats=outcome.seats) == build_leaderboard(store)
        assert read == ["modern-art"]  # only the leaderboard without the run's seats read them
        store.db.execute("UPDATE games SET current = NULL WHERE row = (SELECT MAX(row) FROM games)")
        board = build_leaderboard(store, seats=outcome.seats)
        assert read == ["modern-art", "modern-art"]  # 23 current games now: the run's 24 seats are not used
        assert board == build_leaderboard(store) and board["games"] == 23
    finally:
        store.close()


def test_seats_kept_by_the_writer_number_deal_blocks_as_the_stores_rows_do():
    """Several tables and deals, games arriving in any order: from_columns numbers each deal block (a table and a
    deal) by its first game in schedule order, as from_rows does, and lists names and placings the same."""
    import numpy as np

    from arena.standings.seats import SeatCollector, from_columns, from_rows

    draw = random.Random(13)
    games = []
    for order in range(400):
        table, deal = draw.choice(["a+b+c", "b+c+d", "t3"]), draw.randint(1, 60)
        bots = draw.sample(BOTS, 3)
        games.append((order, table, deal, bots, [1 + (seat + order) % 3 for seat in range(3)]))
    collector = SeatCollector()
    for order, table, deal, bots, ranks in draw.sample(games, len(games)):
        collector.add(("k", "id", "g", table, deal, 0, order),
                      tuple((bot, "v", 10 * rank, rank, 0) for bot, rank in zip(bots, ranks)))
    got = from_columns(collector.columns)
    want = from_rows([(order, table, deal, bot, rank, 10 * rank, 0)
                      for order, table, deal, bots, ranks in games for bot, rank in zip(bots, ranks)])
    assert np.array_equal(got.block, want.block) and got.block.dtype == want.block.dtype
    assert got.blocks == want.blocks == len({(table, deal) for _, table, deal, _, _ in games})
    assert list(got.names) == list(want.names) and list(got.ranks) == list(want.ranks)
    assert list(got.rated_games()) == [(list(bots), list(ranks)) for bots, ranks in want.rated_games()]
