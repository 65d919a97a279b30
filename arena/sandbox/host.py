"""The small process a Python bot runs in: it speaks the JSON-lines protocol for the bot.

Started by the process sandbox as ``python -m arena.sandbox.host SPEC`` where
SPEC is a JSON object: ``factory`` (``"MODULE:QUALNAME"`` of the bot class or
factory) or ``bot`` (a registered bot's name, when its factory cannot be
imported by name: then the plugins are loaded to find it), ``options`` (keyword
arguments for the factory) and ``path`` (the runner's ``sys.path``).

It imports only what the bot needs, never the runner's other bots. The
protocol runs on private duplicates of stdin and stdout; the bot's own
``print`` (file descriptor 1) goes to stderr and ``input()`` reads nothing, so
nothing the bot does can corrupt the protocol. A bot that raises ends the
host (status 1) after writing the traceback and one summary line to stderr;
the runner records a crash.

With ``"template": true`` in SPEC the host is a *template*: it imports the
bot once, then waits on a control socket (its file descriptor in ``ARENA_CONTROL_FD``) for the runner's
requests, each carrying the pipes of one game. For each it forks a fresh bot
with one ``clone`` (:func:`arena.sandbox.limits.fork_game`; with cgroups, born
in the cgroup slot of that game, whose descriptors come with the request) as
process 1 of namespaces of its own (user, mount, PID; network and IPC too
unless the request says ``"shared_namespaces": true`` and the template's
filter refuses every socket and IPC object, so that the games share its
empty network and IPC namespaces), with a
new /proc and a new scratch over /tmp, /dev/shm and its home, no capability,
no inherited shared memory or file descriptor (:func:`play_one_game`); the
bot plays that one game and exits. The bot is born the child of the
template's parent, a reaper that never runs the bot's code
(:mod:`arena.sandbox.reaper`): the reaper, not the template, learns how it
ended and tells the runner.
A fresh game costs a fork, not an interpreter start.
"""

from __future__ import annotations

import gc
import importlib
import os
import socket
import sys
import traceback
from typing import Any, Callable, NoReturn

import orjson

from arena.sandbox import jail, kernel, limits
from arena.sandbox.syscalls import libc

DUMP_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE


def load_factory(spec: dict[str, Any]) -> Callable[..., Any]:
    """The bot factory named by ``spec`` (see the module docstring)."""
    if spec.get("factory"):
        module_name, _, qualname = spec["factory"].partition(":")
        target: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            try:
                target = getattr(target, part)
            except AttributeError:
                raise SystemExit(f"arena-host: module {module_name!r} has no {qualname!r}") from None
        factory: Callable[..., Any] = target
        return factory
    from arena.plugins import get_plugins

    return get_plugins().bot(spec["bot"]).factory


def take_protocol_channel() -> tuple[Any, int]:
    """Move the protocol to private file descriptors; point fd 1 at stderr and fd 0 at nothing."""
    reader = os.fdopen(os.dup(0), "rb", buffering=1 << 16)
    writer = os.dup(1)
    os.dup2(2, 1)
    nothing = os.open(os.devnull, os.O_RDONLY)
    os.dup2(nothing, 0)
    os.close(nothing)
    return reader, writer


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def encode(action: Any) -> bytes:
    """The action as one JSON line; an action JSON cannot hold becomes a line the runner calls malformed."""
    try:
        return orjson.dumps(action, option=DUMP_OPTIONS)
    except TypeError as error:
        return f"# the bot returned {action!r:.200}, which is not JSON ({error})\n".encode()


def fail(where: str) -> None:
    """End the host after an exception in the bot: traceback and a summary line on stderr."""
    error = sys.exc_info()[1]
    traceback.print_exc()
    print(f"arena-host: {where} raised {error!r}", file=sys.stderr, flush=True)
    os._exit(1)


def serve(factory: Callable[..., Any], options: dict[str, Any], one_game: bool = False) -> None:
    """Answer the runner's messages until it closes the channel (or, ``one_game``, until ``end``)."""
    reader, writer = take_protocol_channel()
    bot: Any = None  # the bot's own object: anything with decide(), start() and end() optional
    for line in reader:
        message = orjson.loads(line)
        kind = message.get("type")
        if kind == "decide":
            try:
                action = bot.decide(message)
            except Exception:
                fail("decide")
            write_all(writer, encode(action))
        elif kind == "start":
            try:
                bot = factory(**options)
                start = getattr(bot, "start", None)
                if start is not None:
                    start(message)
            except Exception:
                fail("start")
            write_all(writer, b'{"type":"ready"}\n')
        elif kind == "end":
            end = getattr(bot, "end", None)
            try:
                if end is not None:
                    end(message)
            except Exception:
                traceback.print_exc()
            bot = None
            if one_game:
                sys.stderr.flush()
                os._exit(0)


