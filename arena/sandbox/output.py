"""What a bot writes on stderr: kept up to a cap per game, logged in batches, never trusted as text.

A flood costs the runner one read per 64 KiB and, past the cap, nothing but
counting. Lines are logged one record each while they are few (a read of up
to 32 lines, ``LINE_RECORDS`` a game); more are batched into records of up to
64 KiB, and blank lines are dropped, so a newline flood makes a handful of
records, not one per line. Every byte shown to a person (log lines, fault details) goes through
:func:`arena.safetext.escape`: a bot cannot send terminal escape sequences to anyone.
"""

from __future__ import annotations

import collections
import logging

from arena.safetext import cap_detail, escape

#: bytes of a bot's stderr kept and logged per game; the rest is counted and dropped
STDERR_GAME_LIMIT = 1 << 20
#: bytes kept in memory for crash details (the end of what was kept)
STDERR_TAIL = 64 << 10
#: log records per game with one line each; past this, lines are logged in batches of up to 64 KiB
LINE_RECORDS = 2000
class StderrCapture:
    """One bot's stderr: a per-game cap, coalesced log records, the tail kept for crash details."""

    def __init__(self, logger: logging.Logger, limit: int = STDERR_GAME_LIMIT) -> None:
        self.log = logger
        self.limit = limit
        self.tail: collections.deque[int] = collections.deque(maxlen=STDERR_TAIL)
        self.new_game()

    def new_game(self) -> None:
        """Start counting afresh (each game gets the full cap)."""
        self.kept = 0
        self.dropped = 0
        self.partial = b""
        self.records = 0
        self.batch: list[str] = []
        self.batched = 0

    @property
    def full(self) -> bool:
        return self.kept >= self.limit

    def feed(self, chunk: bytes) -> None:
        """Take one read of the bot's stderr."""
        room = self.limit - self.kept
        if room <= 0:
            self.dropped += len(chunk)
            return
        if len(chunk) > room:
            self.dropped += len(chunk) - room
            chunk = chunk[:room]
        self.kept += len(chunk)
        self.tail.extend(chunk)
        text = self.partial + chunk
        cut = text.rfind(b"\n")
        if cut < 0 and len(text) < STDERR_TAIL:
            self.partial = text
            return
        complete, self.partial = (text, b"") if cut < 0 else (text[:cut], text[cut + 1:])
        lines = [line for line in complete.split(b"\n") if line.strip()]
        if not lines or not self.log.isEnabledFor(logging.INFO):
            return
        shown = [escape(line.decode("utf-8", "replace")) for line in lines]
        if len(shown) <= 32 and self.records + len(shown) <= LINE_RECORDS and not self.batch:
            for line in shown:
                self.log.info("%s", line)
            self.records += len(shown)
            return
        self.batch += shown
        self.batched += sum(map(len, shown))
        if self.batched >= STDERR_TAIL:
            self._flush()

    def _flush(self) -> None:
        if self.batch:
            self.log.info("%s", "\n".join(self.batch))
            self.records += 1
            self.batch, self.batched = [], 0

    def count_dropped(self, size: int) -> None:
        """Bytes read past the cap without being looked at."""
        self.dropped += size

    def end_game(self) -> None:
        """Log what is left of a line, and one line saying how much was dropped."""
        if self.partial.strip():
            self.batch.append(escape(self.partial.decode("utf-8", "replace")))
        self.partial = b""
        self._flush()
        if self.dropped:
            self.log.info("[stderr over %d KiB this game: %d more bytes dropped]", self.limit >> 10, self.dropped)
            self.dropped = 0

    def text(self) -> str:
        return bytes(self.tail).decode("utf-8", "replace")

    def last_line(self) -> str:
        lines = [line.strip() for line in self.text().split("\n") if line.strip()]  # not at \r: it is shown escaped
        return cap_detail(lines[-1][:300]) if lines else ""
