"""``arena sandbox``: which protections bot processes get on this machine."""

from __future__ import annotations

import click

from arena import hookimpl


@hookimpl
def register_commands(cli: click.Group) -> None:
    @cli.command()
    def sandbox() -> None:
        """Show which protections bot processes get on this machine (--sandbox process).

        Each protection is tried once, as a bot would run. Where one is off,
        the table says what arena does instead; docs/sandbox.md says exactly
        what each promises.
        """
        from tabulate import tabulate  # imported by the command, not at every command's start (this plugin is)

        from arena.sandbox.probe import protections

        click.echo(tabulate(protections().rows(), headers=["protection", "state", "what it means"]))
