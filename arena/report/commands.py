"""The ``arena report`` command, registered as a plugin through ``register_commands``."""

from __future__ import annotations

import os

import click

from arena import hookimpl


@hookimpl
def register_commands(cli: click.Group) -> None:
    cli.add_command(report)


@click.command()
@click.argument("results", metavar="RESULTS", type=click.Path(file_okay=False))
@click.option("--out", "-o", "out", metavar="DIR", type=click.Path(file_okay=False),
              help="Folder to write the site into [default: RESULTS/report].")
def report(results: str, out: str | None) -> None:
    """Write a tournament's results as a static HTML site.

    RESULTS is one tournament's folder, the one holding results.sqlite (e.g.
    results/demo). The site opens from disk, with no server and no network:
    open DIR/index.html in a browser. It holds the overall and per-game
    leaderboards, each bot's rating (mu with a band of ± sigma) against the
    games it played, the head-to-head tables as heat maps, the faults by bot and
    kind, the tournament's settings, and a replay page for every game (step
    through it with the buttons, the arrow keys or the slider).

    Charts need matplotlib: pip install 'arena[report]'.
    """
    from arena.plugins import get_plugins
    from arena.report.site import write_site

    out = out or os.path.join(results, "report")
    written = write_site(results, out, get_plugins())
    for problem in written.broken:
        click.echo(f"arena: warning: {problem}", err=True)
    click.echo(f"Wrote the report (leaderboards, charts, replay pages: {written.replays}); open {written.index}")
