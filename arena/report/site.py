"""``arena report``: a tournament's results as a static site that opens from disk.

The site is written into one folder and needs nothing outside it (no server,
no network): ``index.html`` (the tournament's settings, the overall and
per-game leaderboards, each bot's rating against games played, the
head-to-head heat maps, the faults by bot and kind), ``games.html`` (every
game, linking to its replay page when it has one), ``games/*.html`` (replay
pages, see :mod:`arena.report.replay_page`, for a sample: the first few games
of every table, plus any game asked for by id) and ``plots/*.svg``. Every table
is plain HTML, readable without JavaScript; only the replay pages use a script.

It scales with the store, not with memory: the games page and the charts are
built from the store's seats and placings tables, and only the sampled games'
records are read and replayed. A replay page weighs about 100 kB, so writing
one per game of a large tournament would make a site of hundreds of megabytes.

The figures are the leaderboard's own (:mod:`arena.standings.leaderboard`),
so the site and ``arena leaderboard`` always agree.

One code path for both sites: :func:`read_site` reads what the pages show,
:func:`front_page`, :func:`games_page`, :func:`chart_drawers` and
:func:`replay_document` build them as text, and :func:`write_site` writes them
to files; ``arena serve`` (:mod:`arena.report.live_site`) serves the very same
text from memory, adding only its poller script. What differs is which games
have a replay page (a sample here, every game live): the builders take a
:data:`~arena.report.activity.ReplayLink`.
"""

from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass, field, replace
from html import escape
from typing import Any, Callable, TextIO, TypeVar

from arena.report import REPLAYS_PER_TABLE
from arena.errors import ArenaError, ReportError
from arena.plugins import Plugins
from arena.report import plots
from arena.report.activity import Activity, Pace, ReplayLink, activity_html, read_activity
from arena.report.markup import Cell, link, page, table, write_text
from arena.report.replay_page import replay_page
from arena.runs.loop import Progress
from arena.standings.board import OVERALL
from arena.standings.leaderboard import HEAD_TO_HEAD_NOTE, build_leaderboard, section_notes, standing_rows
from arena.standings.ratings import ENVIRONMENT, Rating, rate_games
from arena.runs.progress import Tally, make_progress
from arena.runs.store import GameRow, Header, SeatResult, Store, open_store

FAULT_KINDS = ("timeout", "illegal", "malformed", "crash")
GAMES_PAGE = "games.html"


#: at most this many points per bot in a rating chart (the last one always kept)
CHART_POINTS = 400


@dataclass
class Written:
    """What :func:`write_site` wrote: the index, the number of replay pages, records that did not replay."""

    index: str
    replays: int = 0
    broken: list[str] = field(default_factory=list)


def sample(index: list[GameRow], per_table: int, wanted: tuple[str, ...] = ()) -> list[GameRow]:
    """The games to draw replay pages for: the first ``per_table`` of every table, plus the ``wanted`` ids.

    ``index`` is :meth:`~arena.runs.store.Store.game_index` rows (schedule order); an id in ``wanted``
    that is not stored is a :class:`ReportError`.
    """
    ids = {row.id for row in index}
    missing = [game_id for game_id in wanted if game_id not in ids]
    if missing:
        raise ReportError(f"no game {missing[0]!r} in this store (`arena export FOLDER` lists the ids)")
    seen: dict[tuple[str, str], int] = {}
    chosen = []
    for row in index:
        table = (row.game, row.table)
        seen[table] = seen.get(table, 0) + 1
        if seen[table] <= per_table or row.id in wanted:
            chosen.append(row)
    return chosen


@dataclass
class SiteData:
    """Everything the front page and the games page show, read from one store at one moment."""

    header: Header
    board: dict[str, Any]
    index: list[GameRow]
    seats: dict[int, list[SeatResult]]
    faults: dict[str, dict[str, int]]
    #: per game, the store's placings (the rating charts' history is rated from them when a chart is drawn)
    placings: dict[str, list[tuple[int, str, int]]]
    activity: Activity


def read_site(store: Store, games: bool = True) -> SiteData:
    """Read what the pages show from ``store`` (the standings, the faults, the charts' data, the activity) and,
    with ``games``, every game's seats (the games page; the live site reads them for that page only)."""
    header = store.header()
    board = build_leaderboard(store)
    data = SiteData(header=header, board=board, index=[], seats={}, faults=store.fault_kinds(),
                    placings={game["name"]: store.placings(game["name"]) for game in header["plan"]["games"]},
                    activity=read_activity(store, header["total"]))
    return read_games(store, data) if games else data


