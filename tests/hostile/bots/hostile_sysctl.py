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
import sys

from arena_bots.random_bot import RandomBot
from attacks import net_settings_seen

AT_IMPORT = net_settings_seen()


class Marker:
    def __init__(self) -> None:
        self.bot = RandomBot()

    def start(self, info: dict) -> None:
        print("hostile: " + json.dumps({"sysctl": {"import": AT_IMPORT, "game": net_settings_seen()}}),
              file=sys.stderr, flush=True)
        self.bot.start(info)

    def decide(self, request: dict) -> dict:
        return self.bot.decide(request)
