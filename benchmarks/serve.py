"""The live site's cost: what ``--serve`` and a watching browser cost a fast run, and the site on a large store.

1. **A fast run, with and without the site.** ``arena run`` of random bots
   (Silk Road, 3 players, ``--sandbox none``, ``-j 1`` by default: on two
   cores that is the issue's run of about 1,000 games a second, and it leaves
   a core to the site; ``-j 2`` keeps both busy, so every CPU second the site
   spends is taken from the run) is played alternately with and without
   ``--serve``; while it is served, a browser-like poller asks ``live.json``
   every second, as the page does, and on every change fetches the front page
   and every chart on it (``?v=``, as the page does). Each run's games/s is
   its own summary's; the figure is the median of the served runs over the
   median of the plain ones (target: at least 0.98). Beside it, in CPU
   seconds: the site's start (paid before the run's first game, which comes
   that much later), the site's CPU while the run played against the run's
   own, and its share of a core once warm.
2. **A large store: 100 entries, 100,000 games** (made directly in SQLite in a
   few seconds, a 4-player game of the 100 bots in rotation): the time the
   site takes to read it once (the standings, the activity, the data behind
   the charts), then what a request costs once it is read (the front page,
   ``live.json``), and the front page's size. The pages are built once per
   change, so a request costs a dictionary look-up.

    python benchmarks/serve.py                    # both
    python benchmarks/serve.py --deals 3000 --pairs 3 --skip-large
    python benchmarks/serve.py -j 2 --skip-large  # a run that keeps both cores of two busy
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import NamedTuple

#: seconds after the site's address is printed before its steady cost is measured
WARM_UP = 3.0
RATE = re.compile(r"played in \S+ \(([\d.]+) games/s\)")
ADDRESS = re.compile(r"live site of \S+ at (http://\S+)")
FIRST = re.compile(r"^\S+: 0/\d+ games")  # the run's first progress line: its pool is about to play
#: served games/s over plain games/s, at least (the issue's 2%)
TARGET = 0.98


def tournament(folder: Path, deals: int) -> Path:
    path = folder / "fast.toml"
    path.write_text(f'[tournament]\nname = "fast"\nseed = 1\ndeals = {deals}\n\n[[games]]\nname = "silk-road"\n'
                    'players = 3\n\n[[bots]]\nspec = "random"\n\n[[bots]]\nspec = "r2=random"\n\n[[bots]]\n'
                    'spec = "r3=random"\n')
    return path


class Poller(threading.Thread):
    """What an open page does (live.js): live.json every second; when the page it would get changed, the page
    and its charts (asked for anew once a minute at most)."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.stop = threading.Event()
        self.requests = 0
        self.changes = 0
        self.started = time.monotonic()

    def get(self, path: str) -> bytes:
        self.requests += 1
        with urllib.request.urlopen(self.url + path, timeout=30) as answer:
            return bytes(answer.read())

    def run(self) -> None:
        seen = None
        while not self.stop.is_set():
            try:
                state = json.loads(self.get("live.json"))
                if state["page"] != seen:
                    seen = state["page"]
                    self.changes += 1
                    page = self.get("").decode()
                    for chart in re.findall(r'src="(plots/[^"]+\.svg)"', page):
                        self.get(f"{chart}?v={int(time.time() // 60)}")
            except OSError:
                pass
            self.stop.wait(1.0)


