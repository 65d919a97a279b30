"""Watching a bot play: every message to and from each seat, timed, and what the bot wrote on stderr.

:class:`TracedSeat` wraps any seat adapter (in-process or sandboxed process,
the same ``start``/``decide``/``end``/``close`` protocol) and writes one JSON
line per event to a stream (``arena play --trace``):

- ``{"seat", "bot", "direction": "to", "message"}``: what arena sent;
- ``{"seat", "bot", "direction": "from", "message", "ms", "wall_ms", "clock"}``:
  the bot's answer (``{"type": "ready"}`` after start, else its action), the
  time charged against its limits (``ms``, on the seat's ``clock``: ``cpu`` or
  ``wall``) and the wall-clock time the exchange took;
- ``{"seat", "bot", "direction": "fault", "kind", "detail", "wall_ms"}``: the
  bot faulted instead of answering;
- ``{"seat", "bot", "direction": "stderr", "line"}``: a line the bot wrote on
  stderr (or printed, for an in-process bot), after the exchange it came in.

Stderr comes from the seat: a process adapter keeps a tail of it
(``stderr_text()``); an in-process bot's ``sys.stdout`` and ``sys.stderr`` are
captured while it runs (:func:`captured_output`).
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from time import perf_counter
from typing import Any, Callable, Iterator, TextIO

from arena.errors import BotFault
from arena.match import InProcessBot, Seat


class StderrCursor:
    """What a seat wrote on stderr since the last look (a process adapter's tail, or captured output)."""

    ANCHOR = 256

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self.captured = io.StringIO()
        self.seen = self._text()

    def _text(self) -> str:
        text = getattr(self.seat, "stderr_text", None)
        try:
            return text() if callable(text) else ""
        except Exception:  # a seat that cannot say has written nothing we can show
            return ""

    def fresh(self) -> str:
        """The text written since the previous call (or since the cursor was made)."""
        text = self._text()
        if text.startswith(self.seen):
            new = text[len(self.seen):]
        else:  # the kept tail moved on: find where the last look ended
            anchor = self.seen[-self.ANCHOR:]
            where = text.rfind(anchor) if anchor else -1
            new = text[where + len(anchor):] if where >= 0 else text
        self.seen = text
        captured = self.captured.getvalue()
        self.captured.seek(0)
        self.captured.truncate()
        return captured + new


@contextlib.contextmanager
def captured_output(seat: Seat, into: io.StringIO) -> Iterator[None]:
    """While an in-process bot runs, its ``print`` and stderr go to ``into`` (other seats: nothing to do)."""
    if not isinstance(seat, InProcessBot):
        yield
        return
    with contextlib.redirect_stdout(into), contextlib.redirect_stderr(into):
        yield


class TracedSeat:
    """A seat adapter that passes everything through and writes each exchange as a JSON line."""

    def __init__(self, seat: Seat, number: int, name: str, stream: TextIO | None = None) -> None:
        self.seat = seat
        self.number = number
        self.name = name
        self.stream = stream or sys.stderr
        self.cursor = StderrCursor(seat)

    def __getattr__(self, name: str) -> Any:  # healthy, entrant, ...: the wrapped seat's
        return getattr(self.seat, name)

    @property
    def clock(self) -> str:
        return getattr(self.seat, "clock", "wall")

    def emit(self, direction: str, **fields: Any) -> None:
        line = {"seat": self.number, "bot": self.name, "direction": direction, **fields}
        self.stream.write(json.dumps(line, default=str) + "\n")
        self.stream.flush()

    def _stderr(self) -> None:
        for line in self.cursor.fresh().splitlines():
            if line.strip():
                self.emit("stderr", line=line)

    def _exchange(self, message: dict[str, Any], call: Callable[[], Any]) -> Any:
        self.emit("to", message=message)
        began = perf_counter()
        try:
            with captured_output(self.seat, self.cursor.captured):
                result = call()
        except BotFault as fault:
            self.emit("fault", kind=fault.kind, detail=str(fault), wall_ms=round((perf_counter() - began) * 1000, 3))
            self._stderr()
            raise
        self._wall_ms = round((perf_counter() - began) * 1000, 3)
        return result

    def start(self, info: dict[str, Any], limit_ms: float) -> None:
        self._exchange(info, lambda: self.seat.start(info, limit_ms))
        self.emit("from", message={"type": "ready"}, ms=None, wall_ms=self._wall_ms, clock=self.clock)
        self._stderr()

    def decide(self, request: dict[str, Any], limit_ms: float) -> tuple[Any, float]:
        message = request.full() if hasattr(request, "full") else dict(request)
        action, used = self._exchange(message, lambda: self.seat.decide(request, limit_ms))
        self.emit("from", message=action, ms=round(used, 3), wall_ms=self._wall_ms, clock=self.clock)
        self._stderr()
        return action, used

    def end(self, info: dict[str, Any]) -> None:
        self.emit("to", message=info)
        with captured_output(self.seat, self.cursor.captured):
            self.seat.end(info)
        self._stderr()

    def close(self) -> None:
        self.seat.close()
        self._stderr()
