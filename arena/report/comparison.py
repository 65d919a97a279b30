"""The report of a comparison's folder (``arena compare``): its verdict and SPRT trace above its leaderboards.

A comparison's folder holds a store like a tournament's plus ``compare.json``,
the outcome. The page states the verdict and why, the figures with their
intervals, and plots the SPRT's log-likelihood ratio deal by deal between its
two bounds, recomputed from the stored games exactly as ``arena compare``
counts them (whole deals in schedule order, up to the deal that decided).
"""

from __future__ import annotations

import functools
import json
import os
from collections import defaultdict
from html import escape
from typing import Any, Callable

from arena.compare.report import HEADLINES, QUESTIONS, question, reason
from arena.compare.stats import Pair, PairedStats, Sprt
from arena.errors import ReportError
from arena.plugins import Plugins
from arena.report import plots
from arena.report.markup import table
from arena.report.site import Written, write_site
from arena.runs.store import Store, open_store

OUTCOME_FILE = "compare.json"
CHART = "plots/sprt.svg"


def is_comparison(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, OUTCOME_FILE))


#: the parts of compare.json the report cannot do without, with their JSON types (the others it reads with care)
OUTCOME_KEYS: dict[str, type | tuple[type, ...]] = {
    "verdict": str, "candidate": str, "players": int, "score_difference": dict, "sprt": (dict, type(None)),
}


