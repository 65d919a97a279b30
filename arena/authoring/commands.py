"""The author's commands: ``arena new-bot`` and ``arena check-bot``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from arena import hookimpl
from arena.match import Limits
from arena.seating import SANDBOX_MODES
from arena.runs.options import limit_options


@hookimpl
def register_commands(cli: click.Group) -> None:
    cli.add_command(new_bot)
    cli.add_command(check_bot)


@click.command("new-bot")
@click.argument("name")
@click.option("--dir", "folder", type=click.Path(file_okay=False, path_type=Path),
              help="The folder to write the distribution into [default: ./NAME]; new or empty.")
@click.option("--arena", "arena_pin", metavar="REQUIREMENT",
              help="The arena the bot depends on: git+URL@COMMIT, a version, or a full requirement  "
                   "[default: the arena running now, pinned to its commit or version]")
def new_bot(name: str, folder: Path | None, arena_pin: str | None) -> None:
    """Write a ready plugin distribution for a new bot called NAME.

    The folder gets a pyproject.toml declaring the "arena" entry point and
    depending on this arena, pinned (its git commit, or its version), a bot
    module that plays both games legally (one method per decision, to edit), a
    test running arena's conformance check, a README, a .gitignore, and a
    regression gate for GitHub: .github/workflows/arena.yml runs
    .github/arena-gate.sh on every pull request, which compares the bot with
    its version at the base commit (arena compare) and fails on a regression.
    Then:

    \b
      cd NAME && python -m pip install -e '.[test]'   # `arena bots` lists NAME
      python -m pytest                                 # the conformance check
      arena check-bot NAME                             # faults, times, determinism
    """
    from arena.authoring.pin import pin_of, running_arena_pin
    from arena.authoring.scaffold import write_distribution
    from arena.plugins import get_plugins

    folder = folder or Path(name)
    pin = pin_of(arena_pin) if arena_pin else running_arena_pin()
    for path in write_distribution(name, folder, get_plugins(), pin):
        click.echo(f"wrote {path}")
    click.echo(f"arena: {pin.arena}")
    click.echo(f"\nNext: cd {folder} && python -m pip install -e '.[test]' && arena check-bot {name}")


@click.command("check-bot")
@click.argument("spec", metavar="BOT")
@click.option("--game", "-g", "game_name", metavar="GAME", help="Check only GAME [default: every game the bot plays].")
@click.option("--games", "-n", type=click.IntRange(1), default=6, show_default=True,
              help="Games per game kind, cycling through the player counts and seats.")
@click.option("--seed", type=int, default=1, show_default=True, help="Seed choosing the deals and the bots' seeds.")
@click.option("--sandbox", type=click.Choice(SANDBOX_MODES), default="process", show_default=True,
              help="process: the bot in its own limited process, as in tournaments; none: in-process.")
@limit_options
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
def check_bot(ctx: click.Context, spec: str, game_name: str | None, games: int, seed: int, sandbox: str, move_ms: int,
              bank_ms: int, start_ms: int, memory_mb: int, as_json: bool) -> None:
    """Check that BOT plays legally, in time and reproducibly, against `random`.

    BOT is a bot spec (NAME, NAME:key=value,..., NAME=cmd:COMMAND or
    NAME=py:MODULE:CLASS). For each game it plays, BOT plays --games games
    against `random` (every player count and seat in turn), and the first two
    games once more with the same deals and seeds. The report gives per game:
    games played, faults by kind with the first examples, decision-time
    percentiles against the limits, the bot's mean rank, and whether its moves
    were the same the second time (a bot drawing its randomness from its
    seed, not from the clock, is deterministic).

    Exit status: 0 no fault; 1 the bot faulted; 2 bad usage or input.
    """
    from arena.authoring.conformance import check_bot_games
    from arena.entrants import parse_spec
    from arena.plugins import get_plugins

    plugins = get_plugins()
    entrant = parse_spec(spec, plugins)
    limits = Limits(start_ms=start_ms, move_ms=move_ms, bank_ms=bank_ms, memory_mb=memory_mb)
    report = check_bot_games(entrant, plugins, game=game_name, games=games, sandbox=sandbox,
                             limits=limits, seed=seed)
    click.echo(json.dumps(report.as_dict(), indent=2) if as_json else report.format())
    if report.faulted:
        ctx.exit(1)
