"""Ratings and leaderboards: TrueSkill in schedule order, the figures checked against the records, every format."""

from __future__ import annotations

import csv
import io
import json
import os
import random
import re

import numpy as np
import pytest
import trueskill
from click.testing import CliRunner

from arena.cli import cli
from arena.plugins import get_plugins
from arena.tournament.config import parse_tournament
from arena.standings.seats import from_rows
from arena.standings.leaderboard import build_leaderboard, write_files
from arena.standings.ratings import ENVIRONMENT, cached_ratings, rate_games
from arena.tournament.runner import run_tournament
from arena.tournament.schedule import build_schedule
from arena.runs.seeds import public_secret
from arena.runs.spec import FinishedGame
from arena.runs.store import create_or_open, open_store
from tournament_files import tournament_data

BOTS = ["random", "trader", "appraiser", "r2=py:arena_bots.random_bot:RandomBot",
        "r3=py:arena_bots.random_bot:RandomBot"]


def make_tournament(name="lb"):
    data = tournament_data(BOTS, "modern-art:3,silk-road:3", name=name, seed=9, deals=2)
    return parse_tournament(data, f"{name}.toml", get_plugins())


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("results")
    outcome = run_tournament(make_tournament(), get_plugins(), root=str(root), jobs=2, sandbox="none",
                             progress_stream=io.StringIO())
    assert outcome.played == outcome.total == 4 * 2 * 3 + 4 * 2 * 3  # C(4, 3) tables per game
    store = open_store(outcome.folder)
    write_files(outcome.folder, build_leaderboard(store))
    store.close()
    return outcome.folder


@pytest.fixture(scope="module")
def records(folder):
    store = open_store(folder)
    try:
        return [json.loads(text) for text in store.records()]
    finally:
        store.close()


def read(folder: str, name: str) -> str:
    with open(os.path.join(folder, name), encoding="utf-8") as handle:
        return handle.read()


def expected_ratings(records, game):
    """TrueSkill straight from the library, game by game in schedule (id) order."""
    env = trueskill.TrueSkill(**ENVIRONMENT)
    ratings = {}
    for record in records:
        if record["game"] != game:
            continue
        players = record["players"]
        assert len(set(players)) == len(players)
        new = env.rate([(ratings.get(bot, env.create_rating()),) for bot in players], ranks=record["result"]["ranks"])
        ratings.update({bot: rating for bot, (rating,) in zip(players, new)})
    return ratings


def section(board, name):
    return next(s for s in board["sections"] if s["game"] == name)


def test_standings_match_the_records(folder, records):
    board = json.loads(read(folder, "leaderboard.json"))
    assert [s["game"] for s in board["sections"]] == ["modern-art", "silk-road", "overall"]
    assert (board["games"], board["scheduled"]) == (len(records), len(records))
    for game in ("modern-art", "silk-road"):
        expected = expected_ratings(records, game)
        rows = section(board, game)["standings"]
        assert [row["rank"] for row in rows] == list(range(1, len(rows) + 1))
        assert [row["rating"] for row in rows] == sorted((row["rating"] for row in rows), reverse=True)
        for row in rows:
            bot = row["bot"]
            seats = [(r, s) for r in records if r["game"] == game for s, name in enumerate(r["players"]) if name == bot]
            assert row["mu"] == row["rating"] == pytest.approx(expected[bot].mu, abs=1e-9)
            mu, sigma = expected[bot].mu, expected[bot].sigma
            interval = (mu - 1.96 * sigma, mu + 1.96 * sigma)
            assert (row["rating_low"], row["rating_high"]) == pytest.approx(interval, abs=1e-3)
            assert row["sigma"] == pytest.approx(expected[bot].sigma, abs=1e-9)
            assert row["score"] == pytest.approx(expected[bot].mu - 3 * expected[bot].sigma, abs=1e-9)
            assert row["games"] == len(seats)
            assert row["firsts"] == sum(r["result"]["ranks"][s] == 1 for r, s in seats)
            assert row["mean_rank"] == pytest.approx(sum(r["result"]["ranks"][s] for r, s in seats) / len(seats))
            assert row["mean_money"] == pytest.approx(sum(r["result"]["money"][s] for r, s in seats) / len(seats))
            assert row["faults"] == sum(f["seat"] == s for r, s in seats for f in r["faults"])
    assert {row["bot"] for row in section(board, "modern-art")["standings"]} == {"random", "appraiser", "r2", "r3"}
    assert section(board, "modern-art")["notes"] == ["trader is left out: it does not play modern-art"]