def read_outcome(folder: str) -> dict[str, Any]:
    path = os.path.join(folder, OUTCOME_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            outcome: dict[str, Any] = json.load(handle)
    except (OSError, ValueError) as error:
        raise ReportError(f"cannot read {path}: {error}") from None
    wrong = [key for key, kind in OUTCOME_KEYS.items() if not isinstance(outcome, dict) or
             not isinstance(outcome.get(key), kind) or isinstance(outcome.get(key), bool)]
    if wrong:
        raise ReportError(f"{path}: not what `arena compare` writes (no {wrong[0]!r} of the right type); run the "
                          "comparison again to write it anew")
    return outcome


def llr_trace(folder: str, outcome: dict[str, Any], store: Store | None = None) -> list[float]:
    """The LLR after each counted deal, from the stored games (empty without an SPRT).

    ``store`` is the folder's store when the caller holds it open (the live site's read-only one).
    """
    settings = outcome.get("sprt")
    if not settings:
        return []
    stats = PairedStats(Sprt(settings["elo0"], settings["elo1"], settings["alpha"], settings["beta"]))
    opened = store or open_store(folder)
    try:
        seats = opened.seat_results()
        deals: dict[int, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
        for row in opened.game_index():
            deals[row.deal][row.rotation].append(row.order)
    finally:
        if store is None:
            opened.close()
    trace = []
    for deal in sorted(deals)[: outcome.get("blocks", len(deals))]:
        rotations = deals[deal]
        if len(rotations) < outcome["players"] or any(len(twins) != 2 for twins in rotations.values()):
            break  # an incomplete deal is not counted
        pairs = []
        for rotation in sorted(rotations):
            twins = [seats[order] for order in rotations[rotation]]
            bots = [[seat.bot for seat in game] for game in twins]
            if outcome["candidate"] not in bots[0]:
                twins.reverse()
                bots.reverse()
            seat = bots[0].index(outcome["candidate"])
            candidate, baseline = ({"money": [s.money for s in game], "ranks": [s.rank for s in game]}
                                   for game in twins)
            pairs.append(Pair.of(candidate, baseline, seat))
        stats.add_block(pairs)
        trace.append(stats.llr)
        if stats.decided:
            break
    return trace


def verdict_html(outcome: dict[str, Any], chart: str | None) -> str:
    """The verdict, the figures and the SPRT chart, as the top of the comparison's front page."""
    verdict = outcome["verdict"]
    figures = [[label, _signed(outcome[key]["value"]), _signed(outcome[key]["low"]), _signed(outcome[key]["high"])]
               for key, label in (("score_difference", "rank score difference per pair (-1..1)"),
                                  ("elo", "Elo-like difference"), ("money_difference", "money difference per pair"))]
    level = f"{100 * outcome['confidence']:.0f}%"
    parts = [
        f'<p class="banner" id="verdict"><strong>{escape(HEADLINES[verdict])}</strong>: {escape(reason(outcome))}.</p>',
        f"<p>{escape(outcome['game'])}, {outcome['players']} players: candidate "
        f"<strong>{escape(outcome['candidate'])}</strong> against baseline <strong>{escape(outcome['baseline'])}"
        f"</strong>, field {escape(', '.join(outcome['field']))}; {outcome['games']} games counted of at most "
        f"{outcome['max_games']}; pairs won / drawn / lost by the candidate: {outcome['wins']} / "
        f"{outcome['draws']} / {outcome['losses']}.</p>",
        table(["candidate minus baseline", "estimate", f"{level} low", f"{level} high"], figures,
              css_id="compare-figures"),
    ]
    if chart:
        sprt = outcome["sprt"]
        asked, h0, h1 = QUESTIONS[question(outcome)]
        caption = (f"The SPRT's log-likelihood ratio after each deal ({asked}): at or above {sprt['upper']:+.3f} "
                   f"H1, {h1} (Elo-like {sprt['elo1']:g}), at or below {sprt['lower']:+.3f} H0, {h0} "
                   f"({sprt['elo0']:g}); alpha {sprt['alpha']:g}, beta {sprt['beta']:g}.")
        parts.append(f'<figure><img src="{escape(chart)}" alt="{escape(caption)}">'
                     f"<figcaption>{escape(caption)}</figcaption></figure>")
    return "\n".join(parts)


def _signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.3f}"


def comparison_top(folder: str, store: Store) -> tuple[str, dict[str, Callable[[], str]]]:
    """The top of a comparison's front page and its SPRT chart: path -> drawer (none without an SPRT).

    A finished comparison shows its verdict (``compare.json``); one still
    playing shows the trace so far, from the SPRT settings it keeps in its store.
    """
    if is_comparison(folder):
        outcome = read_outcome(folder)
        settings = outcome.get("sprt")
        baseline = outcome.get("baseline", "baseline")
    else:
        definition = store.header()["definition"]
        settings = store.meta("sprt")
        baseline = definition.get("baseline", {}).get("name", "baseline")
        outcome = {"sprt": settings, "players": definition.get("game", {}).get("players", 0),
                   "candidate": definition.get("candidate", {}).get("name", "")}
    trace = llr_trace(folder, outcome, store)
    drawers: dict[str, Callable[[], str]] = {}
    if trace and settings:
        drawers[CHART] = functools.partial(plots.sprt_chart, trace, settings["lower"], settings["upper"],
                                           f"{outcome['candidate']} vs {baseline}: SPRT")
    chart = CHART if drawers else None
    if is_comparison(folder):
        return verdict_html(outcome, chart), drawers
    return playing_html(outcome, trace, chart), drawers


def playing_html(outcome: dict[str, Any], trace: list[float], chart: str | None) -> str:
    """The top of the front page of a comparison still playing: no verdict yet, the SPRT so far."""
    sprt = outcome.get("sprt")
    if sprt:
        where = (f"{len(trace)} deals counted, LLR {trace[-1] if trace else 0.0:+.3f} between "
                 f"{sprt['lower']:+.3f} (not worse) and {sprt['upper']:+.3f} (regression)")
    else:
        where = "a fixed-size comparison (no SPRT): the verdict comes when every game is played"
    parts = [f'<p class="banner" id="verdict"><strong>playing</strong>: no verdict yet; {escape(where)}.</p>']
    if chart:
        parts.append(f'<figure><img src="{escape(chart)}" alt="the SPRT trace so far">'
                     "<figcaption>The SPRT's log-likelihood ratio after each deal counted so far, between its "
                     "two bounds.</figcaption></figure>")
    return "\n".join(parts)


def write_comparison(folder: str, out: str, plugins: Plugins, **options: Any) -> Written:
    """Write a comparison's report: its verdict and SPRT trace, then what every report holds."""
    plots.require_matplotlib()
    store = open_store(folder)
    try:
        extra, drawers = comparison_top(folder, store)
    finally:
        store.close()
    return write_site(folder, out, plugins, header_extra=extra, charts_extra=drawers, **options)
