"""The ``arena report`` command, registered as a plugin through ``register_commands``."""

from __future__ import annotations

import contextlib
import os
import signal
import sys

import click

from arena import hookimpl
from arena.report import REPLAYS_PER_TABLE


@hookimpl
def register_commands(cli: click.Group) -> None:
    cli.add_command(report)
    cli.add_command(serve)


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


@click.command()
@click.argument("results", metavar="RESULTS", type=click.Path(file_okay=False))
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (0.0.0.0: every interface; anyone who can reach it sees the results).")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on; 0 picks a free one.")
@click.option("--verbose", is_flag=True, help="Log every request on stderr.")
@click.option("--parent", type=int, hidden=True, help="Stop once this process is gone (run and compare --serve).")
def serve(results: str, host: str, port: int, verbose: bool, parent: int | None) -> None:
    """Serve a tournament, a comparison or a results root as a live site, updated as games are stored.

    RESULTS is what `arena report` takes: one tournament's or comparison's
    folder, or a results root holding many. The pages are the report's
    (standings with intervals and rank ranges, charts, head-to-head tables,
    every game with its replay page, faults, settings), plus the progress
    (played, to play, the rate and the time left), the latest finished games
    and the latest faults; a comparison shows its SPRT trace growing. An open
    page updates itself within a few seconds of a game being stored, without
    reloading. It works while `arena run` or `arena compare` writes to the
    folder (the store is only read) and on a finished run alike; `arena run
    FILE --serve` starts it beside a run. Ctrl-C stops it; so does SIGTERM,
    with exit status 143.

    \b
      arena serve results/demo                  # then open http://127.0.0.1:8000/
      arena serve results --port 0              # every tournament and comparison; a free port
    """
    from arena.errors import ReportError
    from arena.plugins import get_plugins
    from arena.report.live_http import start
    from arena.report.live_site import LiveSite, load_charting
    from arena.report.plots import require_matplotlib

    require_matplotlib("arena serve")
    if not os.path.isdir(results) and parent is None:
        raise ReportError(f"{results}: no such folder (expected a tournament's results folder, e.g. results/demo, "
                          f"or a results root, e.g. results)")
    load_charting()  # before the address is printed: a run served beside waits for it, then plays
    site = LiveSite(results, get_plugins())
    if parent is not None:  # beside a run, once started (the run waits for that): the run's processes come first
        with contextlib.suppress(OSError):  # set before any thread starts: Linux keeps a nice value per thread
            os.nice(10)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the run ends it so: without a word on the run's terminal
    try:
        server, _ = start(site, host, port, verbose, parent)
    except OSError as error:
        raise ReportError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    if parent is None:
        click.echo(f"arena: serving {results} live at {server.url} (Ctrl-C stops)")
    else:
        click.echo(server.url)  # the only line on stdout: the run that started this server reads it
    sys.stdout.flush()
    try:
        server.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        site.close()
