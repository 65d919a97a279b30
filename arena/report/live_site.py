"""The live site's pages: the report's pages of a results folder, built from memory as the store grows.

A :class:`LiveFolder` watches one tournament's or comparison's folder. A
sampler (:meth:`LiveSite.pulse`, twice a second) asks the store whether
anything changed (SQLite's ``data_version``: no query when nothing did) and,
when something did, counts its games: that count and the store's other
marks make its *version*. Pages are built only when asked for, and at most
once per version: the leaderboard, the charts' data and the activity are read
once per change (:func:`arena.report.site.read_site`), not per request, and
the builders are the static report's own (:mod:`arena.report.site`), so the
live pages are the report's pages plus the poller script (``live.js``).

Building is throttled so that a run storing a thousand games a second is not
slowed: the data is read again at most every :data:`BUILD_EVERY` seconds, and
a build waits :data:`BUILD_SHARE` times its own CPU time before the next (a
build that took 0.05 s waits 2.5 s); a chart is redrawn at most every
:data:`CHART_EVERY` seconds (or :data:`CHART_SHARE` times its drawing). Beside
a run the process also runs at a lower priority (nice 10), and matplotlib is
imported before the run's first game (:func:`load_charting`), not in the
middle of its games. The progress line and the status bar come from
``live.json``, fresh at every poll.

A :class:`LiveSite` is one folder, or a results root: then each subfolder
holding a store is a :class:`LiveFolder` under ``/NAME/`` and ``/`` lists them.
Nothing is read from the file system by a request's path: a path is looked up
among the pages a folder has (its fixed pages, its charts, a replay page whose
name the store's own index gives), so no path reaches outside the folder.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from html import escape
from importlib.resources import files
from typing import Any, Callable

from arena.compare.report import HEADLINES
from arena.errors import ArenaError
from arena.plugins import Plugins
from arena.report.activity import PACE_WINDOW, Pace, progress_text
from arena.report.comparison import OUTCOME_FILE, comparison_top, is_comparison, read_outcome
from arena.report.live_store import ReadOnlyStore, file_identity, inside, open_read_only
from arena.report.markup import page
from arena.report.root import root_page, root_row
from arena.report.site import (GAMES_PAGE, PAGE_NAME, SiteData, chart_drawers, front_page, games_page, page_file,
                               read_games, read_site, replay_document)
from arena.runs.store import STORE_FILE
from arena.runs.progress import ESTIMATE_AFTER_ITEMS, ESTIMATE_AFTER_SECONDS

SCRIPT = files("arena.report").joinpath("live.js").read_text(encoding="utf-8")
#: seconds between two looks at the stores
PULSE_EVERY = 0.5
#: between two looks, only the games stored since are counted; every game is counted again this often (seconds)
RECOUNT_EVERY = 10.0
#: the data behind the pages is read again at most this often (seconds) ...
BUILD_EVERY = 2.0
#: ... and a build waits this many times its own CPU time before the next one: builds take at most 1/51 of a core
#: (with the charts and the polls, the site stays under 2% of a two-core machine that a run keeps busy)
BUILD_SHARE = 50.0
#: a chart is redrawn at most this often (seconds) ...
CHART_EVERY = 60.0
#: ... and waits this many times its own drawing's duration (matplotlib: 0.1 to 1 s a chart)
CHART_SHARE = 50.0
#: seconds the first request waits for the first build before it gets a page saying the store is being read
FIRST_WAIT = 3.0
#: replay pages kept in memory (each is drawn from its record on first request)
REPLAY_CACHE = 64
LIVE_JSON = "live.json"
#: the tab's icon: a green square (the live bar's colour)
FAVICON = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" '
           b'fill="#3d8c3a"/></svg>')


@dataclass(frozen=True)
class Answer:
    """A page to send: its bytes, content type and the store version it was built from."""

    body: bytes
    content_type: str
    version: str = ""
    #: where to send the browser instead (a folder named without its closing slash)
    location: str = ""


def load_charting() -> None:
    """Import what drawing a chart takes (matplotlib's figure and its SVG backend: about 0.35 s of CPU) now.

    ``arena serve`` calls this before it prints its address, so before a run it serves beside plays its
    first game: imported when the page first asks for a chart, the same CPU was taken from the run's games
    at their start, on a machine whose every core the run uses.
    """
    import matplotlib.backends.backend_svg  # noqa: F401 - imported for its cost, now rather than mid-run
    import matplotlib.figure  # noqa: F401


def live_script(version: str | None) -> str:
    """The poller with the version the page was built from."""
    return SCRIPT.replace("__VERSION__", json.dumps(version))


def html(text: str, version: str = "") -> Answer:
    return Answer(text.encode("utf-8"), "text/html; charset=utf-8", version)


class LiveFolder:
    """One tournament's or comparison's folder, served live (see the module docstring)."""

    def __init__(self, folder: str, served: str, plugins: Plugins) -> None:
        self.folder = folder
        self.served = served
        self.plugins = plugins
        self.lock = threading.Lock()  # the sampler's connection and state
        self.build_lock = threading.Lock()  # the builders' connection and caches
        self.chart_lock = threading.Lock()  # the charts, drawn from the data read last
        self.chart_took = 0.0
        self.watch: ReadOnlyStore | None = None
        self.reader: ReadOnlyStore | None = None
        self.seen_data_version: int | None = None
        self.version: str | None = None
        self.status = "waiting"
        self.message = f"no {STORE_FILE} yet (waiting for the run to make it)"
        self.stored = 0
        self.total = 0
        self.kind = "tournament"
        self.samples: deque[tuple[float, int]] = deque()
        #: the last count of the games: (the store and its generation, the highest row then, the games current)
        self.counted: tuple[tuple[Any, Any], int, int] | None = None
        self.counted_at = 0.0
        self.changed_at = time.monotonic()
        self.data: tuple[str, SiteData, str, dict[str, Callable[[], str]]] | None = None
        self.building = threading.Event()  # a build is under way
        self.built = threading.Event()  # the first build is done
        self.built_at = 0.0
        self.build_took = 0.0
        self.pages: dict[str, Answer] = {}
        self.charts: dict[str, tuple[float, Answer]] = {}
        self.replays: OrderedDict[tuple[str, int], Answer] = OrderedDict()

    # -- the sampler's side: is there anything new? --

    def pulse(self) -> None:
        """Look at the store: its version changes when a game (or anything) was stored since the last look."""
        with self.lock:
            try:
                self._look()
            except ArenaError as error:
                self._trouble(str(error))
            now = time.monotonic()
            self.samples.append((now, self.stored))
            while self.samples and now - self.samples[0][0] > PACE_WINDOW:
                self.samples.popleft()

    def _look(self) -> None:
        path = os.path.join(self.folder, STORE_FILE)
        if self.watch is not None and self.watch.identity != file_identity(path):
            self._close_watch()  # another store (--fresh), or none any more
        if self.watch is None:
            self.watch = open_read_only(self.folder, self.served)
        data_version = self.watch.data_version()
        if data_version == self.seen_data_version and self.status == "ok":
            return
        now = time.monotonic()
        counted = self.counted if now - self.counted_at < RECOUNT_EVERY else None
        since = counted[1] if counted is not None else -1
        # one query per change; the games are counted from the last look's highest row on (the rows since), not
        # all again: COUNT over 100,000 games is 6 ms, twice a second
        last, new, faults, total, generation, kind = self.watch.query(
            "SELECT MAX(row), (SELECT COUNT(current) FROM games WHERE row > ?), (SELECT COUNT(*) FROM faults), "
            "(SELECT value FROM meta WHERE key = 'total'), (SELECT value FROM meta WHERE key = 'generation'), "
            "(SELECT value FROM meta WHERE key = 'kind') FROM games", (since,))[0]
        if counted is not None and (counted[0] != (self.watch.identity, generation) or (last or 0) < since):
            # another store or schedule, or rows gone: count every game again
            new = self.watch.query("SELECT COUNT(current) FROM games")[0][0]
            counted = None
        if counted is None:
            self.counted_at = now
        count = new + (counted[2] if counted is not None else 0)
        self.counted = ((self.watch.identity, generation), last or 0, count)
        meta = {key: value for key, value in (("total", total), ("generation", generation), ("kind", kind))
                if value is not None}
        try:
            outcome_mark = os.stat(os.path.join(self.folder, OUTCOME_FILE)).st_mtime_ns
        except OSError:
            outcome_mark = 0
        version = f"{self.watch.identity}:{count}:{last}:{faults}:{meta.get('generation')}:" \
                  f"{meta.get('total')}:{outcome_mark}"
        if version != self.version:
            self.version = version
            self.changed_at = time.monotonic()
        self.seen_data_version = data_version
        self.stored = int(count)
        self.total = int(json.loads(meta.get("total", "0")))
        self.kind = str(json.loads(meta.get("kind", '"tournament"')))
        self.status, self.message = "ok", ""

    def _trouble(self, message: str) -> None:
        if self.watch is not None and not os.path.isfile(os.path.join(self.folder, STORE_FILE)):
            self._close_watch()
        if "locked" in message:
            self.status = "locked"
            self.message = "the store is locked by another process"
        elif STORE_FILE in message and ("no " in message or "yet" in message):
            self.status, self.message = "waiting", message
        else:
            self.status = "unreadable"
            self.message = f"the store cannot be read now ({message})"
        self.seen_data_version = None

    def _close_watch(self) -> None:
        if self.watch is not None:
            self.watch.close()
        self.watch = None
        self.seen_data_version = None

    def pace(self) -> Pace:
        """Games a second over the last :data:`PACE_WINDOW` seconds watched, the time left, the time idle."""
        now = time.monotonic()
        idle = now - self.changed_at
        if len(self.samples) < 2:
            return Pace(None, None, idle)
        (first, before), (last, after) = self.samples[0], self.samples[-1]
        played, span = after - before, last - first
        if played < ESTIMATE_AFTER_ITEMS or span < ESTIMATE_AFTER_SECONDS:
            return Pace(None, None, idle)
        rate = played / span
        return Pace(rate, max(0, self.total - self.stored) / rate, idle)

    def state(self) -> dict[str, Any]:
        """What ``live.json`` answers: the version, the store's status, the counts, the progress line, the pace."""
        with self.lock:
            pace = self.pace()
            return {"version": self.version, "page": self.page_version(), "status": self.status,
                    "message": self.message, "kind": self.kind,
                    "stored": self.stored, "total": self.total,
                    "finished": bool(self.total) and self.stored >= self.total,
                    "progress": progress_text(self.stored, self.total, pace) if self.version else "",
                    "pace": pace.to_json()}

    def page_version(self) -> str | None:
        """The version a page asked for now would be built from: the store's, or while the build throttle holds,
        the last build's (an open page fetches itself again only when this changes)."""
        data = self.data
        if data is None or self.version is None:
            return self.version
        if self._throttled(data[0], self.version):
            return data[0]
        return self.version

    def _throttled(self, built: str, version: str) -> bool:
        """Whether the build of ``built`` is too recent for another, of ``version``. A build of another store file
        (the run's ``--fresh`` made a new one) never holds back the first build of the new one."""
        return same_store(built, version) and \
            time.monotonic() - self.built_at < max(BUILD_EVERY, BUILD_SHARE * self.build_took)

    # -- the builders' side: pages --

    def answer(self, path: str) -> Answer | None:
        """The page at ``path`` (relative to the folder: ``index.html``, ``plots/faults.svg``...), or None."""
        if path == LIVE_JSON:
            return Answer(json.dumps(self.state()).encode(), "application/json")
        if path in ("", "index.html", GAMES_PAGE):
            return self._page(path or "index.html")
        if path.startswith("plots/") and path.endswith(".svg"):
            return self._chart(path)
        if path.startswith("games/") and PAGE_NAME.fullmatch(path.removeprefix("games/")):
            return self._replay(path.removeprefix("games/"))
        return None

    def _fresh_data(self) -> tuple[str, SiteData, str, dict[str, Callable[[], str]]] | None:
        """The data of the pages as last read; when the store changed and the throttle allows, a build starts in
        the background. A request never waits for a build, except the very first one, for a moment."""
        with self.lock:
            version, status = self.version, self.status
        if version is None:
            return None
        data = self.data
        stale = data is None or (data[0] != version and status == "ok" and not self._throttled(data[0], version))
        if stale and not self.building.is_set():
            self.building.set()
            threading.Thread(target=self._build, name="arena-serve-build", daemon=True).start()
        if data is None:
            self.built.wait(FIRST_WAIT)  # a small store is read in this time: the first page is the real one
        return self.data

    def _build(self) -> None:
        """Read the data behind the pages once (in a thread of its own: the requests go on meanwhile)."""
        try:
            with self.build_lock:
                with self.lock:
                    version = self.version
                started = time.thread_time()  # CPU time: what the build takes from a run sharing the cores
                try:
                    reader = self._reader()
                    with reader.snapshot():  # one state of the store for every part of the pages
                        data = read_site(reader, games=False)
                        gap = reader.gap()
                        extra, drawers = "", dict[str, Callable[[], str]]()
                        if is_comparison(self.folder) or data.header["kind"] == "compare":
                            extra, drawers = comparison_top(self.folder, reader)
                except ArenaError:
                    self._close_reader()  # the status bar says why (the sampler sees the same trouble)
                    return

                def history(game: str, placings: list[tuple[int, str, int]]) -> dict[str, Any]:
                    return reader.rated(game, placings, gap).series

                assert version is not None
                # the first build of a store rates every game stored before the site looked, once: that is not
                # what the next builds cost, so it does not set the wait before the next one
                first = self.data is None or not same_store(self.data[0], version)
                self.data = (version, data, extra, {**chart_drawers(data, history), **drawers})
                self.built_at = time.monotonic()
                self.build_took = 0.0 if first else time.thread_time() - started
        finally:
            self.built.set()  # tried at least once: a first request waits no more
            self.building.clear()

    def _reader(self) -> ReadOnlyStore:
        path = os.path.join(self.folder, STORE_FILE)
        if self.reader is not None and self.reader.identity != file_identity(path):
            self._close_reader()
        if self.reader is None:
            self.reader = open_read_only(self.folder, self.served)
        return self.reader

    def _close_reader(self) -> None:
        if self.reader is not None:
            self.reader.close()
        self.reader = None

    def _page(self, name: str) -> Answer:
        data = self._fresh_data()
        if data is None:
            return html(waiting_page(self.folder, self.message if self.status != "ok" else
                                     f"reading the store ({self.stored} games) for the first time"))
        version, site, extra, drawers = data
        kept = self.pages.get(name)
        if kept is not None and kept.version == version:
            return kept
        script = live_script(version)
        if name == "index.html":
            text = front_page(site, set(drawers), live_link, extra, self.pace(), script)
        else:
            with self.build_lock:  # the games page's rows: read for it alone, on the builders' connection
                try:
                    with self._reader().snapshot():
                        site = read_games(self._reader(), site)
                except ArenaError:
                    self._close_reader()
                    return html(waiting_page(self.folder, "the store cannot be read now"))
            text = games_page(site, live_link, [], "every game has one on this live site.", script)
        self.pages[name] = html(text, version)
        return self.pages[name]

    def _chart(self, path: str) -> Answer | None:
        data = self._fresh_data()
        if data is None or path not in data[3]:
            return None
        with self.chart_lock:  # drawn outside the build lock: a slow chart never holds up a page
            kept = self.charts.get(path)
            now = time.monotonic()
            if kept is None or (kept[1].version != data[0] and (
                    not same_store(kept[1].version, data[0]) or
                    now - kept[0] >= max(CHART_EVERY, CHART_SHARE * self.chart_took))):
                began = time.thread_time()
                svg = data[3][path]()
                self.chart_took = time.thread_time() - began
                kept = (now, Answer(svg.encode("utf-8"), "image/svg+xml", data[0]))
                self.charts[path] = kept
            return kept[1]

    def _replay(self, name: str) -> Answer | None:
        order = int(name.split("-", 1)[0]) - 1
        with self.build_lock:
            try:
                reader = self._reader()
                rows = reader.query("SELECT row, id FROM games WHERE current = ?", (order,))
                if not rows or page_file(order + 1, rows[0][1]) != name:
                    return None
                row, game_id = rows[0]
                key = (name, row)
                text = None if key in self.replays else reader.record(game_id)  # the store decodes its records
            except ArenaError:
                self._close_reader()
                return None
            if key not in self.replays:
                if text is None:
                    return None
                document, _ = replay_document(json.loads(text), self.plugins, (f"../{GAMES_PAGE}", "all games"))
                self.replays[key] = html(document)
                while len(self.replays) > REPLAY_CACHE:
                    self.replays.popitem(last=False)
            self.replays.move_to_end(key)
            return self.replays[key]

    def verdict(self) -> str:
        """The root index's verdict column: a finished comparison's headline, else ``-``."""
        if not is_comparison(self.folder):
            return "playing" if self.kind == "compare" else "-"
        try:
            return HEADLINES.get(read_outcome(self.folder).get("verdict", ""), "-")
        except ArenaError:
            return "-"

    def close(self) -> None:
        with self.lock:
            self._close_watch()
        with self.build_lock:
            self._close_reader()


def same_store(version: str, other: str) -> bool:
    """Whether two versions (``LiveFolder.version``) are of the same store file (they start with its identity)."""
    return version.split(":", 1)[0] == other.split(":", 1)[0]


def live_link(order: int, game_id: str) -> str:
    """On a live site every game has a replay page, drawn when asked for."""
    return f"games/{page_file(order + 1, game_id)}"


def waiting_page(folder: str, message: str) -> str:
    """The page shown before a store can be read at all (a run about to start, a store being made)."""
    return page(f"Waiting for {folder}", (
        f'<h1>Waiting for results in {escape(folder)}</h1>'
        f'<p class="banner" id="progress-line">{escape(message)}. This page fills in by itself once the first '
        f"games are stored.</p>"), live_script(None))


class LiveSite:
    """What ``arena serve RESULTS`` serves: one folder's :class:`LiveFolder`, or a root's, one per subfolder."""

    def __init__(self, results: str, plugins: Plugins, *, single: bool | None = None) -> None:
        self.results = results
        self.plugins = plugins
        if single is None:
            single = os.path.isfile(os.path.join(results, STORE_FILE)) or not _store_folders(results)
        self.single = single
        self.folders: dict[str, LiveFolder] = {}
        self.lock = threading.Lock()
        if single:
            self.folders[""] = LiveFolder(results, results, plugins)
        self.stopped = threading.Event()

    def pulse(self) -> None:
        """One look at every folder (a root's new subfolders join; its vanished ones leave)."""
        if not self.single:
            names = _store_folders(self.results)
            with self.lock:
                for name in names - self.folders.keys():
                    self.folders[name] = LiveFolder(os.path.join(self.results, name), self.results, self.plugins)
                for name in self.folders.keys() - names:
                    self.folders.pop(name).close()
        with self.lock:
            folders = list(self.folders.values())
        for folder in folders:
            folder.pulse()

    def run_sampler(self, every: float = PULSE_EVERY, parent: int | None = None,
                    on_orphan: Callable[[], None] | None = None) -> None:
        """Pulse until :attr:`stopped`; with ``parent``, stop (calling ``on_orphan``) once that process is gone."""
        while not self.stopped.is_set():
            try:
                self.pulse()
            except Exception:  # noqa: BLE001 - the sampler must outlive any one bad look
                pass
            if parent is not None and os.getppid() != parent:
                self.stopped.set()
                if on_orphan is not None:
                    on_orphan()
                return
            self.stopped.wait(every)

    def answer(self, parts: list[str]) -> Answer | None:
        """The page at the path ``parts`` (already split and checked by the HTTP layer), or None."""
        if parts == ["favicon.ico"]:  # browsers ask for it on every site
            return Answer(FAVICON, "image/svg+xml")
        if self.single:
            return self.folders[""].answer("/".join(parts))
        if parts in ([], ["index.html"]):
            return html(self._root_index())
        if parts == [LIVE_JSON]:
            return Answer(json.dumps(self._root_state()).encode(), "application/json")
        with self.lock:
            folder = self.folders.get(parts[0])
        if folder is None or not inside(self.results, folder.folder):
            return None
        if len(parts) == 1:  # /NAME: the folder's pages are relative to /NAME/
            return Answer(b"", "text/plain", location=f"{parts[0]}/")
        return folder.answer("/".join(parts[1:]))

    def _root_state(self) -> dict[str, Any]:
        with self.lock:
            folders = dict(self.folders)
        states = {name: folder.state() for name, folder in sorted(folders.items())}
        problems = [f"{name}: {state['message']}" for name, state in states.items() if state["status"] != "ok"]
        return {"version": json.dumps({name: state["version"] for name, state in states.items()}),
                "status": "ok", "message": "; ".join(problems), "progress": "",
                "finished": all(state["finished"] for state in states.values())}

    def _root_index(self) -> str:
        with self.lock:
            folders = dict(self.folders)
        rows = []
        for name, folder in sorted(folders.items()):
            state = folder.state()
            rows.append(root_row(name, "comparison" if state["kind"] == "compare" else "tournament",
                                 state["stored"], state["total"], folder.verdict()))
        return root_page(self.results, rows, [], live_script(self._root_state()["version"]))

    def close(self) -> None:
        self.stopped.set()
        with self.lock:
            for folder in self.folders.values():
                folder.close()


def _store_folders(root: str) -> set[str]:
    """The subfolders of ``root`` holding a store inside ``root`` (a folder or store that links out is left out)."""
    try:
        names = os.listdir(root)
    except OSError:
        return set()
    return {name for name in names if not name.startswith(".")
            and os.path.isfile(os.path.join(root, name, STORE_FILE))
            and inside(root, os.path.join(root, name, STORE_FILE))}