def read_games(store: Store, data: SiteData) -> SiteData:
    """``data`` with every current game and its seats (what the games page lists)."""
    return replace(data, index=store.game_index(), seats=store.seat_results())


def static_link(pages: dict[int, str]) -> ReplayLink:
    """The replay link of a written site: the page written for that game, if one was."""
    return lambda order, game_id: pages.get(order)


def write_site(results: str, out: str, plugins: Plugins, *, per_table: int = REPLAYS_PER_TABLE,
               wanted: tuple[str, ...] = (), progress_stream: TextIO | None = None,
               header_extra: str = "", charts_extra: dict[str, Callable[[], str]] | None = None) -> Written:
    """Write the report of the tournament in ``results`` (its folder, holding results.sqlite) into ``out``.

    :param per_table: replay pages for the first this many games of every table.
    :param wanted: ids of further games to draw replay pages for.
    :param progress_stream: where the progress line goes (default stderr).
    :param header_extra: HTML put at the top of the front page (a comparison's verdict).
    :param charts_extra: more charts to write (path relative to ``out`` -> its drawer: a comparison's SPRT trace).
    """
    plots.require_matplotlib()
    store = open_store(results)
    try:
        data = read_site(store)
        chosen = sample(data.index, per_table, wanted)
        for folder in ("plots", "games"):
            try:
                os.makedirs(os.path.join(out, folder), exist_ok=True)
            except OSError as error:
                raise ReportError(f"cannot make the folder {os.path.join(out, folder)}: {error.strerror}") from None
        written = Written(index=os.path.join(out, "index.html"))
        _clear_old_pages(out)
        tally = Tally(len(chosen) + 1, 0, {}, {}, unit="pages")
        progress = make_progress(f"report {data.header['name']}", tally, progress_stream)
        try:
            pages = _write_replays(store, chosen, plugins, out, written, progress)
            drawers = {**chart_drawers(data), **(charts_extra or {})}
            for relative, draw in drawers.items():
                write_text(os.path.join(out, relative), draw())
            link = static_link(pages)
            write_text(written.index, front_page(data, set(drawers), link, header_extra))
            write_text(os.path.join(out, GAMES_PAGE), games_page(data, link, written.broken,
                                                                 sample_note(per_table)))
            progress.game_done([], [])
        finally:
            progress.finish()
    finally:
        store.close()
    return written


# -- the data behind the pages --


def rating_histories(seats: list[tuple[int, str, int]]) -> dict[str, list[tuple[int, float, float]]]:
    """Per bot, ``(games played, mu, sigma)`` after each of its games, from 0 games (the prior) on.

    ``seats`` are the store's ``placings(game)``; the ratings are the leaderboard's (same function, same order).
    """
    history: list[tuple[int, dict[str, Rating]]] = []
    rate_games(seats, history)
    series: dict[str, list[tuple[int, float, float]]] = {}
    for _, rated in history:
        for bot, rating in sorted(rated.items()):
            points = series.setdefault(bot, [(0, ENVIRONMENT["mu"], ENVIRONMENT["sigma"])])
            points.append((len(points), rating.mu, rating.sigma))
    return series


Point = TypeVar("Point")


def thinned(points: list[Point], most: int = CHART_POINTS) -> list[Point]:
    """At most ``most`` of ``points``, evenly spaced, the first and last kept (a chart needs no more)."""
    if len(points) <= most:
        return points
    step = (len(points) - 1) / (most - 1)
    return [points[round(number * step)] for number in range(most)]


#: the file names :func:`page_name` gives
PAGE_NAME = re.compile(r"\d{5,}-[A-Za-z0-9._-]*\.html")


def page_name(order: int, record: dict[str, Any]) -> str:
    """The replay page's file name: its place in the schedule and its id, safe on every file system."""
    return page_file(order, str(record.get("id", "game")))