def play_one_game(fds: list[int], factory: Callable[..., Any], options: dict[str, Any], request: dict[str, Any],
                  ids: tuple[int, int], seal: Callable[[], None] | None = None) -> NoReturn:
    """In a game's bot, just forked by the template into namespaces of its own: its jail, then the game.

    ``ids`` are the template's user and group ids (mapped to themselves in the
    new user namespace); ``fds`` the game's stdin, stdout and stderr.
    Each step is checked from outside before the game (:mod:`arena.sandbox.audit`).
    """
    stderr = fds[2] if len(fds) == 3 else 2  # the game's stderr (the runner reads it) until it is fd 2
    try:
        limits.die_with_parent()
        # a session and process group of its own: stopping it between its turns (no cgroup freezer) never stops
        # nor wakes its template, and it cannot signal its template's group (kill(0, ...)); the runner checks
        os.setsid()
        limits.own_namespaces(ids, private=False)
        kernel.not_dumpable()  # its template (the same bot, between games) cannot reach it through /proc/PID/mem
        jail.mount_proc()
        jail.fresh_scratch(request["memory_mb"], ids, keep=request.get("keep", []))
        os.chdir(jail.HOME)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        stderr = 2
        os.closerange(3, 1 << 16)
        jail.unmap_shared_memory()
        jail.drop_capabilities()
        if seal is not None:
            seal()  # last: a fresh session keyring, and the bots' system-call filter (limits.game_seal)
    except Exception as error:  # the runner sees a crash with this line (on the game's stderr, which it reads)
        os.write(stderr, f"arena-host: cannot make the game's jail: {error}\n".encode())
        os._exit(1)
    write_all(1, b'{"type":"jailed"}\n')  # the runner checks the jail from outside before it sends start
    serve(factory, options, one_game=True)
    os._exit(0)


def template(factory: Callable[..., Any], options: dict[str, Any]) -> None:
    """Fork a fresh bot for each game the runner asks for on the control socket (``ARENA_CONTROL_FD``).

    A request carries the game's pipes and, with cgroups, its slot's
    ``cgroup.procs`` and folder; the answer is ``{"game": N, "forked": PID}``
    with the bot's pidfd (or ``"error"``). The bot is not this process's child but its reaper's
    (:mod:`arena.sandbox.reaper`), which tells the runner how it ended: the template hears nothing of it.
    """
    gc.collect()
    gc.freeze()  # the garbage collector leaves what the template holds alone: fewer copy-on-write pages per game
    trim = getattr(libc, "malloc_trim", None)
    if trim is not None:
        trim(0)  # free heap pages go back: fewer page table entries copied by each game's clone
    control = socket.socket(fileno=int(os.environ.pop("ARENA_CONTROL_FD")))
    os.environ.pop("LD_BIND_NOW", None)  # the runner's, for this process (see TemplateLauncher): not the bot's
    ids = os.getuid(), os.getgid()
    seal = limits.game_seal()
    # its games share its network and IPC namespaces (none made per game) only where the runner asks it and its
    # filter refuses every socket and IPC object to it and its games: then nothing can be reached in them
    no_sockets = limits.sockets_refused()
    jail.note_shared_memory()  # once: each game's bot drops them without asking the kernel
    control.send(b'{"ready": true}')
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(control, 4096, 5)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)
        request = orjson.loads(message)
        pipes, cgroup = fds[:3], fds[3:] + [None, None]
        try:
            if len(pipes) != 3:
                raise OSError("a request without the game's three pipes")
            shared = request.get("shared_namespaces") is True and no_sockets
            limits.prepare_games(ids, request["memory_mb"])  # here once, not in each game's bot
            pid, pidfd = limits.fork_game(cgroup[0], cgroup[1], shared=shared)
        except OSError as error:
            control.send(orjson.dumps({"game": request["game"], "error": f"cannot fork the game: {error}"}))
            pid = pidfd = -1
        if pid == 0:
            play_one_game(pipes, factory, options, request, ids, seal)
        for fd in fds:
            os.close(fd)
        if pid > 0:
            # with its pidfd: the runner signals the bot through it and reads its own id of it there; the
            # template keeps none (its reaper, not the template, learns how the game ends)
            socket.send_fds(control, [orjson.dumps({"game": request["game"], "forked": pid})], [pidfd])
            os.close(pidfd)


def main() -> None:
    spec = orjson.loads(sys.argv[1])
    sys.path[:] = spec["path"]
    try:
        factory = load_factory(spec)
    except Exception:
        fail("loading the bot")
    if spec.get("template"):
        template(factory, spec.get("options") or {})
    serve(factory, spec.get("options") or {})


if __name__ == "__main__":
    main()
