"""A Python bot that tries to leave a mark in its network namespace's settings: ``py:hostile_sysctl:Marker``.

A Python bot's games share their template's network namespace (no socket can
be made there), but a namespace also has settings of its own under
``/proc/sys/net``: a value written there by one game would be read by the
next game of the same template, a channel between games that needs no
socket. At import (its template) and at each game's start it reads three of
them and tries to write each; one ``hostile: {...}`` line on stderr a game.
"""

from __future__ import annotations

import json
import os
import sys

from arena_bots.random_bot import RandomBot

#: per-namespace settings tried, with the value written (each differs from the kernel's default)
MARKS = {
    "/proc/sys/net/ipv4/ip_default_ttl": "77",
    "/proc/sys/net/core/somaxconn": "1000",
    "/proc/sys/net/ipv4/ping_group_range": "1\t1",
}


def try_marks() -> dict:
    """Each setting's value as read, then ``written`` or the error the write met."""
    outcome: dict = {"namespace": os.readlink("/proc/self/ns/net")}
    for path, mark in MARKS.items():
        try:
            with open(path) as handle:
                read = handle.read().strip()
        except OSError as error:
            read = type(error).__name__
        try:
            with open(path, "w") as handle:
                handle.write(mark + "\n")
            written = "written"
        except OSError as error:
            written = type(error).__name__
        outcome[path] = [read, written]
    return outcome


AT_IMPORT = try_marks()


class Marker:
    def __init__(self) -> None:
        self.bot = RandomBot()

    def start(self, info: dict) -> None:
        print("hostile: " + json.dumps({"sysctl": {"import": AT_IMPORT, "game": try_marks()}}), file=sys.stderr,
              flush=True)
        self.bot.start(info)

    def decide(self, request: dict) -> dict:
        return self.bot.decide(request)
