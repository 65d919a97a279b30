"""Looking at stored games, a built-in plugin: ``arena show`` (one game) and ``arena export`` (filtered records).

``arena show FOLDER GAME_ID`` prints the account of a stored game, the same
narration ``arena play`` prints (the record is replayed to get it back), or
with ``--json`` its record. ``arena export`` prints stored records as JSON
lines, all of them or those of some bots, games or ids.
"""

from __future__ import annotations

import itertools
import json
import sys

import click

from arena import hookimpl
from arena.account import record_account
from arena.errors import RecordError
from arena.plugins import get_plugins
from arena.safetext import escape


@click.command()
@click.argument("folder", metavar="FOLDER")
@click.argument("game_id", metavar="GAME_ID")
@click.option("--json", "as_json", is_flag=True, help="Print the game's record (JSON) instead of its account.")
def show(folder: str, game_id: str, as_json: bool) -> None:
    """Print the account of one stored game: the same narration `arena play` prints.

    FOLDER is one tournament's (or comparison's) results folder, the one
    holding results.sqlite (e.g. results/demo). GAME_ID is the game's id, as
    `arena export` and the report list them (e.g. demo/modern-art/random+appraiser+random/d1/r1),
    or its number in the schedule (0, 1, ...). With --json, the record, which
    `arena replay` checks and `arena play --setup` can deal again. Example:

    \b
      arena show results/demo demo/silk-road/random+trader/d1/r1
    """
    _check_utf8("GAME_ID", (game_id,))
    from arena.runs.store import open_store  # the store's modules (orjson, the codecs): by the commands reading one

    store = open_store(folder)
    try:
        text = store.record(game_id)
        if text is None and game_id.isdigit():  # its number in the schedule
            text = next(itertools.islice(store.records(), int(game_id), None), None)
        if text is None:
            first = next(store.records(), None)
            example = f" (ids look like {json.loads(first)['id']})" if first else " (it holds no game yet)"
            raise RecordError(f"no game {game_id!r} in {folder}{example}; `arena export {folder}` lists them all")
    finally:
        store.close()
    if as_json:
        click.echo(text)
        return
    for line in record_account(json.loads(text), get_plugins()):
        click.echo(line)


@click.command()
@click.argument("folder", metavar="FOLDER")
@click.option("--format", "-f", "form", type=click.Choice(["jsonl"]), default="jsonl", show_default=True,
              help="Output format: JSON lines, one game record per line.")
@click.option("--bot", "-b", "bots", multiple=True, metavar="BOT",
              help="Only games where BOT had a seat (repeat: any of them).")
@click.option("--game", "-g", "games", multiple=True, metavar="GAME", help="Only games of GAME (repeat: any of them).")
@click.option("--id", "ids", multiple=True, metavar="GAME_ID", help="Only the game with this id (repeat).")
@click.option("--history", is_flag=True,
              help="Also the games kept as history (of older bot versions or settings), after the current ones.")
def export(folder: str, form: str, bots: tuple[str, ...], games: tuple[str, ...], ids: tuple[str, ...],
           history: bool) -> None:
    """Print stored game records of a tournament, one per line, in schedule order.

    FOLDER is one tournament's results folder (e.g. results/demo). Without
    filters, every current record (the games in the standings); --bot, --game
    and --id keep only the games matching all the filters given (each filter
    repeated: any of its values); --history adds the games kept from older bot
    versions or settings. The records replay: `arena export results/demo |
    arena replay -` checks them all.

    \b
      arena export results/demo --bot trader --game silk-road > trader.jsonl
    """
    for option, values in (("--bot", bots), ("--game", games), ("--id", ids)):
        _check_utf8(option, values)
    from arena.runs.store import open_store

    store = open_store(folder)
    try:
        out = sys.stdout
        written = 0
        for record in store.records(games, bots, ids, history=history):
            out.write(record)
            out.write("\n")
            written += 1
        if not written and (bots or games or ids):  # a mistyped name would otherwise print nothing at all
            stored_bots = ", ".join(sorted(totals.bot for totals in store.bot_totals())) or "none"
            stored_games = ", ".join(sorted(row[0] for row in store.query("SELECT DISTINCT game FROM games")))
            click.echo(escape(f"arena: no stored game matches the filters (bots: {stored_bots}; games: "
                              f"{stored_games or 'none'})"), err=True)
    finally:
        store.close()


def _check_utf8(what: str, values: tuple[str, ...]) -> None:
    """Refuse an argument that is not text (a stray byte from the shell): no stored name or id is such."""
    for value in values:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise RecordError(f"{what} {value!r}: not UTF-8 text; stored "
                              "names and ids are") from None


@hookimpl
def register_commands(cli: click.Group) -> None:
    cli.add_command(show)
    cli.add_command(export)  # replaces the unfiltered export of arena.tournament.commands, loaded before
