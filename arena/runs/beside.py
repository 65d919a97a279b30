"""``--serve`` for the commands that play (``arena run``, ``arena compare``): the live site beside the run.

The site is ``arena serve FOLDER`` started as a process of its own, not a
thread of the run: the run's main process stores every game, and a thread
building pages there would hold the interpreter's lock while the games wait
to be stored. A separate process shares nothing with the run but the store,
which it only reads. It starts in a session of its own (Ctrl-C in the
terminal stops the run, which then stops the site; the site does not die
half-way through a page) and stops by itself if the run is killed
(``--parent``). Its address is printed once, on stderr.

When the run ends (not stopped), the site stays up, showing the final
standings, until Ctrl-C; the command then exits with the run's own status.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import subprocess
import sys
from typing import Any, Callable, TypeVar

import click

from arena.errors import ServeError

#: seconds the site's process has to start listening
START_SECONDS = 60.0
#: where :func:`serve_options` keeps its values in the click context
SERVE_KEY = "arena.serve"

Command = TypeVar("Command", bound=Callable[..., Any])


def serve_options(function: Command) -> Command:
    """``--serve``, ``--host`` and ``--port``, for the commands that play games.

    The values go to the click context (not the command's arguments): the
    command calls :func:`start_beside` once it knows its results folder.
    """
    def keep(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        ctx.meta.setdefault(SERVE_KEY, {})[param.name] = value
        return value

    function = click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
                            expose_value=False, callback=keep,
                            help="With --serve: the port to listen on (0 picks a free one).")(function)
    function = click.option("--host", default="127.0.0.1", show_default=True, expose_value=False, callback=keep,
                            help="With --serve: the address to listen on (0.0.0.0: every interface).")(function)
    return click.option("--serve", is_flag=True, expose_value=False, callback=keep,
                        help="Serve the results folder as a live site while the games are played (`arena serve` "
                             "beside the run; its address is printed once); it stays up after the run until "
                             "Ctrl-C.")(function)


class Beside:
    """The live site's process beside a run (or nothing, without ``--serve``)."""

    def __init__(self, process: subprocess.Popen[str] | None, url: str | None) -> None:
        self.process = process
        self.url = url

    def hold(self, announce: Callable[[str], None]) -> None:
        """Keep the site up after the run until Ctrl-C (or the site stops by itself)."""
        if self.process is None:
            return
        announce(f"arena: the run is over; the live site stays up at {self.url} until Ctrl-C")
        with contextlib.suppress(KeyboardInterrupt):
            self.process.wait()

    def stop(self) -> None:
        """Stop the site's process (SIGTERM, then SIGKILL after 5 s)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_beside(ctx: click.Context, folder: str, announce: Callable[[str], None]) -> Beside:
    """With ``--serve``, start ``arena serve folder`` beside the run and print its address; it stops with ``ctx``."""
    options = ctx.meta.get(SERVE_KEY, {})
    if not options.get("serve"):
        return Beside(None, None)
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", folder, "--host", options["host"], "--port", str(options["port"]),
         "--parent", str(os.getpid())],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, start_new_session=True)
    beside = Beside(process, _first_line(process))
    ctx.call_on_close(beside.stop)
    announce(f"arena: live site of {folder} at {beside.url}")
    return beside


def _first_line(process: subprocess.Popen[str]) -> str:
    """The address the site prints once it listens; :class:`ServeError` if it stops or stays silent."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if selector.select(START_SECONDS):
            line = process.stdout.readline().strip()
            if line.startswith("http"):
                return line
    process.kill()
    process.wait()
    raise ServeError("--serve: the live site did not start (its error is above); the run was not started")
