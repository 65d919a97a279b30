"""A bot's pipes as one channel: JSON lines to its stdin, lines from its stdout, its stderr drained.

Every descriptor is non-blocking and every wait is one ``selectors`` wait
that also drains the bot's stderr into its bounded capture, so a bot can
stall neither the runner nor itself. Reply lines are cut from one buffer;
what a bot wrote beyond the line asked for is stale (``resync``) and dropped
before the next message. A forked game's channel also watches its template's
control socket (``extra``), so that what the template says during a game is
read at once.
"""

from __future__ import annotations

import os
import selectors

from arena.sandbox.output import StderrCapture

#: Longest reply line read; a longer one is malformed and ends the process.
MAX_LINE = 1 << 20
#: what :meth:`LineChannel.wait` reports for each descriptor that is ready
STDIN, STDOUT, STDERR, EXTRA = "stdin", "stdout", "stderr", "extra"


class LineChannel:
    """The runner's ends of one bot process's stdin, stdout and stderr (and an ``extra`` socket to watch)."""

    def __init__(self, stdin: int, stdout: int, stderr: int, capture: StderrCapture) -> None:
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        for fd in (stdin, stdout, stderr):
            os.set_blocking(fd, False)
        self.capture = capture
        self.selector = selectors.DefaultSelector()
        self.selector.register(stdout, selectors.EVENT_READ, STDOUT)
        self.selector.register(stderr, selectors.EVENT_READ, STDERR)
        self.extra: int | None = None
        self.buffer = bytearray()
        self.resync = False  # the buffer may hold lines of an earlier exchange

    def watch(self, fd: int) -> None:
        """Report ``fd`` (a template's control socket) as :data:`EXTRA` when it can be read."""
        self.selector.register(fd, selectors.EVENT_READ, EXTRA)
        self.extra = fd

    def unwatch(self) -> None:
        if self.extra is not None and self.extra in self.selector.get_map():
            self.selector.unregister(self.extra)
        self.extra = None

    def write(self, data: memoryview) -> memoryview:
        """Write what the pipe takes now; what is left (``OSError`` when the bot closed its stdin)."""
        try:
            return data[os.write(self.stdin, data):]
        except BlockingIOError:
            return data

    def wait(self, timeout: float, writable: bool = False) -> list[str]:
        """Wait up to ``timeout`` seconds; which of the descriptors are ready (``writable``: stdin too)."""
        if writable:
            self.selector.register(self.stdin, selectors.EVENT_WRITE, STDIN)
        try:
            return [key.data for key, _ in self.selector.select(timeout)]
        finally:
            if writable:
                self.selector.unregister(self.stdin)

    def read_stdout(self) -> bool:
        """Append what the bot wrote to the reply buffer; False at end of file."""
        try:
            chunk = os.read(self.stdout, 65536)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        self.buffer += chunk
        return True

    def drain_stderr(self) -> bool:
        """Move what the bot wrote on stderr into its capture; False at end of file.

        Past the game's cap, reads are only counted (at most 16 a call, so that
        a flood cannot hold the runner here).
        """
        for _ in range(16):
            try:
                chunk = os.read(self.stderr, 65536)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                if self.stderr in self.selector.get_map():
                    self.selector.unregister(self.stderr)
                return False
            self.capture.feed(chunk)
        return True

    def line(self) -> bytes | None:
        """The next complete line of the buffer, taken out of it (None: none yet)."""
        newline = self.buffer.find(b"\n")
        if newline < 0:
            return None
        line = bytes(self.buffer[:newline])
        del self.buffer[:newline + 1]
        if self.buffer:
            self.resync = True
        return line

    def discard_stale(self) -> None:
        """Drop reply lines left from an earlier exchange (a bot that answered twice, or too late)."""
        self.buffer.clear()
        while self.read_stdout() and self.buffer:
            self.buffer.clear()
        self.resync = False

    def close(self, descriptors: bool) -> None:
        """Stop watching; close the three descriptors too when ``descriptors`` (else their owner does)."""
        self.selector.close()
        if descriptors:
            for fd in (self.stdin, self.stdout, self.stderr):
                os.close(fd)
