"""The ``arena report`` command, registered as a plugin through ``register_commands``."""

from __future__ import annotations

import os

import click

from arena import hookimpl
from arena.report import REPLAYS_PER_TABLE


@hookimpl
def register_commands(cli: click.Group) -> None:
    cli.add_command(report)


@click.command()
@click.argument("results", metavar="RESULTS", type=click.Path(file_okay=False))
@click.option("--out", "-o", "out", metavar="DIR", type=click.Path(file_okay=False),
              help="Folder to write the site into [default: RESULTS/report].")
@click.option("--replays", "per_table", type=click.IntRange(0), default=REPLAYS_PER_TABLE, show_default=True,
              metavar="N", help="Replay pages for the first N games of every table.")
@click.option("--game", "wanted", multiple=True, metavar="ID",
              help="Also a replay page for the game with this id (repeat).")
def report(results: str, out: str | None, per_table: int, wanted: tuple[str, ...]) -> None:
    """Write the results of a tournament, a comparison or a whole results root as a static HTML site.

    RESULTS is one tournament's folder, the one holding results.sqlite (e.g.
    results/demo), a comparison's folder (it also holds compare.json), or a
    results root holding many of them (e.g. results: one site per folder and an
    index; a folder whose store cannot be read is left out, with a warning).
    The site opens from disk, with no server and no network: open
    DIR/index.html in a browser. It holds the overall and per-game
    leaderboards, each bot's rating (mu with a band of ± sigma) against the
    games it played, the head-to-head tables as heat maps, the faults by bot and
    kind, the settings, a list of every game, and replay pages (step through
    them with the buttons, the arrow keys or the slider) for a sample: the
    first N games of every table (--replays) and any game named with --game. A
    comparison's front page starts with its verdict and the SPRT trace.

    \b
      arena report results/demo
      arena report results/demo --game demo/silk-road/random+trader/d7/r2
      arena report results                 # every tournament and comparison, with an index

    Charts need matplotlib: pip install 'knizia-arena[report]' (from a checkout: pip install -e '.[report]').
    """
    from arena.plugins import get_plugins
    from arena.report.root import write_report

    out = out or os.path.join(results, "report")
    written = write_report(results, out, get_plugins(), per_table=per_table, wanted=wanted)
    for problem in written.broken:
        click.echo(f"arena: warning: {problem}", err=True)
    click.echo(f"Wrote the report (leaderboards, charts, replay pages: {written.replays}); open {written.index}")
