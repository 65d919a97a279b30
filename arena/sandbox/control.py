"""The runner's side of a template's control socket: what a template may say, and when.

A template (:mod:`arena.sandbox.host`) runs the bot's code, so every byte it
sends is the bot's. It may say only, in this order: ``{"ready": true}`` once;
then for each game the runner asked for, ``{"game": N, "forked": PID}`` with
the pidfd of that game's bot (or ``{"game": N, "error": TEXT}``). How a game
ended is never the template's to say (it does not know: its reaper, the
game's parent, tells the runner, :mod:`arena.sandbox.reaper`). Each message is one packet of at most
:data:`CONTROL_BYTES`. :class:`TemplateProtocol` checks each one and raises
:class:`ControlError` (saying what was wrong) for anything else: the runner
makes that a crash of the bot's seat, never a failed game.
"""

from __future__ import annotations

import socket
from typing import Any

import orjson

from arena.safetext import cap_detail
from arena.sandbox.kernel import is_pidfd

#: Longest message read from a template's control socket; a longer one is a crash of its seat.
CONTROL_BYTES = 4096
#: games asked of a template and never answered or ended are forgotten beyond this many
REMEMBERED_GAMES = 64


class ControlError(Exception):
    """A template's control message the protocol does not allow (what is wrong with it)."""


class TemplateProtocol:
    """What one template said so far, and whether its next message is allowed."""

    def __init__(self) -> None:
        self.ready = False
        #: the games asked of the template and not answered yet (gone once answered)
        self.games: dict[int, str] = {}

    def asked(self, number: int) -> None:
        """The runner asked the template for game ``number``."""
        self.games[number] = "asked"
        for old in [game for game in self.games if game < number - REMEMBERED_GAMES]:
            del self.games[old]  # games a template never answered

    def check(self, data: bytes, fds: list[int], flags: int) -> dict[str, Any]:
        """The message ``data`` (received with ``fds`` and ``flags``) if the protocol allows it now, else
        :class:`ControlError`; an ``error`` text comes back capped and marked as the template's."""
        if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
            raise ControlError(f"a message longer than {CONTROL_BYTES} bytes or with more than one descriptor")
        if not data:
            raise ControlError("an empty message, closed its control channel or ended")
        try:
            message = orjson.loads(data)
        except ValueError:
            raise ControlError(f"a message that is not JSON: {data[:80]!r}") from None
        if type(message) is not dict:
            raise ControlError(f"a message that is not a JSON object: {data[:80]!r}")
        if message == {"ready": True} and not fds:
            if self.ready:
                raise ControlError("ready twice")
            self.ready = True
            return message
        if not self.ready:
            raise ControlError(f"a message before it was ready: {data[:80]!r}")
        keys = set(message) - {"game"}
        number = message.get("game")
        state = self.games.get(number) if type(number) is int else None
        if len(message) != 2 or len(keys) != 1 or state is None or not isinstance(number, int):
            raise ControlError(f"a message of no game it was asked for: {data[:80]!r}")
        key = keys.pop()
        value = message[key]
        if key == "forked" and state == "asked" and type(value) is int and len(fds) == 1:
            if not is_pidfd(fds[0]):
                raise ControlError("a descriptor that is not a process's with a forked game")
            del self.games[number]
        elif key == "error" and state == "asked" and type(value) is str and not fds:
            del self.games[number]
            message["error"] = cap_detail(f"the template says: {value}")
        else:
            raise ControlError(f"a message out of place: {data[:80]!r}" + (" with a descriptor" if fds else ""))
        return message