def test_head_to_head_counts_match_the_records(folder, records):
    board = json.loads(read(folder, "leaderboard.json"))
    pairs = section(board, "silk-road")["head_to_head"]
    def placing(record, bot):
        return record["result"]["ranks"][record["players"].index(bot)]

    above = sum(1 for r in records if r["game"] == "silk-road" and {"trader", "random"} <= set(r["players"])
                and placing(r, "trader") < placing(r, "random"))
    meetings = sum(1 for r in records if r["game"] == "silk-road" and {"trader", "random"} <= set(r["players"]))
    assert pairs["trader"]["random"]["above"] == above == pairs["random"]["trader"]["below"]
    assert pairs["trader"]["random"]["meetings"] == meetings == 2 * 2 * 3  # two tables hold both


def test_the_overall_section_ranks_by_the_mean_of_the_game_ranks(folder):
    board = json.loads(read(folder, "leaderboard.json"))
    games = ("modern-art", "silk-road")
    ranks = {g: {row["bot"]: row["rank"] for row in section(board, g)["standings"]} for g in games}
    overall = section(board, "overall")["standings"]
    tiers = [(-len(row["game_ranks"]), row["mean_game_rank"]) for row in overall]
    assert tiers == sorted(tiers)  # more games played first (a one-game bot never outranks both), then the mean
    by_bot = {row["bot"]: row for row in overall}
    assert by_bot["random"]["mean_game_rank"] == pytest.approx(sum(ranks[g]["random"] for g in games) / 2)
    assert by_bot["random"]["game_ranks"] == {g: ranks[g]["random"] for g in games}
    assert by_bot["trader"]["mean_game_rank"] == ranks["silk-road"]["trader"]  # plays one game: its rank there
    assert all(row["mu"] is None for row in overall)  # ratings of different games are never combined
    assert by_bot["random"]["games"] == sum(
        row["games"] for g in games for row in section(board, g)["standings"] if row["bot"] == "random")
    assert section(board, "overall")["notes"] == ["trader is ranked on silk-road only",
                                                  "appraiser is ranked on modern-art only"]


def test_the_files_say_the_same_in_markdown_and_csv(folder):
    board = json.loads(read(folder, "leaderboard.json"))
    markdown = read(folder, "leaderboard.md")
    assert markdown.startswith(f"# Tournament lb: {board['games']} of {board['games']} games played\n")
    assert "## modern-art (24 of 24 games)" in markdown and "## all games (48 of 48 games)" in markdown
    assert "- trader is left out: it does not play modern-art" in markdown
    assert "- overall: bots are ordered by the mean of their ranks in the games they play" in markdown
    assert "- rated with TrueSkill" in markdown
    assert re.search(r"^\| +rank \| +ranks \| bot +\| +rating \| +95% interval \| +vs next \| +games \| +firsts \| "
                     r"+mean placing \| +mean money \| +faults \|$", markdown, re.MULTILINE)
    best = section(board, "silk-road")["standings"][0]
    assert f"| {best['bot']}" in markdown and f"{best['rating']:.2f}" in markdown
    rows = list(csv.DictReader(io.StringIO(read(folder, "leaderboard.csv"))))
    assert list(rows[0]) == ["section", "rank", "bot", "rank_low", "rank_high", "rating", "rating_low", "rating_high",
                             "mu", "sigma", "vs_next", "decided", "games", "seats", "firsts", "mean_rank", "mean_money",
                             "faults", "mean_game_rank"]
    assert [row["section"] for row in rows].count("overall") == 5
    for row in rows:
        same = next(r for r in section(board, row["section"])["standings"] if r["bot"] == row["bot"])
        assert int(row["rank"]) == same["rank"] and int(row["games"]) == same["games"]
        if row["section"] != "overall":
            assert float(row["rating"]) == pytest.approx(same["rating"], abs=1e-4)


