"""The report and the replay page, opened in a real headless browser (Debian's chromium, driven by selenium).

Each test saves a screenshot of every page it opens under its temporary
folder. Skipped, with the reason, only when chromium or its driver is absent.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.report.replay_page import replay_frames
from arena.standings.ratings import rate_games
from tournament_files import write_tournament

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = [pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                 reason="needs chromium and chromedriver (apt-get install chromium chromium-driver)"),
              pytest.mark.slow]  # a real headless browser: ~20 s

BAD_BOT = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        print("{}", flush=True)
"""


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def browser(tmp_path):
    """A headless chromium with a fresh profile; collects the console's messages."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'chromium-profile'}",
                     "--window-size=1300,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    yield driver
    driver.quit()


def open_page(browser, path: Path):
    browser.get(path.resolve().as_uri())
    return browser


def console_errors(browser) -> list[dict]:
    return [entry for entry in browser.get_log("browser") if entry["level"] in ("SEVERE", "ERROR")]


def screenshot(browser, path: Path) -> None:
    """Save the whole page: the window is made as tall as the page (measured at a small height)."""
    browser.set_window_size(1300, 600)
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1300, min(max(height, 600), 8000))
    assert browser.save_screenshot(str(path))
    assert path.stat().st_size > 10_000


def loaded_from_outside(browser) -> list[str]:
    """Every resource the page loaded that is not a local file (none may be)."""
    return browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name).filter(n => !n.startsWith('file:'))")


def shown_money(browser) -> list[int]:
    return [int(cell.text) for cell in browser.find_elements("css selector", "#frame td.money")]


def position(browser) -> str:
    return browser.find_element("id", "position").text


@pytest.mark.parametrize("game, bots", [("modern-art", ["random", "random", "random", "random"]),
                                        ("silk-road", ["random", "trader", "random"])])
def test_a_replay_page_steps_to_the_records_final_money(browser, tmp_path, game, bots):
    from selenium.webdriver.common.keys import Keys

    page, record_file = tmp_path / f"{game}.html", tmp_path / f"{game}.json"
    specs = [part for bot in bots for part in ("-b", bot)]
    result = run("play", game, *specs, "--seed", "5", "--sandbox", "none", "--record", str(record_file),
                 "--html", str(page))
    assert result.exit_code == 0, result.output
    record = json.loads(record_file.read_text())
    steps = len(record["moves"])

    open_page(browser, page)
    assert "This replay is omniscient" in browser.find_element("css selector", ".banner").text
    assert position(browser) == f"step 0 of {steps}"
    assert shown_money(browser) == [100 if game == "modern-art" else 0] * len(bots)
    screenshot(browser, tmp_path / f"{game}-start.png")

    body = browser.find_element("tag name", "body")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert position(browser) == f"step 2 of {steps}"
    body.send_keys(Keys.ARROW_LEFT)
    assert position(browser) == f"step 1 of {steps}"
    browser.find_element("id", "next").click()
    assert position(browser) == f"step 2 of {steps}"

    browser.execute_script("const s = document.getElementById('slider');"
                           "s.value = s.max; s.dispatchEvent(new Event('input'));")
    assert position(browser) == f"step {steps} of {steps}"
    assert shown_money(browser) == record["result"]["money"]
    assert "The game is over." in browser.find_element("id", "frame").text
    screenshot(browser, tmp_path / f"{game}-end.png")

    final = browser.find_element("id", "final-result")
    assert not final.is_displayed()  # the ending is not given away before the viewer asks
    browser.find_element("css selector", "#final summary").click()
    by_seat = {int(row[1]): int(row[3]) for row in
               ([cell.text for cell in tr.find_elements("tag name", "td")]
                for tr in final.find_elements("css selector", "tbody tr"))}
    assert [by_seat[seat] for seat in range(len(bots))] == record["result"]["money"]

    browser.find_element("id", "first").click()
    assert position(browser) == f"step 0 of {steps}"
    body.send_keys(Keys.END)
    assert shown_money(browser) == record["result"]["money"]
    assert console_errors(browser) == []
    assert loaded_from_outside(browser) == []


def test_stepping_one_move_at_a_time_shows_every_steps_money(browser, tmp_path, plugins):
    page, record_file = tmp_path / "game.html", tmp_path / "game.json"
    result = run("play", "silk-road", "-b", "random", "-b", "random", "--seed", "2", "--sandbox", "none",
                 "--record", str(record_file), "--html", str(page))
    assert result.exit_code == 0, result.output
    record = json.loads(record_file.read_text())
    expected = [[row[2]["text"] for row in frame["panels"][0]["rows"]]
                for frame in replay_frames(record, plugins)["frames"]]
    open_page(browser, page)
    next_button = browser.find_element("id", "next")
    shown = [shown_money(browser)]
    for _ in range(len(record["moves"])):
        next_button.click()
        shown.append(shown_money(browser))
    assert shown == expected
    assert shown[-1] == record["result"]["money"]
    next_button.click()  # past the end: stays on the last step
    assert position(browser) == f"step {len(record['moves'])} of {len(record['moves'])}"
    assert console_errors(browser) == []


@pytest.fixture
def tournament(tmp_path, monkeypatch) -> Path:
    """A small tournament over both games, one of its bots answering every decision with a malformed action."""
    (tmp_path / "bad_bot.py").write_text(BAD_BOT)
    path = write_tournament(tmp_path, ["random", "trader", f"sloppy=cmd:{sys.executable} bad_bot.py"],
                            "modern-art:3,silk-road:3", deals=1, name="cup", seed=4)
    result = run("run", path, "-j", "1", "--results", str(tmp_path / "results"))
    assert result.exit_code == 0, result.output
    return tmp_path / "results" / "cup"


def standings(browser, section: str) -> list[list[str]]:
    rows = browser.find_elements("css selector", f"#standings-{section} tbody tr")
    return [[cell.text for cell in row.find_elements("tag name", "td")] for row in rows]


def test_the_report_shows_the_stores_leaderboards_and_links_every_replay(browser, tmp_path, tournament):
    from selenium.webdriver.common.keys import Keys

    result = run("report", str(tournament), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    site = tmp_path / "site"
    open_page(browser, site / "index.html")
    assert browser.find_element("tag name", "h1").text == "Tournament cup"

    records = [json.loads(line) for line in run("export", str(tournament)).output.splitlines()]
    for game in ("modern-art", "silk-road"):
        ratings = rate_games([(number, bot, rank) for number, record in enumerate(records) if record["game"] == game
                              for bot, rank in zip(record["players"], record["result"]["ranks"])])
        totals: dict[str, list[int]] = {}  # per bot: games (not seats), games won, faults
        for record in records:
            if record["game"] == game:
                for bot in set(record["players"]):
                    seats = [seat for seat, name in enumerate(record["players"]) if name == bot]
                    figures = totals.setdefault(bot, [0, 0, 0])
                    figures[0] += 1
                    figures[1] += any(record["result"]["ranks"][seat] == 1 for seat in seats)
                    figures[2] += sum(fault["seat"] in seats for fault in record["faults"])
        shown = standings(browser, game)
        assert {row[2] for row in shown} == set(totals)
        assert [row[0] for row in shown] == [str(rank) for rank in range(1, len(shown) + 1)]
        for _rank, _ranks, bot, rating, interval, _vs_next, games, firsts, _, _, faults in shown:
            assert [int(games), int(firsts), int(faults)] == totals[bot]
            assert float(rating) == pytest.approx(ratings[bot].mu, abs=0.005)
            low, high = (float(value) for value in interval.split(" to "))
            assert low == pytest.approx(ratings[bot].mu - 1.96 * ratings[bot].sigma, abs=0.05)
            assert high == pytest.approx(ratings[bot].mu + 1.96 * ratings[bot].sigma, abs=0.05)
        ratings_shown = [float(row[3]) for row in shown]
        assert ratings_shown == sorted(ratings_shown, reverse=True)  # ordered by rating (mu)
    games_overall = {}
    for record in records:
        for bot in set(record["players"]):
            games_overall[bot] = games_overall.get(bot, 0) + 1
    assert {row[2]: int(row[6]) for row in standings(browser, "overall")} == games_overall

    faults = browser.find_elements("css selector", "#faults-table tbody tr")
    assert [cell.text for cell in faults[0].find_elements("tag name", "td")][0] == "sloppy"
    images = browser.find_elements("css selector", "figure img")
    assert len(images) == 6  # a rating chart per game, a heat map per game and overall, the faults chart
    assert all(browser.execute_script("return arguments[0].naturalWidth", image) > 0 for image in images)
    assert "round-robin" in browser.find_element("id", "settings-table").text
    assert browser.find_elements("tag name", "script") == []  # the leaderboards need no JavaScript
    assert console_errors(browser) == []
    assert loaded_from_outside(browser) == []
    screenshot(browser, tmp_path / "index.png")

    browser.find_element("link text", "Every game, with its replay").click()
    links = browser.find_elements("css selector", "table a")
    assert len(links) == len(records)
    assert browser.find_elements("tag name", "script") == []
    screenshot(browser, tmp_path / "games.png")
    first_id = links[0].text
    links[0].click()
    assert first_id in browser.find_element("tag name", "h1").text
    record = next(record for record in records if record["id"] == first_id)
    browser.find_element("tag name", "body").send_keys(Keys.END)
    assert shown_money(browser) == record["result"]["money"]
    assert console_errors(browser) == []
    screenshot(browser, tmp_path / "replay.png")


MEASURE = """
const cell = [...document.querySelectorAll('#frame td')].find(td => td.textContent === arguments[0]);
const width = () => { const range = document.createRange(); range.selectNodeContents(cell);
                      return range.getBoundingClientRect().width; };