def page_file(order: int, game_id: str) -> str:
    """:func:`page_name` from the place (1-based) and the id alone."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", game_id).strip("-")
    return f"{order:05d}-{slug}.html"


def replay_document(record: dict[str, Any], plugins: Plugins, back: tuple[str, str]) -> tuple[str, str | None]:
    """The replay page of ``record`` and None, or, when it does not replay, a page saying why and the reason."""
    try:
        return replay_page(record, plugins, back=back), None
    except ReportError:
        raise
    except ArenaError as error:  # the record does not replay, or its game is not installed
        return page(f"Replay {record.get('id')}", (
            f'<nav class="site">{link(*back)}</nav>'
            f"<h1>{escape(str(record.get('id')))}</h1>"
            f'<p class="banner">This game cannot be replayed with the installed engines, so it cannot be '
            f"shown: {escape(str(error))}</p>")), f"{record.get('id')}: {error}"


# -- writing --


def _clear_old_pages(out: str) -> None:
    """Remove the replay pages of an earlier report into ``out`` (another sample may be drawn now)."""
    folder = os.path.join(out, "games")
    for name in os.listdir(folder):
        if PAGE_NAME.fullmatch(name):  # only pages named as page_name names them: never someone's own files
            os.remove(os.path.join(folder, name))


def _write_replays(store: Store, chosen: list[GameRow], plugins: Plugins, out: str, written: Written,
                   progress: Progress) -> dict[int, str]:
    """Write the chosen games' replay pages; seq -> page path relative to ``out``."""
    pages = {}
    for row in chosen:
        seq, game_id = row.order, row.id
        stored = store.record(game_id)
        assert stored is not None  # the id comes from the store's own index
        record = json.loads(stored)
        name = page_name(seq + 1, record)
        text, problem = replay_document(record, plugins, (f"../{GAMES_PAGE}", "all games"))
        write_text(os.path.join(out, "games", name), text)
        if problem is None:
            written.replays += 1
        else:
            written.broken.append(problem)
        pages[seq] = f"games/{name}"
        progress.game_done([], [])
    return pages


#: a game's name and placings -> each bot's rating history (:func:`rating_histories` by default)
History = Callable[[str, list[tuple[int, str, int]]], dict[str, list[tuple[int, float, float]]]]


def chart_drawers(data: SiteData, history: History | None = None) -> dict[str, Callable[[], str]]:
    """Every chart of the front page: its path relative to the site -> a function drawing it (SVG text).

    The paths are known without drawing, so a live site draws a chart only when it is asked for;
    ``history`` is how the rating charts' histories are rated (the live site carries them forward).
    """
    history = history or (lambda game, placings: rating_histories(placings))
    drawers: dict[str, Callable[[], str]] = {}
    board = data.board
    overall = next(section for section in board["sections"] if section["game"] == OVERALL)
    # worked out when a rating chart is drawn, not here: a live site's build then never imports matplotlib
    colours = functools.cache(functools.partial(plots.bot_colours, [row["bot"] for row in overall["standings"]]))
    for section in board["sections"]:
        placings = data.placings.get(section["game"])
        if placings:
            drawers[f"plots/rating-{section['game']}.svg"] = functools.partial(
                _rating_chart, functools.partial(history, section["game"], placings),
                [row["bot"] for row in section["standings"]], colours,
                f"{section['game']}: rating against games played")
    for section in board["sections"]:
        bots, shares = head_to_head_shares(section)
        if section["games"] and len(bots) > 1:
            drawers[f"plots/head-to-head-{section['game']}.svg"] = functools.partial(
                plots.heat_map, bots, shares, f"{section['game']}: head-to-head")
    if data.faults:
        drawers["plots/faults.svg"] = functools.partial(plots.faults_chart, data.faults, _kinds(data.faults),
                                                        "faults by bot and kind")
    return drawers


def _rating_chart(history: Callable[[], dict[str, list[tuple[int, float, float]]]], order: list[str],
                  colours: Callable[[], dict[str, str]], title: str) -> str:
    """The rating chart of one game: its ``history()``, bots in standings ``order``, ``colours()`` by bot."""
    series = history()
    return plots.rating_chart({bot: thinned(series[bot]) for bot in order if bot in series}, colours(), title)


def head_to_head_shares(section: dict[str, Any]) -> tuple[list[str], list[list[float | None]]]:
    """The section's bots in standings order and, per pair, the share of meetings the row bot finished above."""
    bots = [row["bot"] for row in section["standings"]]
    pairs = section["head_to_head"]
    shares = []
    for bot in bots:
        row = []
        for other in bots:
            pair = pairs.get(bot, {}).get(other)
            row.append(pair["above"] / pair["meetings"] if pair and pair["meetings"] else None)
        shares.append(row)
    return bots, shares


def _kinds(faults: dict[str, dict[str, int]]) -> list[str]:
    seen = {kind for kinds in faults.values() for kind in kinds}
    return [kind for kind in FAULT_KINDS if kind in seen] + sorted(seen - set(FAULT_KINDS))


# -- the pages --


