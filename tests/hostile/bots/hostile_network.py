"""A Python bot looking for a network and IPC in its template and each game: ``py:hostile_network:Probe``.

It plays like ``random``; in its template, while the bot is imported, and
again at each game's start it tries to make a socket of every family a bot
could reach anything with, and a System V shared memory segment, semaphore
set and message queue and a POSIX message queue, and reads what its network
namespace holds (``/proc/net``): what a game could use to reach its template
or a later game of the same template, which share those namespaces. One
``hostile: {...}`` line on stderr per game.
"""

from __future__ import annotations

import ctypes
import json
import os
import socket
import sys

from arena_bots.random_bot import RandomBot

#: (name, family, type, protocol) of the sockets tried
TRIED = (
    ("tcp", socket.AF_INET, socket.SOCK_STREAM, 0),
    ("udp", socket.AF_INET, socket.SOCK_DGRAM, 0),
    ("tcp6", socket.AF_INET6, socket.SOCK_STREAM, 0),
    ("unix stream", socket.AF_UNIX, socket.SOCK_STREAM, 0),
    ("unix datagram", socket.AF_UNIX, socket.SOCK_DGRAM, 0),
    ("netlink route", socket.AF_NETLINK, socket.SOCK_RAW, 0),
    ("packet", socket.AF_PACKET, socket.SOCK_RAW, 0),
)


def try_sockets() -> dict:
    """What its network namespace lists before (``/proc/net/unix``: its template's, an earlier game's), then each
    socket tried: ``made`` (and, for a UNIX one, bound to an abstract name and listening), or its error."""
    outcome: dict = {}
    try:
        with open("/proc/self/net/unix") as handle:  # its own network namespace's (what /proc/net shows too)
            outcome["/proc/net/unix"] = len(handle.readlines()) - 1  # sockets listed (the first line is a header)
    except OSError as error:
        outcome["/proc/net/unix"] = type(error).__name__
    for name, family, kind, protocol in TRIED:
        try:
            made = socket.socket(family, kind, protocol)
        except OSError as error:
            outcome[name] = type(error).__name__
            continue
        outcome[name] = "made"
        if family == socket.AF_UNIX:
            try:
                made.bind(f"\0hostile-{name.replace(' ', '-')}-{os.getpid()}")
                outcome[name] = "bound"
                if kind == socket.SOCK_STREAM:
                    made.listen(1)
                    outcome[name] = "listening"
            except OSError:
                pass
        KEPT.append(made)
    try:
        KEPT.extend(socket.socketpair())
        outcome["socketpair"] = "made"
    except OSError as error:
        outcome["socketpair"] = type(error).__name__
    outcome["namespace"] = os.readlink("/proc/self/ns/net")
    outcome["ipc namespace"] = os.readlink("/proc/self/ns/ipc")
    for name, call, arguments in (("shm", LIBC.shmget, (KEY, 4096, IPC_CREAT | 0o666)),
                                  ("sem", LIBC.semget, (KEY, 1, IPC_CREAT | 0o666)),
                                  ("msg", LIBC.msgget, (KEY, IPC_CREAT | 0o666)),
                                  ("mq", LIBC.mq_open, (b"/hostile", os.O_CREAT | os.O_RDWR, 0o666, None))):
        made = call(*arguments)
        outcome[name] = "made" if made >= 0 else os.strerror(ctypes.get_errno())
    return outcome


LIBC = ctypes.CDLL(None, use_errno=True)
KEY, IPC_CREAT = 0x4E455457, 0o1000


KEPT: list = []
AT_IMPORT = try_sockets()  # in the template: the bot's code at import


class Probe:
    def __init__(self) -> None:
        self.bot = RandomBot()

    def start(self, info: dict) -> None:
        print("hostile: " + json.dumps({"network": {"import": AT_IMPORT, "game": try_sockets()}}), file=sys.stderr,
              flush=True)
        self.bot.start(info)

    def decide(self, request: dict) -> dict:
        return self.bot.decide(request)