def one_run(toml: Path, results: Path, serve: bool, jobs: int) -> Measured:
    """One ``arena run``: its games/s (its own summary), its start, the CPU of its processes and of the site's."""
    command = [sys.executable, "-m", "arena", "run", str(toml), "--sandbox", "none", "-j", str(jobs), "--fresh",
               "--results", str(results)]
    if serve:
        command += ["--serve", "--port", "0"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    spawned = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    poller = None
    rate = None
    first_game = float("nan")
    site_start = site_end = 0.0
    warm: tuple[float, float] | None = None
    steady = float("nan")
    for line in process.stderr:
        found = ADDRESS.search(line)
        if found and poller is None:
            site_start = cpu_of_server(process.pid)  # the site's start: paid before the run's first game
            poller = Poller(found.group(1))
            poller.start()
        if FIRST.search(line) and first_game != first_game:
            first_game = time.monotonic() - spawned
        measured = RATE.search(line)
        if measured:
            rate = float(measured.group(1))
        if poller is not None and warm is None and time.monotonic() - poller.started > WARM_UP:
            warm = (time.monotonic(), cpu_of_server(process.pid))  # its first page and charts drawn
        if "the live site stays up" in line:
            site_end = cpu_of_server(process.pid)
            if warm is not None and time.monotonic() - warm[0] > 1:
                steady = (site_end - warm[1]) / (time.monotonic() - warm[0])
            process.send_signal(signal.SIGINT)
    process.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    total_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    requests = 0
    if poller is not None:
        poller.stop.set()
        poller.join()
        requests = poller.requests
    if rate is None:
        raise SystemExit(f"no rate in the run's output (exit status {process.returncode})")
    return Measured(rate, requests, site_start, site_end, total_cpu, steady, first_game)


class Measured(NamedTuple):
    """One run: games/s, the poller's requests, CPU seconds (the site's at its address and at the run's end,
    every process's), the site's steady share of a core, seconds from the command's start to its first game."""

    rate: float
    requests: int
    site_start: float
    site_end: float
    total_cpu: float
    #: the site's CPU seconds a second once warm (started, first page and charts drawn): its share of one core
    steady: float
    first_game: float

    @property
    def during(self) -> float:
        """The site's CPU seconds while the run played (after it printed its address)."""
        return self.site_end - self.site_start

    @property
    def run_cpu(self) -> float:
        """The run's own CPU seconds (every process but the site's)."""
        return self.total_cpu - self.site_end


def cpu_of_server(run_pid: int) -> float:
    """CPU seconds (user + system) of the `arena serve --parent RUN_PID` process, read from /proc."""
    ticks = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            if b"serve" in command and str(run_pid).encode() in command:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / ticks
        except OSError:
            continue
    return 0.0


def fast_run(deals: int, pairs: int, jobs: int) -> None:
    with tempfile.TemporaryDirectory() as temporary:
        toml = tournament(Path(temporary), deals)
        plain: list[Measured] = []
        served: list[Measured] = []
        for pair in range(pairs):
            for serve in (False, True):
                results = Path(temporary) / f"results-{pair}-{serve}"  # a new store, as a first run makes
                measured = one_run(toml, results, serve, jobs)
                shutil.rmtree(results)
                (served if serve else plain).append(measured)
                if serve:
                    print(f"  --serve + poller: {measured.rate:7.1f} games/s, first game after "
                          f"{measured.first_game:.2f} s; {measured.requests} requests; the site's CPU: "
                          f"{measured.site_start:.2f} s before the first game, {measured.during:.2f} s while the "
                          f"run played ({100 * measured.during / measured.run_cpu:.1f}% of the run's "
                          f"{measured.run_cpu:.1f} s), once warm {100 * measured.steady:.1f}% of a core", flush=True)
                else:
                    print(f"  plain           : {measured.rate:7.1f} games/s, first game after "
                          f"{measured.first_game:.2f} s; the run's CPU {measured.run_cpu:.1f} s", flush=True)
        median = statistics.median
        ratio = median(run.rate for run in served) / median(run.rate for run in plain)
        print(f"-j {jobs}, {deals * 3} games a run, {pairs} pairs, load {os.getloadavg()[0]:.2f} at the end: plain "
              f"median {median(run.rate for run in plain):.1f} games/s, served median "
              f"{median(run.rate for run in served):.1f} games/s: ratio {ratio:.3f} "
              f"({'meets' if ratio >= TARGET else 'misses'} the target: at least {TARGET}, 2% at most lost)")
        print(f"  the site's CPU while the run played: median {median(run.during for run in served):.2f} s, "
              f"{100 * median(run.during / run.run_cpu for run in served):.1f}% of the run's own CPU (its first "
              f"page and charts included); before the first game: median "
              f"{median(run.site_start for run in served):.2f} s (the first game came "
              f"{median(run.first_game for run in served) - median(run.first_game for run in plain):+.2f} s later "
              f"than without --serve); once warm: median {100 * median(run.steady for run in served):.1f}% of a "
              f"core")


def large_store(folder: Path, bots: int, games: int) -> None:
    """A store of ``games`` 4-player games among ``bots`` bots, written straight into SQLite."""
    from arena.runs.store import create_or_open

    names = [f"bot{number:03d}" for number in range(bots)]
    players = 4
    plan = {"games": [{"name": "silk-road", "players": players, "games": games, "entries": names, "left_out": [],
                       "tables": []}], "bots": names}
    definition = {"name": "large", "format": "sampled", "games": [{"name": "silk-road", "players": players,
                                                                   "options": {}}],
                  "limits": {}, "bots": [{"name": name, "spec": "random"} for name in names]}
    store = create_or_open(str(folder), {"name": "large", "kind": "tournament", "definition": definition,
                                         "plan": plan, "total": games})
    draw = random.Random(1)
    strength = {name: draw.random() for name in names}
    with store.transaction() as db:
        game_rows, seat_rows, fault_rows = [], [], []
        for order in range(games):
            seated = draw.sample(names, players)
            scores = sorted(seated, key=lambda name: -strength[name] - draw.random())
            game_id = f"large/silk-road/t{order // 8}/d{order % 8}"
            game_rows.append((order + 1, f"k{order}", game_id, "silk-road", f"t{order // 8}", order % 8, 0, order,
                              "{}", "2026-01-01T00:00:00+00:00"))
            for seat, name in enumerate(seated):
                faulty = int(draw.random() < 0.01)
                seat_rows.append((order + 1, seat, "silk-road", name, "", 100 - 10 * scores.index(name),
                                  scores.index(name) + 1, faulty))
                if faulty:
                    fault_rows.append((order + 1, seat, 3, "deliver", "timeout", "no answer in 1000 ms"))
        db.executemany("INSERT INTO games (row, key, id, game, table_label, deal, rotation, current, record, "
                       "finished) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", game_rows)
        db.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?, ?, ?)", seat_rows)
        db.executemany("INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?)", fault_rows)
    store.close()


