"""The ``arena`` command line: games, bots, plugins, play, replay, and plugin commands.

Every command's docstring is its ``--help``. Library errors
(:class:`arena.errors.ArenaError`) become a one-line message and exit status 2;
no traceback reaches the user.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import functools
import gc
import json
import os
import random
import signal
import sys
import threading
from typing import Any, Callable, TextIO, TypeVar

import click

from arena import __version__
from arena.account import account
from arena.entrants import check_entrants_play, parse_spec
from arena.errors import ArenaError, OutputPathError, SetupError
from arena.games.base import GameState
from arena.match import Limits, Seat, derive_seed, play_game
from arena.runs.options import LIMIT_RANGES, exit_status_of_signal, limit_options, parse_option_pairs
from arena.runs.process import RETRY_SIGNAL, disarm_retry, interruptible, retry_soon, watch_forks
from arena.plugins import get_plugins
from arena.preflight import check_entrants
from arena.safetext import escape
from arena.seating import SANDBOX_MODES, bot_prints_to_stderr, close_seats, open_seat
from arena.trace import TracedSeat
from arena.versions import entrant_version, game_key, game_versions

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _tabulate(rows: list[list[Any]], headers: list[str]) -> str:
    """``tabulate``'s plain table; the library (and wcwidth under it, about 30 ms) is imported only by a command
    that draws one, not with the command line."""
    from tabulate import tabulate

    return tabulate(rows, headers=headers)

# At exit, Python's last garbage collections walk every object of every module imported (numpy's, sqlite's,
# the games'): 0.1-0.3 s at the end of every command, more than all of a rerun's own work on a stored
# tournament. Frozen by an exit handler, they are left to the process's end, as its memory is anyway; the
# other handlers still run (logging's flush among them), and reference counting still closes what is dropped.
atexit.register(gc.freeze)

# numpy's OpenBLAS starts a thread per core when it is loaded (the leaderboards, a ladder's pairing) and those
# threads spin: about 50 ms of CPU in every command that ranks, before its first game on two cores. arena's own
# products are small (one bootstrap's weights by its blocks); a user's setting is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


#: exit status after Ctrl-C (128 + SIGINT), after SIGTERM (128 + SIGTERM) and after the reader of our output went
#: away (128 + SIGPIPE)
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = exit_status_of_signal(signal.SIGTERM)
EXIT_BROKEN_PIPE = 141


class Terminated(KeyboardInterrupt):
    """SIGTERM seen outside a run's play (:func:`_interrupt`): a ``KeyboardInterrupt``, so that whatever ends
    cleanly on Ctrl-C (a cluster, the bots being checked, the live site, the results folder's lock) ends on
    SIGTERM too; the command line reports it in words and a status of its own."""


class ArenaGroup(click.Group):
    """A click group that reports :class:`ArenaError` as a one-line error.

    The message is escaped (:func:`arena.safetext.escape`): a path or a name
    holding a newline or a terminal escape stays one harmless line. Ctrl-C in
    a command that does not handle it itself exits 130 (click's own "Aborted!"
    exits 1, the status of a failed check), SIGTERM 143 (a supervisor's stop:
    systemd, Kubernetes, CI, ``timeout``); output piped into a reader that
    stops early (``arena export ... | head``) exits 141 without a word, as a
    program killed by SIGPIPE does, not 1 (a replay mismatch).
    """

    def invoke(self, ctx: click.Context) -> Any:
        _interrupt_where_it_is_seen()
        try:
            try:
                return super().invoke(ctx)
            finally:
                _raise_pending()
        except Terminated:
            click.echo("arena: stopped by SIGTERM", err=True)  # no terminal echoed a ^C: no new line first
            raise click.exceptions.Exit(EXIT_TERMINATED) from None
        except ArenaError as error:
            raise _click_error(error.exit_code)(escape(str(error))) from None
        except click.ClickException as error:  # click's own (a bad option value, a missing file): the same care
            error.__dict__["message"] = escape(error.message)  # click 8.5 declares it Final; it is a plain attribute
            raise
        except KeyboardInterrupt:
            click.echo("\narena: stopped by Ctrl-C", err=True)
            raise click.exceptions.Exit(EXIT_INTERRUPTED) from None
        except OSError as error:
            if error.errno != errno.EPIPE:
                raise
            # nothing more can be written to stdout; the interpreter's last flush goes to /dev/null (as Python's
            # documentation of SIGPIPE advises), so it stays quiet too
            with contextlib.suppress(OSError, ValueError):  # ValueError: a stdout with no descriptor (a test's)
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise click.exceptions.Exit(EXIT_BROKEN_PIPE) from None
        finally:
            _default_sigterm_from_now()


def _interrupt(signum: int, frame: Any) -> None:
    """Ctrl-C as KeyboardInterrupt and SIGTERM as :class:`Terminated`, but never where Python would print the
    exception and drop it.

    Raised in a fork handler (logging's ``_releaseLock`` after every fork: the
    run's workers, its store writer, the bots' checks), a
    ``__del__`` or a finalizer, the exception is printed as "Exception
    ignored" and lost, and the command goes on as if nobody had asked it to
    stop; there the signal is sent again a moment later (:func:`arena.runs.process.retry_soon`), to whichever
    handler holds it by then (a run's pool that began meanwhile stops as it does on the signal itself).
    A process forked from this one that keeps this handler (it set none of its own) dies of SIGTERM, as
    before it was installed: only the command's own process turns it into an exception.
    """
    global _postponed, _terminated
    if signum == RETRY_SIGNAL:
        postponed, _postponed = _postponed, None
        if postponed is not None:
            signal.raise_signal(postponed)  # handled once this handler returns, by the signal's handler then
        return
    if signum == signal.SIGTERM and os.getpid() != _owner:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.raise_signal(signal.SIGTERM)
        return
    if not interruptible(frame):
        _postponed = signum
        retry_soon()
        return
    if signum == signal.SIGTERM:
        _terminated = True
        raise Terminated
    raise KeyboardInterrupt


#: the signal :func:`_interrupt` could not raise where it came, sent again by :data:`RETRY_SIGNAL`
_postponed: int | None = None
#: SIGTERM was raised as :class:`Terminated` during this command (:func:`_raise_pending`)
_terminated = False
#: the process whose handlers :func:`_interrupt_where_it_is_seen` installed
_owner = 0


def _interrupt_where_it_is_seen() -> None:
    """Install :func:`_interrupt` for SIGINT, SIGTERM and the retry signal in the main thread; a run replaces
    the first two while its pool plays (``arena.runs.loop``), and puts them back after.

    A signal the command was started with ignored stays ignored (a shell's
    background job ignores SIGINT; ``nohup`` and supervisors may ignore others).
    """
    global _owner, _terminated
    if threading.current_thread() is not threading.main_thread():
        return
    _terminated = False
    defaults = {signal.SIGINT: signal.default_int_handler, signal.SIGTERM: signal.SIG_DFL}
    wanted = [signum for signum, default in defaults.items() if signal.getsignal(signum) == default]
    if wanted:
        watch_forks()
        _owner = os.getpid()
        signal.signal(RETRY_SIGNAL, _interrupt)
        for signum in wanted:
            signal.signal(signum, _interrupt)


def _raise_pending() -> None:
    """As a command ends, raise the stop it was asked for and may not have seen: one :func:`_interrupt`
    postponed a moment ago (its retry has not come yet), or a SIGTERM raised where it was lost.

    Python drops an exception raised by a signal handler in more places than
    :func:`arena.runs.process.interruptible` can see (an extension module's
    initialisation swallows it: numpy.random's, imported by the leaderboard),
    and a command that caught :class:`Terminated` as a Ctrl-C (the live
    site's) ended by it all the same: SIGTERM asks for a stop and its status,
    whatever the command did with the exception. Ctrl-C caught is Ctrl-C answered.
    """
    global _postponed, _terminated
    postponed, _postponed = _postponed, None
    terminated, _terminated = _terminated, False
    if postponed is not None:
        disarm_retry()
    if terminated or postponed == signal.SIGTERM:
        raise Terminated
    if postponed is not None:
        raise KeyboardInterrupt


def _default_sigterm_from_now() -> None:
    """Give SIGTERM its default action back once the command is done: the interpreter's exit handlers that
    follow (logging's flush, the collector's freeze) would print an exception raised in them and drop it.
    SIGINT keeps :func:`_interrupt` (Python's own handler would do the same there)."""
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is _interrupt:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


@functools.cache
def _click_error(exit_code: int) -> type[click.ClickException]:
    """A ClickException that exits with ``exit_code`` (click 8.5 declares ``exit_code`` a class variable)."""
    return type(f"ArenaExit{exit_code}", (click.ClickException,), {"exit_code": exit_code})


@click.group("arena", cls=ArenaGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "-V", "--version", prog_name="arena")
def cli() -> None:
    """Run tournaments between game-playing bots: Modern Art and Maritime Silk Road.

    Bots are Python classes registered by plugins (entry-point group "arena"),
    or programs in any language speaking the JSON-lines protocol. Wherever a bot
    is named, a BOT spec is one of:

    \b
      NAME                     a registered bot (see `arena bots`)
      NAME:key=value,...       a registered bot with options
      NAME=BOT                 a registered bot under another name, e.g. strong=mcts:iterations=400
      NAME=cmd:COMMAND         an external program, e.g. mine=cmd:node bot.js
      NAME=py:MODULE:CLASS     a Python class not packaged as a plugin

    A relative path in a cmd: command resolves against the current folder (in
    a tournament file: the file's folder). Every bot is started once and must
    answer start before the first game; one that cannot is refused (exit 2).

    Exit status: 0 done; 1 a check failed (replay mismatch, regression found);
    2 bad usage or input; 130 stopped by Ctrl-C; 141 the reader of the output
    stopped early (e.g. `| head`); 143 stopped by SIGTERM.
    """


@cli.command()
def games() -> None:
    """List the games, their player counts, options, plugin and version.

    The version (the plugin's distribution, its version and a hash of the
    game's rules and of arena's own game loop and sandbox) is what game records carry; a
    stored game is reused only while it matches.
    """
    plugins = get_plugins()
    versions = game_versions(sorted(plugins.games), plugins)
    rows = []
    for name, game in sorted(plugins.games.items()):
        options = "; ".join(
            f"{key}={json.dumps(spec.default)}: {spec.help}" for key, spec in game.options.items()
        )
        rows.append([name, game.title, f"{game.min_players}-{game.max_players}", options or "-",
                     plugins.distribution_of(plugins.game_plugin(name)), versions[game_key(name)]])
    click.echo(_tabulate(rows, headers=["game", "title", "players", "options (default: meaning)", "plugin",
                                       "version"]))


@cli.command()
@click.option("--game", "-g", "game_name", metavar="GAME", help="Only bots that play GAME.")
def bots(game_name: str | None) -> None:
    """List registered bots: name, games it plays, the plugin it comes from, its version.

    The version (distribution, its version and a hash of the bot's package,
    data files included) is what game records carry; a stored game is reused only while it matches.
    """
    plugins = get_plugins()
    if game_name is not None:
        plugins.game(game_name)
    rows = []
    for name, info in sorted(plugins.bots.items()):
        if game_name and game_name not in info.games:
            continue
        options = ", ".join(f"{k}={json.dumps(v)}" for k, v in info.options.items()) or "-"
        version = entrant_version(parse_spec(name), plugins)
        rows.append([name, ", ".join(info.games), plugins.distribution_of(info.plugin), version, options,
                     info.description])
    click.echo(_tabulate(rows, headers=["bot", "games", "plugin", "version", "options", "description"]))


@cli.command()
def plugins() -> None:
    """List loaded plugins: name, distribution, version, hooks implemented."""
    loaded = get_plugins()
    rows = [[info.name, info.distribution, info.version, ", ".join(info.hooks)] for info in loaded.infos.values()]
    click.echo(_tabulate(rows, headers=["plugin", "distribution", "version", "hooks"]))


#: the largest setup file read (a setup is a few KB)
MAX_SETUP_CHARS = 4 * 2**20


def _read_setup(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read(MAX_SETUP_CHARS + 1)
        if len(text) > MAX_SETUP_CHARS:
            raise SetupError(f"setup file {path}: larger than {MAX_SETUP_CHARS // 2**20} MB; a setup is a few KB "
                             "of JSON (is it the right file?)")
        setup = json.loads(text)
    except OSError as error:
        raise SetupError(f"cannot read setup file {path}: {error.strerror}") from None
    except ValueError as error:
        raise SetupError(f"setup file {path} is not JSON: {error}") from None
    if not isinstance(setup, dict):
        raise SetupError(f"setup file {path}: expected a JSON object")
    if isinstance(setup.get("setup"), dict) and "moves" in setup:  # a game record (arena show --json): its deal
        setup = dict(setup["setup"])
    players = setup.get("players")
    if not isinstance(players, int) or isinstance(players, bool):
        raise SetupError(f"setup file {path}: players: expected the number of players, got {players!r}")
    return setup


def _check_output_folder(path: str | None, option: str) -> None:
    """Refuse, before the game is played, an output file whose folder does not exist."""
    folder = os.path.dirname(path) if path else ""
    if folder and not os.path.isdir(folder):
        raise OutputPathError(f"{option} {path}: cannot write it: no such folder {folder}; create it first")


Command = TypeVar("Command", bound=Callable[..., Any])


def sandbox_option(function: Command) -> Command:
    return click.option(
        "--sandbox", type=click.Choice(SANDBOX_MODES), default="process", show_default=True,
        help="process: every bot in its own limited process; none: Python bots in-process (trusted bots only).",
    )(function)


@cli.command()
@click.argument("game_name", metavar="GAME")
@click.option("-b", "--bot", "bot_specs", multiple=True, required=True, metavar="BOT",
              help="A bot per seat, in seat order (repeat).")
@click.option("--seed", type=int,
              help="Seed choosing the setup and the bots' seeds [default: drawn at random and printed on stderr].")
@click.option("--setup", "setup_path", type=click.Path(dir_okay=False),
              help="A setup file (JSON) fixing the deal, or a game record (`arena show --json`): its deal again.")
@click.option("--option", "-o", "option_pairs", multiple=True, metavar="K=V",
              help="A game option (repeat); V is read as JSON when it parses.")
@click.option("--record", "record_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the game record (JSON) to this file.")
@click.option("--json", "as_json", is_flag=True, help="Print the game record instead of the account.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, writable=True),
              help="Write the game's replay page (one HTML file, opens from disk) to this file.")
@sandbox_option
@limit_options
@click.option("--max-faults", type=click.IntRange(*LIMIT_RANGES["max_faults"]), default=3, show_default=True,
              help="Faults in one game after which a seat plays default actions without being asked.")
@click.option("--trace", is_flag=True,
              help="Print every message to and from each seat on stderr, as JSON lines (seat, direction, time "
                   "taken), with the bots' stderr lines where they came.")
def play(game_name: str, bot_specs: tuple[str, ...], seed: int | None, setup_path: str | None,
         option_pairs: tuple[str, ...], record_path: str | None, as_json: bool, html_path: str | None, sandbox: str,
         move_ms: int, start_ms: int, bank_ms: int, memory_mb: int, max_faults: int, trace: bool) -> None:
    """Play one game of GAME between the given bots and print what happened.

    Prints a readable account (every auction or delivery, each scoring, faults,
    final money and ranks), or with --json the game record, which `arena replay`
    checks. Without --seed a seed is drawn and printed on stderr, so that an
    interesting game can be played again. --trace shows the whole exchange
    with every bot (debugging a bot: its print and stderr output is in it).
    Example:

    \b
      arena play modern-art -b random -b appraiser -b random -b appraiser --seed 7
      arena play silk-road -b my-bot -b random --seed 3 --trace 2> trace.jsonl
    """
    _check_output_folder(record_path, "--record")
    _check_output_folder(html_path, "--html")
    from arena.sandbox.own_files import with_neighbours  # the jail's modules: imported by the commands using them
    from arena.tournament.config import GameEntry

    plugins = get_plugins()
    game = plugins.game(game_name)
    entrants = with_neighbours([parse_spec(spec, plugins) for spec in bot_specs])  # none shown another's files
    check_entrants_play(game, entrants, plugins)
    options = game.check_options(len(entrants), parse_option_pairs(option_pairs))
    setup = None
    if setup_path:
        setup = _read_setup(setup_path)
        if setup.get("players") != len(entrants):
            raise SetupError(f"setup file {setup_path} is for {setup.get('players')} players, "
                             f"but {len(entrants)} bots were given")
        game.check_setup(setup, options)
    limits = Limits(start_ms=start_ms, move_ms=move_ms, bank_ms=bank_ms, memory_mb=memory_mb,
                    max_faults=max_faults)
    with bot_prints_to_stderr():
        check_entrants(entrants, GameEntry(game.name, len(entrants), options), plugins, sandbox, limits)
    if seed is None:  # drawn once everything is checked: a refused game prints no seed to play it again
        seed = random.SystemRandom().randrange(2**31)
        click.echo(f"arena: seed {seed} (add --seed {seed} to play this game again)", err=True)
    if setup is None:
        setup = game.random_setup(len(entrants), options, random.Random(seed))
    names = [entrant.name for entrant in entrants]
    seats: list[Seat] = []
    final: list[GameState] = []
    with bot_prints_to_stderr():
        try:
            seats = [open_seat(entrant, sandbox, limits, plugins) for entrant in entrants]
            if trace:
                seats = [TracedSeat(seat, number, name) for number, (seat, name) in enumerate(zip(seats, names))]
            record = play_game(game, options, setup, seats, names, game_id=f"play/{game.name}/{seed}",
                               seed=seed, bot_seeds=[derive_seed(seed, "bot", seat) for seat in range(len(seats))],
                               limits=limits, keep_state=final)
        finally:
            close_seats(seats)
    if record_path:
        try:
            with open(record_path, "w", encoding="utf-8") as handle:
                json.dump(record, handle)
                handle.write("\n")
        except OSError as error:
            raise OutputPathError(f"--record {record_path}: cannot write it ({error.strerror})") from None
    if html_path:
        from arena.report.replay_page import write_replay_page

        write_replay_page(record, plugins, html_path)
    if as_json:
        click.echo(json.dumps(record))
        return
    for line in account(game, final[0].log, record):
        click.echo(line)


@cli.command()
@click.argument("source", metavar="RECORD", type=click.File("r"))
@click.option("--quiet", "-q", is_flag=True, help="Print only differences.")
def replay(source: TextIO, quiet: bool) -> None:
    """Replay game records through the engine and check they give the same result.

    RECORD is a file holding a record, a JSON list of records or JSON lines
    (`arena export` output), or - for stdin. Exit status 1 on any difference.
    """
    from arena.replay import read_records, replay_checked

    plugins = get_plugins()
    where = "stdin" if source.name == "<stdin>" else source.name
    total = failed = 0
    for record in read_records(source, where):
        total += 1
        if not isinstance(record, dict):
            problems = [f"record {total}: not a JSON object"]
        else:
            problems = replay_checked(record, plugins)
        if problems:
            failed += 1
            for problem in problems:
                click.echo(escape(f"MISMATCH {problem}"))
        elif not quiet:
            click.echo(escape(f"ok {record.get('id', total)}"))
    click.echo(f"{total - failed} of {total} records replay exactly")
    if failed:
        sys.exit(1)


def _register_plugin_commands() -> None:
    plugins = get_plugins()
    hook = plugins.pm.hook.register_commands
    for impl in hook.get_hookimpls():
        try:
            impl.function(cli)
        except Exception as error:  # a broken plugin must not break the CLI
            click.echo(f"arena: warning: plugin {impl.plugin_name} failed in register_commands: {error!r}",
                       err=True)


_register_plugin_commands()