@pytest.mark.parametrize("form, starts", [("table", "Tournament lb"), ("markdown", "# Tournament lb"),
                                          ("csv", "section,rank,bot"), ("json", "{"), ("html", "<!doctype html>")])
def test_the_leaderboard_command_renders_every_format(folder, form, starts):
    result = CliRunner().invoke(cli, ["leaderboard", folder, "--format", form])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(starts)
    if form == "html":
        assert result.output.count("<table>") == 6 and "trader is left out" in result.output


def test_the_leaderboard_of_one_game(folder):
    result = CliRunner().invoke(cli, ["leaderboard", folder, "--game", "silk-road", "--format", "json"])
    assert [s["game"] for s in json.loads(result.output)["sections"]] == ["silk-road"]
    wrong = CliRunner().invoke(cli, ["leaderboard", folder, "--game", "chess"])
    assert wrong.exit_code == 2
    assert wrong.output.strip() == ("Error: tournament lb has no game 'chess' "
                                    "(choose from: modern-art, silk-road, overall)")


def test_ratings_follow_the_schedule_not_the_order_games_were_stored(folder, tmp_path, records):
    """Store the same games in a shuffled order: the leaderboard does not change."""
    tournament = make_tournament()
    secret = public_secret(tournament.seed)
    schedule = build_schedule(tournament, get_plugins(), secret)
    specs = schedule.specs("none", get_plugins(), secret, {entrant.name: "v" for entrant in tournament.entrants})
    (tmp_path / "lb").mkdir()
    shuffled = create_or_open(str(tmp_path / "lb"), {"name": "lb", "kind": "tournament",
                                                      "definition": tournament.definition(),
                                                      "plan": schedule.summary(), "total": len(specs)})
    by_id = {spec.id: spec for spec in specs}
    order = list(records)
    random.Random(4).shuffle(order)
    for record in order:
        shuffled.add(FinishedGame(by_id[record["id"]], record))
    store = open_store(folder)
    try:
        assert build_leaderboard(shuffled) == build_leaderboard(store)
    finally:
        store.close()
        shuffled.close()


def test_equal_ranks_are_draws():
    tied = rate_games([(0, "a", 1), (0, "b", 1), (0, "c", 3)])
    assert tied["a"].mu == pytest.approx(tied["b"].mu, abs=0.01)  # TrueSkill's message passing is near-symmetric
    beaten = rate_games([(0, "a", 1), (0, "b", 2), (0, "c", 3)])
    assert beaten["a"].mu > tied["a"].mu > beaten["b"].mu


def test_a_bot_in_two_seats_takes_the_mean_of_its_seats():
    env = trueskill.TrueSkill(**ENVIRONMENT)
    (first,), (second,), (other,) = env.rate([(env.create_rating(),)] * 3, ranks=[1, 2, 3])
    ratings = rate_games([(0, "a", 1), (0, "b", 2), (0, "a", 3)])
    assert ratings["a"].mu == pytest.approx((first.mu + other.mu) / 2)
    assert ratings["a"].sigma == pytest.approx((first.sigma + other.sigma) / 2)
    assert ratings["b"].mu == pytest.approx(second.mu)


