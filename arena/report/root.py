"""What ``arena report`` writes for the folder it is given: a tournament, a comparison, or a results root.

- a tournament's folder (``results.sqlite``): its site (:mod:`arena.report.site`);
- a comparison's folder (``results.sqlite`` and ``compare.json``): its site with
  the verdict and SPRT trace on top (:mod:`arena.report.comparison`);
- a results root holding many such folders: one site per folder, in
  ``OUT/NAME/``, and an ``index.html`` listing them all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from html import escape
from typing import Any

from arena.compare.report import HEADLINES
from arena.errors import ReportError, StoreError
from arena.plugins import Plugins
from arena.report.comparison import is_comparison, read_outcome, write_comparison
from arena.report import plots
from arena.report.markup import link, page, table, write_text
from arena.report.site import Written, write_site
from arena.runs.store import STORE_FILE, open_store


@dataclass
class Report:
    """What was written: the page to open, the sites (one per folder) and their problems."""

    index: str
    sites: list[Written] = field(default_factory=list)
    #: folders of a root left out, each with why (a store that cannot be read)
    skipped: list[str] = field(default_factory=list)

    @property
    def replays(self) -> int:
        return sum(site.replays for site in self.sites)

    @property
    def broken(self) -> list[str]:
        return [problem for site in self.sites for problem in site.broken] + self.skipped


def holds_store(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, STORE_FILE))


def result_folders(root: str) -> list[str]:
    """The names of ``root``'s subfolders that hold a store, sorted."""
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    return [name for name in names if holds_store(os.path.join(root, name))]


def store_kind(folder: str) -> str:
    """The kind of run kept in ``folder``'s store: ``tournament`` or ``compare`` (one still playing has no
    compare.json yet)."""
    store = open_store(folder)
    try:
        return str(store.meta("kind", "tournament"))
    finally:
        store.close()


def write_one(folder: str, out: str, plugins: Plugins, **options: Any) -> Written:
    if is_comparison(folder) or store_kind(folder) == "compare":
        return write_comparison(folder, out, plugins, **options)
    return write_site(folder, out, plugins, **options)


def write_report(results: str, out: str, plugins: Plugins, **options: Any) -> Report:
    """Write the report of ``results`` (a tournament's or comparison's folder, or a root of them) into ``out``.

    ``options`` go to :func:`arena.report.site.write_site` (``per_table``, ``wanted``, ``progress_stream``).
    """
    plots.require_matplotlib()
    if holds_store(results):
        site = write_one(results, out, plugins, **options)
        return Report(site.index, [site])
    names = result_folders(results)
    if not names:
        raise ReportError(f"{results}: no {STORE_FILE} in it, nor in any folder under it (expected a tournament's "
                          f"results folder, e.g. results/demo, or a results root, e.g. results)")
    report = Report(os.path.join(out, "index.html"))
    rows = []
    for name in names:
        folder = os.path.join(results, name)
        if options.get("wanted"):  # ids belong to one tournament: ask for them in the others' reports too
            options = {**options, "wanted": tuple(game_id for game_id in options["wanted"]
                                                  if game_id.startswith(f"{name}/"))}
        try:  # one unreadable store (empty, damaged, of a newer arena) does not cost the others their report
            report.sites.append(write_one(folder, os.path.join(out, name), plugins, **options))
            rows.append(_row(folder, name))
        except StoreError as error:
            report.skipped.append(f"left out {folder}: {error}")
    write_text(report.index, root_page(results, rows, report.skipped))
    return report


def root_page(results: str, rows: list[list[Any]], skipped: list[str], script: str = "") -> str:
    """The index of a results root: a row per tournament and comparison (:func:`root_row`), then what was left out.

    ``script`` is the live site's poller (none in a written report).
    """
    return page(f"Results in {results}", "\n".join([
        f"<h1>Results in {escape(results)}</h1>",
        f"<p>{len(rows)} tournaments and comparisons. Each name opens its report.</p>",
        table(["name", "kind", "games stored", "games scheduled", "verdict"], rows, css_id="reports"),
        *(f"<p>{escape(problem)}</p>" for problem in skipped),
    ]), script)


def root_row(name: str, kind: str, stored: int, total: int, verdict: str) -> list[Any]:
    """One row of the root's index: the name linking to its site, the kind, games stored and scheduled, verdict."""
    return [link(f"{name}/index.html", name), kind, stored, total, verdict]


def _row(folder: str, name: str) -> list[Any]:
    store = open_store(folder)
    try:
        header = store.header()
        stored = store.count()
    finally:
        store.close()
    if is_comparison(folder):
        kind, verdict = "comparison", HEADLINES.get(read_outcome(folder).get("verdict", ""), "-")
    else:
        kind, verdict = "tournament", "-"
    return root_row(name, kind, stored, header["total"], verdict)