def large(bots: int, games: int) -> None:
    from arena.plugins import get_plugins
    from arena.report.live_http import start
    from arena.report.live_site import LiveSite

    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary) / "large"
        os.makedirs(folder)
        started = time.monotonic()
        large_store(folder, bots, games)
        print(f"a store of {bots} entries and {games} games made in {time.monotonic() - started:.1f} s")
        site = LiveSite(str(folder), get_plugins())
        server, _ = start(site, "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()

        def timed(path: str) -> tuple[float, int]:
            began = time.monotonic()
            with urllib.request.urlopen(server.url + path, timeout=600) as answer:
                size = len(answer.read())
            return time.monotonic() - began, size

        began = time.monotonic()
        answered, size = timed("")
        print(f"  the first request: {answered:.2f} s ({size / 1e3:.0f} kB: a page saying the store is being read)")
        while True:
            with urllib.request.urlopen(server.url, timeout=600) as answer:
                page = answer.read()
            if b"<h1>Tournament" in page:
                break
            time.sleep(0.25)
        print(f"  the front page with the standings (the store read once: standings, activity, chart data): "
              f"after {time.monotonic() - began:.1f} s, {len(page) / 1e3:.0f} kB")
        again = sorted(timed("")[0] for _ in range(20))
        print(f"  the front page again (built once per change): median {1000 * again[10]:.1f} ms, "
              f"worst {1000 * again[-1]:.1f} ms")
        watched = site.folders[""]
        began_cpu = time.thread_time()
        for _ in range(20):
            watched.seen_data_version = None  # as if another game had been stored
            watched.pulse()
        print(f"  a look at the store after a change (twice a second while a run stores games): "
              f"{1000 * (time.thread_time() - began_cpu) / 20:.1f} ms of CPU")
        polls = sorted(timed("live.json")[0] for _ in range(50))
        print(f"  live.json: median {1000 * polls[25]:.1f} ms, worst {1000 * polls[-1]:.1f} ms")
        chart, size = timed("plots/rating-silk-road.svg")
        print(f"  the rating chart, drawn on first request: {chart:.2f} s, {size / 1e3:.0f} kB")
        games_page, size = timed("games.html")
        print(f"  the games page (every game listed): {games_page:.2f} s, {size / 1e6:.1f} MB")
        server.shutdown()
        site.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=3000, help="deals of the fast run (3 games each)")
    parser.add_argument("--pairs", type=int, default=3, help="plain and served runs, alternating")
    parser.add_argument("--jobs", "-j", type=int, default=1, help="the run's -j")
    parser.add_argument("--bots", type=int, default=100)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--skip-fast", action="store_true")
    parser.add_argument("--skip-large", action="store_true")
    options = parser.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    if not options.skip_fast:
        fast_run(options.deals, options.pairs, options.jobs)
    if not options.skip_large:
        large(options.bots, options.games)


if __name__ == "__main__":
    main()