def test_ratings_are_cached_per_number_of_games_and_rater(folder):
    store = open_store(folder)
    try:
        seats = from_rows(store.seats_with_blocks("silk-road"))
        ratings = cached_ratings(store, "silk-road", "trueskill", seats)
        cached = store.cached_figures("silk-road", store.count("silk-road"))
        assert cached == {"rater": "trueskill", "ratings": {bot: [r.mu, r.sigma] for bot, r in ratings.items()}}
        assert store.cached_figures("silk-road", store.count("silk-road") - 1) is None
        assert cached_ratings(store, "silk-road", "trueskill", seats) == ratings
        other = cached_ratings(store, "silk-road", "openskill", seats)
        assert other != ratings and store.cached_figures("silk-road", store.count("silk-road"))["rater"] == "openskill"
    finally:
        store.close()


def _cached_trueskill(folder):
    """Per game of ``folder``'s store, the live ratings its run's writer cached (None: the writer gave none)."""
    store = open_store(folder)
    try:
        return {game: store.cached_figures(game, store.count(game)) for game in ("modern-art", "silk-road")}
    finally:
        store.close()


def test_rating_beside_the_writer_gives_the_writers_ratings(tmp_path, monkeypatch):
    """Runs of many workers rate in a process beside the store writer: the same ratings, cached by the run."""
    from arena.runs import loop

    cached = {}
    for threshold in (6, 2):  # a -j 2 run as it is, then rating aside as -j 6 and more do
        monkeypatch.setattr(loop, "RATE_ASIDE_FROM_JOBS", threshold)
        outcome = run_tournament(make_tournament(), get_plugins(), root=str(tmp_path / str(threshold)), jobs=2,
                                 sandbox="none", progress_stream=io.StringIO())
        cached[threshold] = _cached_trueskill(outcome.folder)
    assert all(found is not None for found in cached[2].values())  # rated live, not left to the leaderboard
    assert cached[2] == cached[6]


def test_rating_beside_the_writer_that_fails_costs_no_game(tmp_path, monkeypatch, folder):
    """The process beside the writer raises: every game is stored, and the leaderboard rates them itself."""
    from arena.runs import loop
    from arena.standings import live_ratings

    def broken(self, games):
        raise RuntimeError("a rating that fails")

    monkeypatch.setattr(loop, "RATE_ASIDE_FROM_JOBS", 2)
    monkeypatch.setattr(live_ratings._Rating, "add_placings", broken)  # forked with the writer, then beside it
    outcome = run_tournament(make_tournament(), get_plugins(), root=str(tmp_path), jobs=2, sandbox="none",
                             progress_stream=io.StringIO())
    assert outcome.played == outcome.total and not outcome.failed
    assert all(cached is None for cached in _cached_trueskill(outcome.folder).values())
    log_text = read(outcome.folder, "arena.log")
    assert "store-rater ERROR - arena.runs: the store writer's _Rating, beside it, failed" in log_text
    store, before = open_store(outcome.folder), open_store(folder)
    try:
        assert build_leaderboard(store)["sections"] == build_leaderboard(before)["sections"]
    finally:
        store.close()
        before.close()


def _rows_from_store(folder):
    """The store's games as its writer received them: per game its games row fields and its seats' rows."""
    store = open_store(folder)
    try:
        games = store.query("SELECT row, key, id, game, table_label, deal, rotation, current FROM games")
        seats = {}
        for row, bot, version, money, rank, faults in store.query(
                "SELECT row, bot, version, money, rank, faults FROM seats ORDER BY row, seat"):
            seats.setdefault(row, []).append((bot, version, money, rank, faults))
        return [((key, game_id, game, table, deal, rotation, current), tuple(seats[row]))
                for row, key, game_id, game, table, deal, rotation, current in games]
    finally:
        store.close()


