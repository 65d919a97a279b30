"""A bot's pipes as one channel: JSON lines to its stdin, lines from its stdout, its stderr drained.

Every descriptor is non-blocking and every wait is one ``epoll`` wait (the
poll object itself, no ``selectors`` layer: an exchange waits once or twice)
that also drains the bot's stderr into its bounded capture, so a bot can
stall neither the runner nor itself. Reply lines are cut from one buffer;
what a bot wrote beyond the line asked for is stale (``resync``) and dropped
before the next message. A forked game's channel also watches its template's
control socket (``extra``), so that what the template says during a game is
read at once.

An exchange is three system calls here, the fewest a wait with a time-out
allows: one ``write`` of the whole message (the pipe holds 64 KiB; a longer
one is finished in pieces), one ``epoll`` wait (:meth:`LineChannel.pump`),
one ``read`` of the answer.
"""

from __future__ import annotations

import os
import select

from arena.sandbox.output import StderrCapture

#: Longest reply line read; a longer one is malformed and ends the process.
MAX_LINE = 1 << 20
#: what :meth:`LineChannel.wait` reports for each descriptor that is ready (:meth:`LineChannel.pump`: those
#: that need the seat)
STDIN, STDOUT, STDERR, EXTRA = "stdin", "stdout", "stderr", "extra"


class LineChannel:
    """The runner's ends of one bot process's stdin, stdout and stderr (and an ``extra`` socket to watch)."""

    def __init__(self, stdin: int, stdout: int, stderr: int, capture: StderrCapture) -> None:
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr
        for fd in (stdin, stdout, stderr):
            os.set_blocking(fd, False)
        self.capture = capture
        self.poller = select.epoll()
        #: what each watched descriptor is, as :meth:`wait` reports it
        self.names: dict[int, str] = {}
        self._watch(stdout, select.EPOLLIN, STDOUT)
        self._watch(stderr, select.EPOLLIN, STDERR)
        self.extra: int | None = None
        self.buffer = bytearray()
        self.resync = False  # the buffer may hold lines of an earlier exchange

    def _watch(self, fd: int, events: int, name: str) -> None:
        self.poller.register(fd, events)
        self.names[fd] = name

    def _forget(self, fd: int) -> None:
        if self.names.pop(fd, None) is not None:
            try:
                self.poller.unregister(fd)
            except OSError:
                pass  # closed already (epoll forgot it then)

    def watch(self, fd: int) -> None:
        """Report ``fd`` (a template's control socket) as :data:`EXTRA` when it can be read."""
        self._watch(fd, select.EPOLLIN, EXTRA)
        self.extra = fd

    def unwatch(self) -> None:
        if self.extra is not None:
            self._forget(self.extra)
        self.extra = None

    def write(self, data: bytes | memoryview) -> bytes | memoryview:
        """Write what the pipe takes now; what is left, empty when all went (``OSError`` when the bot closed its
        stdin). A message the pipe takes whole (nearly all) is written with one call and no copy."""
        try:
            written = os.write(self.stdin, data)
        except BlockingIOError:
            return data
        return memoryview(data)[written:] if written < len(data) else b""

    def wait(self, timeout: float, writable: bool = False) -> list[str]:
        """Wait up to ``timeout`` seconds; which of the descriptors are ready (``writable``: stdin too), an
        error or a hang-up counting as ready (the read or write then says what happened)."""
        if writable:
            self._watch(self.stdin, select.EPOLLOUT, STDIN)
        try:
            names = self.names
            return [names[fd] for fd, _ in self.poller.poll(max(timeout, 0))]
        finally:
            if writable:
                self._forget(self.stdin)

    def pump(self, timeout: float) -> str | None:
        """Wait up to ``timeout`` seconds for the bot, and take what is ready: its stdout into the reply buffer,
        its stderr into its capture. None, or what the seat must see to: :data:`STDOUT` at end of file (the
        bot closed it), :data:`EXTRA` when the extra descriptor can be read. Each descriptor is watched
        level-triggered, so what comes after a returned event is reported by the next wait."""
        for fd, _ in self.poller.poll(timeout):
            if fd == self.stdout:
                if not self.read_stdout():
                    return STDOUT
            elif fd == self.stderr:
                self.drain_stderr()
            elif fd == self.extra:
                return EXTRA
        return None

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
                self._forget(self.stderr)
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
        self.poller.close()
        self.names.clear()
        if descriptors:
            for fd in (self.stdin, self.stdout, self.stderr):
                os.close(fd)
