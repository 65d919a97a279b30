"""The tournament commands, a built-in plugin: ``arena run`` and ``arena leaderboard`` (``arena show`` and
``arena export`` are in :mod:`arena.tournament.show`).

The runner, the store and the leaderboard (numpy, the raters, tabulate) are
imported when a command runs, not when ``arena`` starts: every command's
start-up, ``arena --help`` included, would otherwise pay for them. ``arena
run`` needs its leaderboard's modules only after its games: they are imported
in a thread while the games are played (:mod:`arena.runs.warmup`), not in the
serial start that no worker shares.
"""

from __future__ import annotations

import os

from dataclasses import replace

import click

from arena import hookimpl
from arena.plugins import get_plugins
from arena.runs.beside import serve_options, start_beside
from arena.runs.options import exit_status_of_signal, run_options
from arena.runs.warmup import import_during_play
from arena.seating import bot_prints_to_stderr
from arena.standings import FORMATS

#: what ``arena run`` needs only once its games are played: the leaderboard (numpy, the raters, tabulate and
#: wcwidth) and the bootstrap's random generator
LEADERBOARD_MODULES = ("arena.standings.leaderboard", "numpy.random")


@click.command()
@click.argument("tournament_file", metavar="TOURNAMENT.toml")
@run_options
@serve_options
@click.option("--disqualify-broken", is_flag=True,
              help='An entry that cannot start is disqualified and the rest play (listed as not entered, with '
                   'why)  [default: the file\'s on_broken_entry, "refuse": the run stops, exit 2]')
@click.option("--keep-stale", is_flag=True,
              help="Keep stored games whose game changed since (its rules or arena's game loop: `arena games` "
                   "shows the versions) instead of playing them again; a line says how many.")
@click.pass_context
def run(ctx: click.Context, tournament_file: str, jobs: int | None, scheduler: str | None, sandbox: str, root: str,
        fresh: bool, disqualify_broken: bool, keep_stale: bool) -> None:
    """Play a tournament file in parallel, store every game, and print the leaderboards.

    The file (TOML) names the tournament, its seed, format (round-robin,
    gauntlet, sampled or ladder) and deals per table, the games with their seats
    per table and options, the limits and the bots (docs/tournaments.md has
    every key). It is checked before anything runs.

    Every game goes to ROOT/NAME/results.sqlite as it finishes. Running the same
    file again resumes: games already stored are not played again. After a
    change to the file or a bot, only the games it changed are played again;
    the old ones stay in the store as history (--fresh discards them). The
    same holds for a changed game: its rules, arena's own game loop or its
    sandbox (their versions are in `arena games`); --keep-stale keeps such games. At the end (or after
    Ctrl-C or SIGTERM, which stop cleanly and keep finished games, exit status
    130 or 143) the leaderboards are written to ROOT/NAME/leaderboard.md, .csv
    and .json and printed. Workers log to ROOT/NAME/arena.log.

    Every entry is started once before the first game. One that cannot start
    refuses the whole run (exit 2, nothing stored: right for CI); with
    --disqualify-broken, or on_broken_entry = "disqualify" in the file's
    [tournament], it is disqualified instead, the others play, and the
    leaderboards and the report list it as not entered, with the reason.
    Example:

    \b
      arena run tournaments/demo.toml -j 2
      arena run tournaments/demo.toml --scheduler tcp://scheduler-host:8786
    """
    if sandbox == "process":  # its trial interpreter boots while the rest is imported and the file read
        from arena.sandbox.probe import start_probe  # the jail's modules: not for --sandbox none

        start_probe()
    from arena.tournament.config import load_tournament
    from arena.tournament.runner import run_tournament

    # the leaderboard's modules (numpy, tabulate: about 0.1 s) are imported while the games are played
    import_during_play(*LEADERBOARD_MODULES)

    plugins = get_plugins()
    tournament = load_tournament(tournament_file, plugins)
    beside = start_beside(ctx, os.path.join(root, tournament.name), lambda line: click.echo(line, err=True))
    if disqualify_broken:
        tournament = replace(tournament, on_broken_entry="disqualify")
    with bot_prints_to_stderr():
        outcome = run_tournament(tournament, plugins, root=root, jobs=jobs, scheduler=scheduler, sandbox=sandbox,
                                 fresh=fresh, announce=lambda line: click.echo(line, err=True),
                                 keep_stale=keep_stale)
    from arena.runs.loop import private_files
    from arena.runs.store import open_store
    from arena.standings.leaderboard import build_leaderboard, render, write_files

    store = open_store(outcome.folder)
    try:
        board = build_leaderboard(store, seats=outcome.seats)  # the run's seats: none read back
    finally:
        store.close()
    with private_files():
        write_files(outcome.folder, board)
    click.echo(render(board, "table"))
    click.echo(f"leaderboards: {outcome.folder}/leaderboard.md (.csv, .json); one game: arena show {outcome.folder} "
               f"GAME_ID; a report: arena report {outcome.folder}", err=True)
    if not outcome.interrupted:
        beside.hold(lambda line: click.echo(line, err=True))
    for failure in outcome.failed:
        click.echo(f"failed: {failure}", err=True)
    if outcome.interrupted:
        click.echo(f"stopped: {outcome.stored} of {outcome.total} games stored in {outcome.folder}; "
                   f"run the same command again to resume", err=True)
        ctx.exit(exit_status_of_signal(outcome.signal))
    if outcome.failed:
        click.echo(f"{len(outcome.failed)} games failed and were not stored (see {outcome.folder}/arena.log); "
                   f"run the same command again to retry them", err=True)
        ctx.exit(1)


@click.command()
@click.argument("folder", metavar="FOLDER")
@click.option("--format", "-f", "form", type=click.Choice(FORMATS), default="table", show_default=True,
              help="Output format.")
@click.option("--game", "-g", metavar="G", help="Only the leaderboard of game G, or 'overall'.")
@click.option("--diff", "old", metavar="OLD", help="Print what changed since OLD, an earlier results folder or its "
                                                   "leaderboard.json (format table, markdown or json).")
def leaderboard(folder: str, form: str, game: str | None, old: str | None) -> None:
    """Print the leaderboards of a tournament's stored results.

    FOLDER is one tournament's results folder, the one holding results.sqlite
    (e.g. results/demo). One leaderboard per game: rank, the range of ranks
    the bot holds in 95% of bootstrap resamples of the deals, bot, rating
    (TrueSkill, or OpenSkill when the file says so) with its 95% interval, how
    often it stays above the next bot ('?' when undecided), games, first
    places, mean placing, mean money, faults; a head-to-head table (wins,
    draws, losses and score with an interval). The overall one orders bots by
    the mean of their per-game ranks. docs/standings.md explains every column.
    It works while a run is still playing, on the games stored so far.
    """
    from arena.runs.store import open_store
    from arena.standings.leaderboard import build_leaderboard, render, select

    store = open_store(folder)
    try:
        board = select(build_leaderboard(store), game)
    finally:
        store.close()
    if old is not None:
        from arena.compare.diff import DIFF_FORMATS, diff_boards, load_board, render_diff

        if form not in DIFF_FORMATS:
            raise click.BadParameter(f"--diff prints {', '.join(DIFF_FORMATS)}, not {form}", param_hint="--format")
        click.echo(render_diff(diff_boards(load_board(old), board), form), nl=False)
        return
    click.echo(render(board, form), nl=False)


@hookimpl
def register_commands(cli: click.Group) -> None:
    for command in (run, leaderboard):
        cli.add_command(command)