def test_seats_kept_as_they_came_equal_the_seats_read_back(folder):
    """Games collected in any order (a bot in two seats included) give the GameSeats the store's read gives."""
    from arena.standings.seats import SeatCollector, from_columns

    rows = _rows_from_store(folder)
    twice = rows[0][0][:6] + (max(fields[6] for fields, _ in rows) + 1,)  # one more game: bot "random" seated twice
    rows.append((twice, (("random", "v", 3, 2, 0), ("trader", "v", 5, 1, 1), ("random", "v", 3, 2, 0))))
    random.Random(7).shuffle(rows)
    for game in ("modern-art", "silk-road"):
        collector = SeatCollector()
        for fields, seats in rows:
            if fields[2] == game:
                collector.add(fields, seats)
        ordered = sorted((fields[6], fields[3], fields[4], seat, bot, rank, money, faults)
                         for fields, seats in rows if fields[2] == game
                         for seat, (bot, _, money, rank, faults) in enumerate(seats))
        expected = from_rows([(order, table, deal, bot, rank, money, faults)
                              for order, table, deal, _, bot, rank, money, faults in ordered])
        got = from_columns(collector.columns)
        for name in expected.__dataclass_fields__:
            want, have = getattr(expected, name), getattr(got, name)
            assert (np.array_equal(want, have) and want.dtype == have.dtype if isinstance(want, np.ndarray)
                    else list(want) == list(have)), name


def test_a_runs_leaderboard_takes_its_seats_from_the_run_and_says_the_same(tmp_path, monkeypatch):
    """A run that played every game hands its leaderboard the seats its writer stored: no seat is read back,
    and the leaderboard is the one read from the store."""
    outcome = run_tournament(make_tournament(), get_plugins(), root=str(tmp_path), jobs=2, sandbox="none",
                             progress_stream=io.StringIO())
    assert sorted(outcome.seats) == ["modern-art", "silk-road"]
    store = open_store(outcome.folder)
    try:
        read_back = build_leaderboard(store)
        monkeypatch.setattr(type(store), "seats_with_blocks", lambda *args: pytest.fail("seats read back"))
        assert build_leaderboard(store, seats=outcome.seats) == read_back
    finally:
        store.close()


def test_a_resumed_run_reads_its_seats_back(tmp_path, monkeypatch):
    """Games reused from an earlier run are not the writer's to give: the leaderboard reads the store."""
    from arena.runs import loop

    root = str(tmp_path)
    calls = []
    real = loop.run_schedule

    def first_quarter(specs, *args, **kwargs):  # the first run stops after half of modern-art's games
        calls.append(len(specs))
        return real(specs[:len(specs) // 4] if len(calls) == 1 else specs, *args, **kwargs)

    monkeypatch.setattr("arena.runs.run.run_schedule", first_quarter)
    run_tournament(make_tournament(), get_plugins(), root=root, jobs=2, sandbox="none", progress_stream=io.StringIO())
    outcome = run_tournament(make_tournament(), get_plugins(), root=root, jobs=2, sandbox="none",
                             progress_stream=io.StringIO())
    assert 0 < outcome.reused < outcome.total and outcome.played == outcome.total - outcome.reused
    assert list(outcome.seats) == ["silk-road"]  # modern-art's first half was reused
    store = open_store(outcome.folder)
    try:
        board = build_leaderboard(store, seats=outcome.seats)
        fresh = run_tournament(make_tournament(), get_plugins(), root=str(tmp_path / "fresh"), jobs=2,
                               sandbox="none", progress_stream=io.StringIO())
        other = open_store(fresh.folder)
        try:
            assert board["sections"] == build_leaderboard(other, seats=fresh.seats)["sections"]
        finally:
            other.close()
    finally:
        store.close()


def test_head_to_head_per_block_sums_are_the_same_counted_densely_or_sorted(monkeypatch):
    """The per block-and-pair sums that the head-to-head intervals use: counted in a dense array when the keys
    are few, by np.unique when they are not; the same keys, sums and counts (the same floats) either way."""
    from arena.standings import figures

    rng = np.random.default_rng(3)
    key = rng.integers(0, 5000, size=20000)
    score = rng.choice([0.0, 0.5, 1.0], size=20000)
    dense = figures._per_key(key, score)
    monkeypatch.setattr(figures, "_DENSE_KEYS", 0)
    sorted_ = figures._per_key(key, score)
    assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(dense, sorted_))
    assert dense[0].tolist() == sorted(set(key.tolist()))