const size = parseFloat(getComputedStyle(cell).fontSize);
const named = width();
cell.textContent = '\\u{10FFFD}'.repeat(arguments[0].length);  // characters no font has: drawn as boxes
const boxes = width();
cell.textContent = arguments[0];
return [named, boxes, size];
"""


def test_a_cjk_bot_name_is_drawn_with_glyphs_not_boxes(browser, tmp_path, plugins):
    from arena.report.replay_page import write_replay_page

    played = run("play", "silk-road", "-b", "random", "-b", "trader", "--seed", "2", "--sandbox", "none", "--json")
    record = json.loads(played.stdout)
    record["players"] = ["海上商人", "trader"]  # names are only shown: the record still replays
    write_replay_page(record, plugins, tmp_path / "game.html")
    open_page(browser, tmp_path / "game.html")
    named, boxes, size = browser.execute_script(MEASURE, "海上商人")
    screenshot(browser, tmp_path / "cjk.png")
    # a CJK font draws each ideograph one em wide; without one, each is the same box as a character no font has
    assert abs(named - 4 * size) < 0.15 * 4 * size and abs(named - boxes) > 0.1 * boxes, (
        f"the name is {named:.1f} px wide, boxes {boxes:.1f} px, font {size:.1f} px: is a CJK font installed "
        f"(apt-get install fonts-wqy-zenhei)?")