def front_page(data: SiteData, charts: set[str], replay_link: ReplayLink, extra: str = "",
               pace: Pace | None = None, script: str = "") -> str:
    """The site's front page: ``charts`` are the chart paths drawn (:func:`chart_drawers`), ``extra`` HTML put
    under the title (a comparison's verdict), ``pace`` the live pace, ``script`` the live site's poller."""
    header, board = data.header, data.board
    name = header["name"]
    kind = "Comparison" if header["definition"].get("kind") == "compare" else "Tournament"
    sections = _overall_first(board["sections"])
    parts = [
        f"<h1>{kind} {escape(name)}</h1>",
        extra,
        f'<p>{data.activity.stored} of {header["total"]} scheduled games played. '
        f'{link(GAMES_PAGE, "Every game, with its replay")}.</p>',
        '<nav class="site">' + " ".join(
            link(f"#{anchor}", text) for anchor, text in
            [(f"section-{section['game']}", _section_title(section)) for section in sections]
            + [("latest-games", "latest games"), ("latest-faults", "latest faults"), ("faults", "faults"),
               ("settings", "settings")]) + "</nav>",
    ]
    keys = {path.removeprefix("plots/").removesuffix(".svg"): path for path in charts}
    for section in sections:
        parts.append(_section(board, section, keys))
    parts.append(activity_html(data.activity, replay_link, pace))
    parts.append(_faults(data.faults, keys))
    parts.append(_settings(header))
    return page(f"{kind} {name}", "\n".join(parts), script)


