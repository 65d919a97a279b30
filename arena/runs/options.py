"""The command-line options every command that plays games shares, declared once.

``@run_options`` adds ``-j/--jobs``, ``--scheduler``, ``--sandbox``,
``--results`` and ``--fresh``; ``@limit_options`` adds ``--start-ms``,
``--move-ms``, ``--bank-ms`` and ``--memory-mb`` (for commands without a
tournament file); ``@sandbox_option`` alone serves ``arena play`` and friends.
"""

from __future__ import annotations

import signal
from typing import Any, Callable

import click

from arena.entrants import parse_value
from arena.match import Limits
from arena.seating import SANDBOX_MODES

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


def _stack(*decorators: Decorator) -> Decorator:
    def apply(command: Callable[..., Any]) -> Callable[..., Any]:
        for decorator in reversed(decorators):
            command = decorator(command)
        return command
    return apply


sandbox_option = click.option(
    "--sandbox", type=click.Choice(SANDBOX_MODES), default="process", show_default=True,
    help="process: every bot in its own jailed process; none: Python bots in-process "
         "(trusted bots only; cmd: bots are always processes).")

run_options = _stack(
    click.option("-j", "--jobs", type=click.IntRange(0), default=None, metavar="N",
                 help="Worker processes playing games at once (0: in this process; with --scheduler: blocks "
                      "of games at once)  [default: the machine's cores; with --scheduler, the cluster's threads]"),
    click.option("--scheduler", metavar="ADDRESS",
                 help="Play the games on a Dask cluster: its scheduler's address (tcp://HOST:8786), or local:N "
                      "to start N worker processes here. Needs the dask extra; see docs/cluster.md."),
    sandbox_option,
    click.option("--results", "root", default="results", show_default=True, metavar="ROOT",
                 help="Folder holding the results folders; this run's goes to ROOT/NAME."),
    click.option("--fresh", is_flag=True, help="Discard the results stored under this name and start over."),
)

#: each limit's allowed range, inclusive, on the command line and in a tournament file (``Limits`` gives the defaults)
LIMIT_RANGES = {
    "start_ms": (1, 600_000),
    "move_ms": (1, 600_000),
    "bank_ms": (0, 3_600_000),
    "memory_mb": (16, 1_048_576),
    "max_faults": (1, 1_000_000),
    "threads": (1, 1024),
}

limit_options = _stack(
    click.option("--start-ms", type=click.IntRange(*LIMIT_RANGES["start_ms"]), default=Limits.start_ms,
                 show_default=True, help="Time for a bot to answer start."),
    click.option("--move-ms", type=click.IntRange(*LIMIT_RANGES["move_ms"]), default=Limits.move_ms,
                 show_default=True, help="Time per decision."),
    click.option("--bank-ms", type=click.IntRange(*LIMIT_RANGES["bank_ms"]), default=Limits.bank_ms,
                 show_default=True, help="Extra time per game, spent when a decision runs over --move-ms."),
    click.option("--memory-mb", type=click.IntRange(*LIMIT_RANGES["memory_mb"]), default=Limits.memory_mb,
                 show_default=True, help="Memory per bot: all its processes and its private /tmp together."),
)


def parse_option_pairs(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``--option K=V`` strings into a dict; V is JSON when it parses, else a string."""
    options = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key:
            raise click.BadParameter(f"expected K=V, got {pair!r}", param_hint="--option")
        if key in options:
            raise click.BadParameter(f"{key} given twice; give each option once", param_hint="--option")
        options[key] = parse_value(raw)
    return options


def exit_status_of_signal(signum: int | None) -> int:
    """The exit status of a run stopped by ``signum``: 128 + its number, as shells report it (130, 143)."""
    return 128 + (signum or signal.SIGINT)
