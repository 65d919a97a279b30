"""The replay page's frames, the report's data and the commands' errors, without a browser."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.errors import RecordError
from arena.report.replay_page import replay_frames, replay_page
from arena.report.site import rating_histories
from arena.runs import packed
from tournament_files import write_tournament


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def play(game: str, *bots: str, seed: int = 3) -> dict:
    specs = [part for bot in bots for part in ("-b", bot)]
    result = run("play", game, *specs, "--seed", str(seed), "--sandbox", "none", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def panel(frame: dict, title: str) -> dict:
    return next(panel for panel in frame["panels"] if panel["title"].startswith(title))


def money(frame: dict) -> list[int]:
    return [row[2]["text"] for row in panel(frame, "Players")["rows"]]


@pytest.fixture(scope="module")
def modern_art() -> dict:
    return play("modern-art", "random", "random", "random", "random")


@pytest.fixture(scope="module")
def silk_road() -> dict:
    return play("silk-road", "random", "trader", "random")


def test_a_frame_per_move_plus_the_deal_ending_on_the_records_money(modern_art, silk_road, plugins):
    for record in (modern_art, silk_road):
        frames = replay_frames(record, plugins)["frames"]
        assert len(frames) == len(record["moves"]) + 1
        assert frames[0]["label"].startswith("The deal")
        assert money(frames[-1]) == record["result"]["money"]
        assert frames[-1]["next"] == "The game is over."


def test_every_hand_is_shown_and_private_events_are_marked(modern_art, plugins):
    data = replay_frames(modern_art, plugins)
    first = data["frames"][0]
    hands = [row[3]["cards"] for row in panel(first, "Players")["rows"]]
    assert [len(hand) for hand in hands] == [len(hand) for hand in modern_art["setup"]["hands"]]
    assert sorted(hands[2]) == sorted(modern_art["setup"]["hands"][2])
    assert all(str(card) in json.loads(json.dumps(data["chips"])) for hand in hands for card in hand)
    assert sum("(only seat" in line for line in first["events"]) == 4


def test_modern_art_shows_the_lot_bids_board_and_payouts_as_of_each_step(modern_art, plugins):
    frames = replay_frames(modern_art, plugins)["frames"]
    assert panel(frames[0], "Each round's payouts")["rows"][0][0] == "none yet"
    final_payouts = panel(frames[-1], "Each round's payouts")["rows"]
    assert [row[0] for row in final_payouts] == [1, 2, 3, 4]
    first_sale = next(frame for frame in frames if any("buys the lot" in line or "takes the lot" in line
                                                       for line in frame["events"]))
    lot = {row[0]: row[1] for row in panel(first_sale, "Lot on auction")["rows"]}
    assert lot["cards"]["cards"] and lot["auction"] and lot["outcome"] != "bidding"
    board = panel(frames[-1], "Artists")
    assert [row[-1] for row in board["rows"]] == [sum(value or 0 for value in row[2:6]) for row in board["rows"]]


def test_silk_road_shows_the_market_ships_and_each_delivery(silk_road, plugins):
    frames = replay_frames(silk_road, plugins)["frames"]
    assert len(panel(frames[0], "Market")["rows"][0]) == 6
    assert panel(frames[0], "Deliveries")["rows"][0][0] == "none yet"
    delivered = next(frame for frame in frames if any(" delivers " in line for line in frame["events"]))
    assert panel(delivered, "Deliveries")["rows"][0][0] != "none yet"
    ships = [row[4]["cards"] for row in panel(frames[-1], "Players")["rows"]]
    assert all(len(cargo) >= 2 for cargo in ships)
    supply = {row[0]: row[1] for row in panel(frames[-1], "Supply")["rows"]}
    assert supply["deck (goods cards)"] == 0


def test_a_record_that_does_not_replay_is_refused(silk_road, plugins):
    broken = json.loads(json.dumps(silk_road))
    broken["result"]["money"][0] += 1
    with pytest.raises(RecordError, match="result differs"):
        replay_page(broken, plugins)


def test_the_page_holds_everything_and_survives_a_closing_script_tag(silk_road, plugins):
    record = json.loads(json.dumps(silk_road))
    record["players"][0] = "</script><b>x"
    record["result"] = silk_road["result"]
    html = replay_page(record, plugins)
    assert html.count("</script>") == 2  # the data block and the viewer script, nothing else
    assert "&lt;/script&gt;&lt;b&gt;x" in html
    assert "http://" not in html and "https://" not in html
    assert "This replay is omniscient" in html


def test_play_html_to_a_missing_folder_is_one_line(tmp_path):
    result = run("play", "silk-road", "-b", "random", "-b", "random", "--seed", "1", "--sandbox", "none",
                 "--html", str(tmp_path / "missing" / "game.html"))
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "cannot write" in result.output and "Traceback" not in result.output


def test_report_needs_a_results_folder(tmp_path):
    result = run("report", str(tmp_path))
    assert result.exit_code == 2 and "no results.sqlite" in result.output


@pytest.mark.parametrize("command", ["report", "serve"])
def test_report_and_serve_without_matplotlib_say_what_to_install(tmp_path, monkeypatch, command):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = run(command, str(tmp_path))
    assert result.exit_code == 2
    assert result.output.strip() == f"Error: arena {command} draws its charts with matplotlib: " \
                                    "pip install 'knizia-arena[report]' (or pip install matplotlib)"


def test_rating_history_starts_at_the_prior_and_ends_at_the_ratings():
    placings = [(1, "a", 1), (1, "b", 2), (1, "c", 3), (2, "a", 2), (2, "b", 1), (2, "c", 3), (3, "b", 1), (3, "c", 2)]
    from arena.standings.ratings import rate_games

    final = rate_games(placings)
    series = rating_histories(placings)
    assert [point[0] for point in series["a"]] == [0, 1, 2]
    assert [point[0] for point in series["b"]] == [0, 1, 2, 3]
    assert series["c"][0][1:] == pytest.approx((25.0, 25 / 3))
    for bot, rating in final.items():
        assert series[bot][-1][1:] == pytest.approx((rating.mu, rating.sigma))


def test_a_game_without_a_describer_still_gets_money_hands_and_the_public_view(silk_road, plugins, monkeypatch):
    from arena.report import replay_page as module

    monkeypatch.setattr(module, "DESCRIBERS", {})
    data = replay_frames(silk_road, plugins)
    last = data["frames"][-1]
    assert money(last) == silk_road["result"]["money"]
    assert panel(last, "Table")["rows"] and panel(last, "Players")["head"][3] == "hand"
    assert any(line.startswith("deliver: ") for frame in data["frames"] for line in frame["events"])


def test_a_record_that_no_longer_replays_gets_a_page_saying_why_and_reports_repeat_exactly(tmp_path):
    import sqlite3

    path = write_tournament(tmp_path, ["random", "trader"], "silk-road:2", deals=1, name="duel", seed=1)
    assert run("run", path, "-j", "1", "--results", str(tmp_path)).exit_code == 0
    folder = tmp_path / "duel"
    with sqlite3.connect(folder / "results.sqlite") as db:
        seq, stored = db.execute("SELECT row, record FROM games ORDER BY current LIMIT 1").fetchone()
        record = json.loads(packed.record_text(stored))
        record["result"]["money"][0] += 5
        db.execute("UPDATE games SET record = ? WHERE row = ?", (packed.compress(json.dumps(record).encode()), seq))
    result = run("report", str(folder))
    assert result.exit_code == 0, result.output
    assert "replay pages: 1" in result.stdout
    assert "result differs" in result.stderr and record["id"] in result.stderr
    pages = sorted((folder / "report" / "games").iterdir())
    assert len(pages) == 2 and "cannot be replayed" in pages[0].read_text()
    assert "1 records do not replay" in (folder / "report" / "games.html").read_text()
    assert run("report", str(folder)).exit_code == 0  # writing over an earlier report is fine
    assert run("report", str(folder), "--out", str(tmp_path / "again")).exit_code == 0
    first = {path.relative_to(folder / "report"): path.read_bytes() for path in (folder / "report").rglob("*.*")}
    second = {path.relative_to(tmp_path / "again"): path.read_bytes() for path in (tmp_path / "again").rglob("*.*")}
    assert first == second  # the same results give the same files, charts included