def _overall_first(sections: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(sections, key=lambda section: section["game"] != OVERALL)


def _section_title(section: dict[str, Any]) -> str:
    return "overall" if section["game"] == OVERALL else section["game"]


def _section(board: dict[str, Any], section: dict[str, Any], charts: dict[str, str]) -> str:
    """One game's (or the overall) standings, notes, head-to-head table and charts; ``charts``: key -> path."""
    game = section["game"]
    parts = [f'<h2 id="section-{escape(game)}">{escape(_section_title(section))}: '
             f'{section["games"]} of {section["scheduled"]} games</h2>']
    headers, rows = standing_rows(section)  # the leaderboard's own columns, as `arena leaderboard` prints them
    parts.append(table(list(headers), rows, css_id=f"standings-{game}"))
    notes = section_notes(board, section)
    parts.append('<ul class="note">' + "".join(f"<li>{escape(note)}</li>" for note in notes) + "</ul>")
    parts.append("<h3>Head-to-head</h3>")
    parts.append(_head_to_head_table(section))
    parts.append(f'<p class="note">{escape(HEAD_TO_HEAD_NOTE)}.</p>')
    figures = []
    if f"rating-{game}" in charts:
        figures.append(_figure(charts[f"rating-{game}"],
                               f"Each bot's TrueSkill mu after each of its {game} games, with a band of ± sigma "
                               f"(the uncertainty), from the prior mu {ENVIRONMENT['mu']:g} at 0 games."))
    if f"head-to-head-{game}" in charts:
        figures.append(_figure(charts[f"head-to-head-{game}"], "The head-to-head table as a heat map."))
    if figures:
        parts.append('<div class="figures">' + "".join(figures) + "</div>")
    return "\n".join(parts)


def _head_to_head_table(section: dict[str, Any]) -> str:
    bots, shares = head_to_head_shares(section)
    pairs = section["head_to_head"]
    rows = []
    for bot, values in zip(bots, shares):
        cells: list[Any] = [bot]
        for other, share in zip(bots, values):
            if share is None:
                cells.append("-")
                continue
            pair = pairs[bot][other]
            cells.append(Cell(f"{100 * share:.0f}%", "num", f"background:{_heat(share)}",
                              f"{pair['above']} above, {pair['below']} below, {pair['equal']} equal"))
        rows.append(cells)
    return table(["bot", *bots], rows, css_id=f"head-to-head-{section['game']}")


def _heat(share: float) -> str:
    """A red (0) to yellow (0.5) to green (1) background, light enough for dark text."""
    red = 250 if share <= 0.5 else round(250 - (share - 0.5) * 2 * 110)
    green = 250 if share >= 0.5 else round(140 + share * 2 * 110)
    return f"rgb({red},{green},150)"


def _figure(source: str, caption: str) -> str:
    return (f'<figure><img src="{escape(source)}" alt="{escape(caption)}">'
            f"<figcaption>{escape(caption)}</figcaption></figure>")


def _faults(faults: dict[str, dict[str, int]], charts: dict[str, str]) -> str:
    parts = ['<h2 id="faults">Faults by bot and kind</h2>']
    if not faults:
        parts.append("<p>No faults: every bot answered every decision in time and within the rules.</p>")
        return "\n".join(parts)
    kinds = _kinds(faults)
    rows = [[bot, *(counts.get(kind, 0) for kind in kinds), sum(counts.values())] for bot, counts in faults.items()]
    parts.append(table(["bot", *kinds, "total"], rows, css_id="faults-table"))
    parts.append('<p class="note">timeout: no answer in time; illegal: against the rules; malformed: not a '
                 "well-formed action; crash: the bot raised, exited or closed its output. Each game's faults, "
                 f"with details, are on its replay page ({link(GAMES_PAGE, 'every game')}).</p>")
    if "faults" in charts:
        parts.append(_figure(charts["faults"], "Faults per bot, stacked by kind."))
    return "\n".join(parts)


def _settings(header: Header) -> str:
    definition = header["definition"]
    if not {"format", "games", "limits", "bots"} <= definition.keys():  # a comparison's, or another kind
        rows = [[key, value if isinstance(value, (str, int, float)) else json.dumps(value, sort_keys=True)]
                for key, value in definition.items()]
        return "\n".join(['<h2 id="settings">Settings</h2>',
                          table(["setting", "value"], rows, css_id="settings-table")])
    parts = ['<h2 id="settings">Settings</h2>',
             table(["setting", "value"], [["name", definition["name"]],
                                          ["seed", definition.get("seed", "secret (kept in the store)")],
                                          ["format", definition["format"]],
                                          ["deals per table", definition.get("deals", "-")],
                                          ["games scheduled", header["total"]]], css_id="settings-table"),
             "<h3>Games</h3>",
             table(["game", "players per table", "options", "tables", "games"],
                   [[game["name"], game["players"], json.dumps(game["options"], sort_keys=True) or "{}",
                     *_plan_counts(header["plan"], game["name"])] for game in definition["games"]]),
             "<h3>Limits</h3>",
             table(["limit", "value"], [[key, value] for key, value in definition["limits"].items()]),
             "<h3>Bots</h3>",
             table(["bot", "spec", "options"], [[bot["name"], bot["spec"], json.dumps(bot.get("options") or {})]
                                               for bot in definition["bots"]])]
    return "\n".join(parts)


def _plan_counts(plan: dict[str, Any], game: str) -> list[Any]:
    for entry in plan["games"]:
        if entry["name"] == game:
            return [len(entry["tables"]), entry["games"]]
    return ["-", "-"]


def sample_note(per_table: int) -> str:
    """What the games page of a written site says about which games have a replay page."""
    return (f"the first {per_table} games of every table have one. For any other game, "
            f"<code>arena report --game ID</code> adds its replay page, <code>arena serve FOLDER</code> serves "
            f"every game's, and <code>arena show FOLDER ID</code> prints its account.")


def games_page(data: SiteData, replay_link: ReplayLink, broken: list[str], note: str, script: str = "") -> str:
    """Every stored game in schedule order; those with a replay page link to it.

    ``note`` (HTML) says which games have one (:func:`sample_note`; every game on a live site).
    """
    name, index, seats = data.header["name"], data.index, data.seats
    parts = [f'<nav class="site">{link("index.html", "leaderboards")}</nav>',
             f"<h1>Tournament {escape(name)}: every game</h1>",
             f"<p>{len(index)} games, in schedule order. A linked id opens the game's replay: {note}</p>"]
    if broken:
        parts.append('<p class="banner">' + escape(f"{len(broken)} records do not replay with the installed "
                                                  f"engine; their pages say why.") + "</p>")
    by_game: dict[str, list[list[Any]]] = {}
    for seq, game_id, game, *_ in index:
        row = seats.get(seq, [])
        described = " · ".join(f"{seat.bot} {seat.money}" for seat in row)
        winners = ", ".join(sorted({seat.bot for seat in row if seat.rank == 1}))
        target = replay_link(seq, game_id)
        shown = link(target, game_id) if target else game_id
        by_game.setdefault(game, []).append([shown, described, winners, sum(seat.faults for seat in row)])
    for game, rows in by_game.items():
        parts.append(f"<h2>{escape(game)}</h2>")
        parts.append(table(["game", "bots and final money, by seat", "winner", "faults"], rows,
                           css_id=f"games-{game}"))
    return page(f"Tournament {name}: games", "\n".join(parts), script)
