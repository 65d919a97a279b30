"""`arena serve` and `--serve`: the live site of a results folder, over HTTP and in a real headless browser.

The fast tests drive the HTTP layer with urllib against a server on a free
port: paths that try to leave the folder, a locked and a half-written store,
the JSON the pages poll, the cache that builds the pages once per change, and
escaping. The browser tests (marked slow, like the report's) start
`arena run FILE --serve` and `arena compare --serve` as a user does, in a
subprocess, and watch the page change while games are stored.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.plugins import get_plugins
from arena.report import live_site
from arena.report.live_http import split_path, start
from arena.report.live_site import LiveSite
from test_report import CHROMEDRIVER, CHROMIUM, browser, console_errors, screenshot  # noqa: F401 - the fixture
from tournament_files import write_tournament

pytest.importorskip("matplotlib")

HOSTILE = "<img src=x onerror=alert(1)>"
#: a bot that is ready, then crashes at its first decision, saying something hostile on stderr
CRASH_BOT = f"""
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print(json.dumps({{"type": "ready"}}), flush=True)
    elif message["type"] == "decide":
        sys.stderr.write({HOSTILE!r} + " & gone\\n")
        sys.exit(3)
"""


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A results root holding one finished tournament (6 games, one bot crashing in each)."""
    where = tmp_path_factory.mktemp("served")
    (where / "crash_bot.py").write_text(CRASH_BOT)
    path = write_tournament(where, ["random", "trader", f"crasher=cmd:{sys.executable} crash_bot.py"],
                            "silk-road:3", deals=2, name="cup", seed=5)
    result = CliRunner().invoke(cli, ["run", path, "--results", str(where / "results"), "--sandbox", "none",
                                      "-j", "1"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return where / "results"


class Served:
    """A live site on a free port, served by a thread of this process."""

    def __init__(self, results: Path) -> None:
        self.site = LiveSite(str(results), get_plugins())
        self.server, _ = start(self.site, "127.0.0.1", 0)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    def get(self, path: str, method: str = "GET") -> tuple[int, bytes, dict[str, str]]:
        request = urllib.request.Request(self.server.url.rstrip("/") + path, method=method)
        try:
            with urllib.request.urlopen(request, timeout=20) as answer:
                return answer.status, answer.read(), dict(answer.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.read(), dict(error.headers)

    def state(self, path: str = "/live.json") -> dict:
        status, body, _ = self.get(path)
        assert status == 200
        return json.loads(body)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.site.close()


@pytest.fixture
def served(played):
    site = Served(played / "cup")
    yield site
    site.close()


def wait_for(check, seconds: float = 10.0, every: float = 0.1):
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(every)


@pytest.mark.parametrize("raw", ["/..%2f..%2fetc/passwd", "//etc/passwd", "/../../etc/passwd", "/games/../../x",
                                 "/%2e%2e/etc/passwd", "/games/%2e%2e%2f%2e%2e%2fresults.sqlite",
                                 "/%252e%252e/etc/passwd", "/games\\..\\x", "/a/./b", "/x%00.html"])
def test_a_path_leaving_the_site_is_refused_before_anything_looks_at_it(raw):
    assert split_path(raw) is None


def test_only_the_sites_own_pages_answer(served, played):
    assert served.get("/")[0] == 200 and served.get("/index.html")[0] == 200
    for path in ("/..%2f..%2fetc/passwd", "//etc/passwd", "/results.sqlite", "/arena.log", "/leaderboard.md",
                 "/games/../results.sqlite", "/plots/../results.sqlite", "/games/00001-nope.html",
                 "/plots/nope.svg", "/%2e%2e/%2e%2e/etc/passwd"):
        status, body, _ = served.get(path)
        assert status == 404, path
        assert b"root:" not in body and b"SQLite" not in body
    assert served.get("/", method="POST")[0] == 405
    assert served.get("/", method="DELETE")[0] == 405
    status, _, headers = served.get("/")
    assert headers["X-Content-Type-Options"] == "nosniff" and "default-src 'none'" in headers[
        "Content-Security-Policy"]


def test_a_link_inside_the_root_pointing_out_is_not_served(played, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "inside").symlink_to(played / "cup")  # a tournament folder outside the served root
    os.symlink("/etc", root / "etc")
    (root / "own").mkdir()
    (root / "own" / "results.sqlite").symlink_to(played / "cup" / "results.sqlite")
    (root / "real").mkdir()
    (root / "real" / "results.sqlite").write_bytes((played / "cup" / "results.sqlite").read_bytes())
    site = Served(root)
    try:
        assert site.get("/inside/index.html")[0] == 404
        assert site.get("/etc/passwd")[0] == 404
        assert site.get("/own/index.html")[0] == 404
        status, body, _ = site.get("/real/index.html")
        assert status == 200 and b"<h1>Tournament cup</h1>" in body
        index = site.get("/")[1].decode()
        assert re.findall(r'href="([^"]+)"', index) == ["real/index.html"]
        assert site.get("/real")[0] == 200  # redirected to real/
    finally:
        site.close()


def test_live_json_says_what_the_store_holds(served, played):
    state = served.state()
    assert state["status"] == "ok" and state["stored"] == state["total"] == 6 and state["finished"]
    assert state["progress"] == "Played 6 of 6 scheduled games (100%), 0 to play: all played."
    status, body, headers = served.get("/")
    page = body.decode()
    assert headers["X-Arena-Version"] == state["version"]
    assert 'id="progress-line">Played 6 of 6' in page and 'id="latest-games-table"' in page
    games = re.findall(r'href="(games/\d{5}-[^"]+\.html)"', page)
    assert games  # every latest game links to its replay page, drawn on request
    replay_status, replay, _ = served.get("/" + games[0])
    assert replay_status == 200 and b"This replay is omniscient" in replay
    charts = re.findall(r'src="(plots/[^"]+\.svg)"', page)
    assert "plots/rating-silk-road.svg" in charts and "plots/faults.svg" in charts
    assert all(served.get("/" + chart)[0] == 200 for chart in charts)


def store_one_more_game(path) -> None:
    """Store a game more in the results store ``path``, as a run does: the last game's rows, copied under a new key."""
    with sqlite3.connect(path) as db:
        row = db.execute("SELECT MAX(row) FROM games").fetchone()[0]
        for table, changes in (("games", "key = key || '-again', id = id || '-again', current = current + 100"),
                               ("seats", "")):
            db.execute(f"CREATE TEMP TABLE copied AS SELECT * FROM {table} WHERE row = ?", (row,))
            db.execute(f"UPDATE copied SET row = ? {', ' + changes if changes else ''}", (row + 1,))
            db.execute(f"INSERT INTO {table} SELECT * FROM copied")
            db.execute("DROP TABLE copied")


def test_the_pages_are_built_once_per_change_not_per_request(played, tmp_path, monkeypatch):
    folder = tmp_path / "copy"
    folder.mkdir()
    (folder / "results.sqlite").write_bytes((played / "cup" / "results.sqlite").read_bytes())
    reads = []
    real = live_site.read_site
    monkeypatch.setattr(live_site, "read_site", lambda store, **options: reads.append(1) or real(store, **options))
    monkeypatch.setattr(live_site, "BUILD_EVERY", 0.0)
    site = Served(folder)
    try:
        for _ in range(5):
            assert site.get("/")[0] == 200 and site.get("/games.html")[0] == 200
        assert len(reads) == 1
        before = site.state()["version"]
        store_one_more_game(folder / "results.sqlite")
        assert wait_for(lambda: site.state()["version"] != before, 5)
        assert site.state()["stored"] == 7
        # the request that finds the store changed starts one build (in the background) and gets the page as it was
        assert wait_for(lambda: "Played 7 of 6" in site.get("/")[1].decode(), 5)
        for _ in range(5):
            assert "Played 7 of 6" in site.get("/")[1].decode()
        assert len(reads) == 2
    finally:
        site.close()


def test_the_first_reading_of_a_large_store_does_not_hold_back_the_next(played, tmp_path, monkeypatch):
    """The first build rates every game stored before the site looked (seconds, on 100,000 games): a one-off, so
    the next change is shown after the usual 2 s, not after 50 times that first build's CPU time."""
    folder = tmp_path / "large"
    folder.mkdir()
    (folder / "results.sqlite").write_bytes((played / "cup" / "results.sqlite").read_bytes())
    real = live_site.read_site

    def slow_first(store, **options):
        if not reads:
            began = time.thread_time()
            while time.thread_time() - began < 0.2:  # 0.2 s of CPU: a wait of 10 s if it set the throttle
                pass
        reads.append(1)
        return real(store, **options)

    reads: list[int] = []
    monkeypatch.setattr(live_site, "read_site", slow_first)
    site = Served(folder)
    try:
        assert "Played 6 of 6" in site.get("/")[1].decode()
        store_one_more_game(folder / "results.sqlite")
        assert wait_for(lambda: "Played 7 of 6" in site.get("/")[1].decode(), 6)
    finally:
        site.close()


def test_the_played_count_follows_games_added_and_games_made_history(played, tmp_path):
    """Between two looks the site counts only the rows stored since; a schedule change (a resumed run making a
    game history, which moves the store's generation on) has every game counted again."""
    folder = tmp_path / "counted"
    folder.mkdir()
    (folder / "results.sqlite").write_bytes((played / "cup" / "results.sqlite").read_bytes())
    site = Served(folder)
    try:
        assert site.state()["stored"] == 6
        with sqlite3.connect(folder / "results.sqlite") as db:
            db.execute("UPDATE games SET current = NULL WHERE row = 1")
            db.execute("INSERT OR REPLACE INTO meta VALUES ('generation', '7')")
        assert wait_for(lambda: site.state()["stored"] == 5, 5)
        with sqlite3.connect(folder / "results.sqlite") as db:  # a game more: row 7, current again
            db.execute("CREATE TEMP TABLE copied AS SELECT * FROM games WHERE row = 1")
            db.execute("UPDATE copied SET row = 7, key = key || '-again', current = 0")
            db.execute("INSERT INTO games SELECT * FROM copied")
        assert wait_for(lambda: site.state()["stored"] == 6, 5)
    finally:
        site.close()


def test_a_new_store_in_the_folder_is_read_at_once_whatever_the_throttle(played, tmp_path):
    """`arena run --fresh --serve` replaces the store the site showed when it started: the new file's first build
    is not held back by the wait the old store's build earned, and its charts are drawn again at once."""
    folder = tmp_path / "fresh"
    folder.mkdir()
    (folder / "results.sqlite").write_bytes((played / "cup" / "results.sqlite").read_bytes())
    other = hostile_copy(played, tmp_path)
    site = Served(folder)
    try:
        assert "alert(2)" not in site.get("/")[1].decode()  # the hostile copy's fault detail
        old_chart = site.get("/plots/rating-silk-road.svg")[1]
        site.site.folders[""].build_took = 1000.0  # the last build earned a wait longer than the test
        os.replace(other / "results.sqlite", folder / "results.sqlite")  # another file, as --fresh makes one
        assert wait_for(lambda: "&lt;script&gt;alert(2)" in site.get("/")[1].decode(), 10)
        assert site.state()["page"] == site.state()["version"]  # an open page fetches the new one
        new_chart = site.get("/plots/rating-silk-road.svg")[1]  # its legend names the renamed bot
        assert b"onerror=alert(1)" not in old_chart and b"onerror=alert(1)" in new_chart
    finally:
        site.close()


def test_a_locked_store_keeps_the_site_answering_and_says_so(played, tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    (folder / "results.sqlite").write_bytes((played / "cup" / "results.sqlite").read_bytes())
    with contextlib.closing(sqlite3.connect(folder / "results.sqlite")) as db:
        db.execute("PRAGMA journal_mode=DELETE")  # as another tool might keep it: a writer then shuts readers out
    site = Served(folder)
    try:
        assert site.get("/")[0] == 200
        holder = sqlite3.connect(folder / "results.sqlite", isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        holder.execute("INSERT INTO meta VALUES ('held', '1')")
        try:
            assert wait_for(lambda: site.state()["status"] == "locked", 5)
            assert "locked by another process" in site.state()["message"]
            started = time.monotonic()
            status, body, _ = site.get("/")
            assert status == 200 and b"<h1>Tournament cup</h1>" in body  # what was read before
            assert time.monotonic() - started < 2
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        assert wait_for(lambda: site.state()["status"] == "ok", 5)
    finally:
        site.close()


@pytest.mark.parametrize("content", [b"", b"SQLite format 3\x00" + b"\x00" * 80, b"not a database at all" * 50])
def test_a_half_written_store_is_a_page_saying_so(tmp_path, content):
    folder = tmp_path / "new"
    folder.mkdir()
    (folder / "results.sqlite").write_bytes(content)
    site = Served(folder)
    try:
        state = site.state()
        assert state["status"] in ("waiting", "unreadable") and state["message"]
        status, body, _ = site.get("/")
        assert status == 200 and b"Waiting for results" in body and b"live-status" in body
    finally:
        site.close()


def test_a_folder_without_a_store_yet_waits_for_it(tmp_path):
    site = Served(tmp_path / "later")
    try:
        assert site.state()["status"] == "waiting"
        assert b"no results.sqlite yet" in site.get("/")[1]
    finally:
        site.close()


def rewritten(stored: str | bytes, change) -> str | bytes:
    """A stored record changed as JSON text, stored again as it was (text, or compressed by the store)."""
    if isinstance(stored, str):
        return change(stored)
    from arena.runs import packed

    return packed.compress(change(packed.record_text(stored)).encode())


def hostile_copy(played: Path, where: Path) -> Path:
    """The tournament's store with one bot renamed to an HTML tag and a fault detail holding a script."""
    folder = where / "hostile"
    folder.mkdir()
    (folder / "results.sqlite").write_bytes((played / "cup" / "results.sqlite").read_bytes())
    with sqlite3.connect(folder / "results.sqlite") as db:
        db.execute("UPDATE seats SET bot = ? WHERE bot = 'trader'", (HOSTILE,))
        for key, value in db.execute("SELECT key, value FROM meta").fetchall():
            db.execute("UPDATE meta SET value = ? WHERE key = ?", (value.replace('"trader"', json.dumps(HOSTILE)),
                                                                  key))
        for row, record in db.execute("SELECT row, record FROM games").fetchall():
            db.execute("UPDATE games SET record = ? WHERE row = ?",
                       (rewritten(record, lambda text: text.replace('"trader"', json.dumps(HOSTILE))), row))
        db.execute("UPDATE faults SET detail = '<script>alert(2)</script>'")
    return folder


def test_bot_supplied_text_is_escaped_on_every_page(played, tmp_path):
    site = Served(hostile_copy(played, tmp_path))
    try:
        index = site.get("/")[1].decode()
        assert "&lt;img src=x onerror=alert(1)&gt;" in index and HOSTILE not in index
        assert "&lt;script&gt;alert(2)&lt;/script&gt;" in index and "<script>alert(2)" not in index
        assert HOSTILE not in site.get("/games.html")[1].decode()
        link = re.findall(r'href="(games/\d{5}-[^"]+\.html)"', index)[0]
        replay = site.get("/" + link)[1].decode()
        assert "&lt;img src=x" in replay and "<img src=x" not in replay.split('id="replay-data"')[0]
    finally:
        site.close()


def test_serve_refuses_a_missing_folder_in_one_line(tmp_path):
    result = run("serve", str(tmp_path / "nowhere"), "--port", "0")
    assert result.exit_code == 2 and "no such folder" in result.output and "Traceback" not in result.output


# -- in a real browser --

CHROMIUM_NEEDED = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="needs chromium and chromedriver "
                                     "(apt-get install chromium chromium-driver)")


def start_serving(command: list[str], cwd: Path) -> tuple[subprocess.Popen, str]:
    """Start ``arena ...`` with --serve; its process and the address it printed once. Ctrl-C (:func:`stop`) is
    not ignored in it, whatever started these tests (a shell's background job ignores it, and so would arena)."""
    default_ctrl_c = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                      "os.execv(sys.argv[1], sys.argv[1:])")
    process = subprocess.Popen([sys.executable, "-c", default_ctrl_c, sys.executable, "-m", "arena", *command,
                                "--serve", "--port", "0"], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    lines = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        lines.append(line)
        found = re.search(r"live site of \S+ at (http://127\.0\.0\.1:\d+/)", line)
        if found:
            threading.Thread(target=_drain, args=(process.stderr, lines), daemon=True).start()
            return process, found.group(1)
        if not line and process.poll() is not None:
            break
    process.kill()
    raise AssertionError("no address printed: " + "".join(lines))


def _drain(stream, lines: list[str]) -> None:
    for line in stream:
        lines.append(line)


def stop(process: subprocess.Popen) -> int:
    process.send_signal(signal.SIGINT)
    try:
        return process.wait(20)
    finally:
        if process.poll() is None:
            process.kill()


def played_count(driver) -> int:
    text = driver.find_element("id", "progress-line").text
    return int(re.match(r"Played (\d+) of", text).group(1))


def overall_games(driver) -> dict[str, str]:
    rows = driver.find_elements("css selector", "#standings-overall tbody tr")
    return {cells[2].text: cells[6].text for cells in
            ([cell for cell in row.find_elements("tag name", "td")] for row in rows)}


def poll(check, seconds: float):
    """``check()`` once it is true (None after ``seconds``); an element swapped out while read is read again."""
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    def tolerant():
        try:
            return check()
        except (StaleElementReferenceException, NoSuchElementException, IndexError, AttributeError):
            return None

    return wait_for(tolerant, seconds, 0.25)


@pytest.mark.slow
@CHROMIUM_NEEDED
def test_a_tournament_served_beside_its_run_updates_the_open_page(browser, tmp_path):  # noqa: F811 - the fixture
    (tmp_path / "crash_bot.py").write_text(CRASH_BOT)
    path = write_tournament(tmp_path, ["random", "thinker=mcts:iterations=120",
                                       f"crasher=cmd:{sys.executable} crash_bot.py"],
                            "silk-road:3", deals=6, name="live", seed=2)
    games = 18  # 6 deals x 3 seatings: slow enough (a searching bot) for the page to open mid-run
    process, url = start_serving(["run", path, "--results", str(tmp_path / "results"), "--sandbox", "none",
                                  "-j", "1"], tmp_path)
    driver = browser
    try:
        driver.get(url)
        assert poll(lambda: driver.find_element("tag name", "h1").text == "Tournament live", 20)
        driver.execute_script("window.stillTheSamePage = true;")
        first = poll(lambda: played_count(driver) > 0 and played_count(driver), 30)
        assert first and first < games, "the page should open while games are still being played"
        games_before = overall_games(driver)
        assert poll(lambda: played_count(driver) > first, 20), "the played count did not move"
        assert poll(lambda: overall_games(driver) != games_before, 20), "no standings row changed"
        stored = json.loads(urllib.request.urlopen(url + "live.json", timeout=10).read())["stored"]
        assert stored < games, "the run ended before the page could be timed"
        # within 5 s of the store holding `stored` games, the page counts them, in its progress and its standings
        assert poll(lambda: played_count(driver) >= stored, 5)
        assert poll(lambda: sum(int(games) for games in overall_games(driver).values()) >= 3 * stored, 5)
        assert driver.execute_script("return window.stillTheSamePage === true")  # updated without reloading
        assert poll(lambda: "Live: updated" in driver.find_element("id", "live-status").text, 5)
        fault = poll(lambda: [cell.text for cell in driver.find_elements(
            "css selector", "#latest-faults-table tbody tr")[0].find_elements("tag name", "td")], 20)
        assert fault[1] == "crasher" and fault[2] == "crash"
        assert HOSTILE in fault[5]  # shown as text, never run as HTML (an alert would fail the next command)
        assert driver.find_elements("css selector", "img[src='x']") == []
        screenshot(driver, tmp_path / "live-tournament.png")

        assert poll(lambda: played_count(driver) == games, 240), "the run did not finish"
        assert poll(lambda: "all played" in driver.find_element("id", "progress-line").text, 10)
        time.sleep(1.5)  # the last swap of the page is done: the link is not replaced while clicked
        game_id = poll(lambda: _click_first_game(driver), 10)
        assert game_id in driver.find_element("tag name", "h1").text
        assert "This replay is omniscient" in driver.find_element("css selector", ".banner").text
        driver.find_element("id", "last").click()
        assert "The game is over." in driver.find_element("id", "frame").text
        assert console_errors(driver) == []
    finally:
        status = stop(process)
    assert status == 0


@pytest.mark.slow
@CHROMIUM_NEEDED
def test_a_finished_comparison_is_served_with_its_verdict_and_sprt_trace(browser, tmp_path):  # noqa: F811 - the fixture
    process, url = start_serving(["compare", "silk-road", "--candidate", "random", "--baseline", "trader",
                                  "--players", "2", "--max-games", "200", "--sandbox", "none", "-j", "1",
                                  "--results", str(tmp_path / "results"), "--name", "duel"], tmp_path)
    driver = browser
    try:
        assert poll(lambda: json.loads(urllib.request.urlopen(url + "live.json", timeout=10).read())[
            "status"] == "ok" and is_comparison_done(tmp_path / "results" / "duel"), 120)
        driver.get(url)
        assert poll(lambda: "REGRESSION" in driver.find_element("id", "verdict").text, 20)
        assert driver.find_element("tag name", "h1").text == "Comparison duel"
        chart = driver.find_element("css selector", "img[src^='plots/sprt.svg']")
        assert poll(lambda: driver.execute_script("return arguments[0].naturalWidth", chart) > 0, 20)
        assert overall_games(driver)
        game_id = poll(lambda: _click_first_game(driver), 10)
        assert game_id in driver.find_element("tag name", "h1").text
        assert console_errors(driver) == []
        driver.back()
        screenshot(driver, tmp_path / "live-comparison.png")
    finally:
        status = stop(process)
    assert status == 1  # the comparison's own verdict: a regression


def _click_first_game(driver) -> str:
    """Open the newest game's replay from the front page; its id."""
    link = driver.find_element("css selector", "#latest-games-table tbody tr a")
    game_id = link.text
    link.click()
    return game_id


def is_comparison_done(folder: Path) -> bool:
    return (folder / "compare.json").exists()


@pytest.mark.slow
@CHROMIUM_NEEDED
def test_a_hostile_bot_name_and_fault_detail_stay_text_in_the_browser(browser, played, tmp_path):  # noqa: F811 - the fixture
    site = Served(hostile_copy(played, tmp_path))
    driver = browser
    try:
        driver.get(site.server.url)
        names = {row.find_elements("tag name", "td")[2].text
                 for row in driver.find_elements("css selector", "#standings-overall tbody tr")}
        assert HOSTILE in names
        details = [row.find_elements("tag name", "td")[5].text
                   for row in driver.find_elements("css selector", "#latest-faults-table tbody tr")]
        assert "<script>alert(2)</script>" in details
        assert driver.find_elements("css selector", "img[src='x']") == []
        driver.find_element("css selector", "#latest-games-table tbody tr a").click()
        assert "This replay is omniscient" in driver.find_element("css selector", ".banner").text
        driver.find_element("id", "last").click()
        assert HOSTILE in driver.find_element("id", "frame").text
        assert driver.find_elements("css selector", "img[src='x']") == []
    finally:
        site.close()


def test_ratings_carried_forward_equal_a_pass_from_scratch_whatever_order_games_arrive_in():
    from arena.report.carried import CarriedRatings
    from arena.report.site import rating_histories
    from arena.standings.ratings import rate_games

    draw = __import__("random").Random(4)
    bots = ["a", "b", "c", "d", "e"]
    games = {order: [(order, bot, rank) for rank, bot in enumerate(draw.sample(bots, 3), 1)] for order in range(60)}
    arrival = sorted(games, key=lambda order: order + draw.uniform(0, 6))  # out of order, as -j N stores them
    carried = CarriedRatings("trueskill")
    stored: list[int] = []
    for order in arrival:
        stored.append(order)
        placings = [seat for number in sorted(stored) for seat in games[number]]
        gap = next(number for number in range(61) if number not in stored)
        rated = carried.rated(placings, gap, mark="store")
        assert rated.series == rating_histories(placings)
        final = rate_games(placings)
        assert {bot: (r.mu, r.sigma) for bot, r in rated.rater.ratings().items()} == {
            bot: (r.mu, r.sigma) for bot, r in final.items()}
    assert len(carried.settled.orders) == 60  # every game settled once the schedule had no gap
    again = carried.rated([seat for number in range(30) for seat in games[number]], 30, mark="another store")
    assert again.series == rating_histories([seat for number in range(30) for seat in games[number]])


def test_a_slow_first_read_answers_at_once_with_a_page_saying_so(played, monkeypatch):
    real = live_site.read_site

    def slow(store, **options):
        time.sleep(3)  # a store of 100,000 games takes seconds to read the first time
        return real(store, **options)

    monkeypatch.setattr(live_site, "read_site", slow)
    monkeypatch.setattr(live_site, "FIRST_WAIT", 0.2)
    site = Served(played / "cup")
    try:
        started = time.monotonic()
        status, body, _ = site.get("/")
        assert status == 200 and b"reading the store (6 games) for the first time" in body
        assert site.state()["status"] == "ok"  # live.json answers meanwhile
        assert time.monotonic() - started < 2
        assert wait_for(lambda: b"<h1>Tournament cup</h1>" in site.get("/")[1], 10)
    finally:
        site.close()


def test_a_comparison_still_playing_shows_its_sprt_trace_so_far(tmp_path):
    compared = run("compare", "silk-road", "--candidate", "random", "--baseline", "trader", "--players", "2",
                   "--max-games", "200", "--sandbox", "none", "-j", "1", "--results", str(tmp_path), "--name", "duel")
    assert compared.exit_code == 1, compared.output
    outcome = json.loads((tmp_path / "duel" / "compare.json").read_text())
    (tmp_path / "duel" / "compare.json").unlink()  # as the folder is before the comparison ends
    site = Served(tmp_path / "duel")
    try:
        page = site.get("/")[1].decode()
        assert '<p class="banner" id="verdict"><strong>playing</strong>: no verdict yet; ' \
               f'{outcome["blocks"]} deals counted, LLR {outcome["sprt"]["llr"]:+.3f} between' in page
        assert 'src="plots/sprt.svg"' in page
        status, chart, headers = site.get("/plots/sprt.svg")
        assert status == 200 and headers["Content-Type"] == "image/svg+xml" and b"<svg" in chart
        assert site.state()["kind"] == "compare"
    finally:
        site.close()
