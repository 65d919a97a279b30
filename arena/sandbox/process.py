"""The seat adapter for a bot in a process of its own: JSON lines over pipes, time, faults, restarts.

:class:`ProcessBot` follows the adapter protocol of :class:`arena.match.InProcessBot`
(``start``, ``decide``, ``end``, ``close``, ``healthy``, ``clock``). It writes
one JSON object per line to the bot's stdin and reads one per line from its
stdout, never blocking: every wait is a ``selectors`` wait that also drains
the bot's stderr into a bounded tail, so a bot can stall neither the runner
nor itself.

Time: a decision may use ``limit_ms`` (move time plus what is left of the
bank) of the bot's CPU time, read from the kernel's clock for its process;
the wall clock counts at a third (``WALL_FACTOR``), so a bot that sleeps or
waits is stopped after three times its limit, and one slowed down by a loaded
machine keeps its full CPU time. The clock that ran out is the fault's ``clock``.

A bot that times out or crashes is killed with every process it started; it
is started afresh for the next game (``start`` respawns it; ``SeatPool``
replaces it because ``healthy`` is false).
"""

from __future__ import annotations

import collections
import logging
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

import orjson

from arena.errors import BotCrashed, BotMalformed, BotTimeout
from arena.match import Limits
from arena.sandbox import limits as sandbox_limits
from arena.sandbox.probe import Protections
from arena.sandbox.probe import protections as detected_protections

#: The wall clock counts at 1/WALL_FACTOR against a bot's time.
WALL_FACTOR = 3
#: Longest reply line read; a longer one is malformed and ends the process.
MAX_LINE = 1 << 20
#: Bytes of a bot's stderr kept in memory (the tail shown in crash details).
STDERR_KEEP = 64 << 10
#: Bytes of a bot's stderr logged per game (logger ``arena.bot.NAME``, level INFO).
STDERR_LOG_LIMIT = 256 << 10
#: Environment variables a bot inherits from the runner; nothing else (no tokens).
INHERITED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "NODE_PATH")
DUMP_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
READY = {"type": "ready"}

_uids: sandbox_limits.UidPool | None = None


def _uid_pool() -> sandbox_limits.UidPool:
    """This process's pool of bot user ids (a forked worker makes its own)."""
    global _uids
    if _uids is None or _uids.owner != os.getpid():
        _uids = sandbox_limits.UidPool()
    return _uids


def bot_environment(home: str, extra: dict | None = None) -> dict:
    """The environment of a bot process: a few harmless variables of the runner's, and its own home."""
    env = {key: os.environ[key] for key in INHERITED_ENV if key in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(HOME=home, TMPDIR=home, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
               PYTHONHASHSEED=os.environ.get("PYTHONHASHSEED", "0"))
    env.update(extra or {})
    return env


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class ProcessBot:
    """A bot in a sandboxed process of its own, reused across games until it fails.

    :param name: the entrant's name.
    :param argv: the bot's command line.
    :param isolate: put the bot in the sandbox (limits, own user, namespaces);
        false runs it as a plain child process, timed the same way.
    :param cwd: its working folder (default: a private folder, also its HOME).
    :param env: extra environment variables.
    """

    def __init__(self, name: str, argv: list[str], limits: Limits, *, isolate: bool = True,
                 cwd: str | None = None, env: dict | None = None,
                 protections: Protections | None = None) -> None:
        self.name = name
        self.argv = list(argv)
        self.limits = limits
        self.isolate = isolate
        self.cwd = cwd
        self.extra_env = env
        self.protections = protections or detected_protections()
        self.has_cpu_clock = self.protections.cpu_clock != "wall"
        #: wall time counts at 1/wall_factor; without a CPU clock, in full
        self.wall_factor = WALL_FACTOR if self.has_cpu_clock else 1
        self.clock = "cpu" if self.has_cpu_clock else "wall"
        self.healthy = True
        self.stderr_tail = collections.deque(maxlen=STDERR_KEEP)
        self.stderr_log = logging.getLogger(f"arena.bot.{name}")
        self.stderr_partial = b""
        self.stderr_logged = 0
        self.process: subprocess.Popen | None = None
        self.spawn_error: str | None = None
        self._spawn()

    # -- the process --

    def _spawn(self) -> None:
        """Start the process (a failure is kept and reported by the next ``start``)."""
        self.buffer = bytearray()
        self.resync = False
        self.workdir = tempfile.mkdtemp(prefix="arena-bot-")
        self.uid = None
        command = list(self.argv)
        preexec = None
        if self.isolate:
            if self.protections.own_user:
                self.uid = _uid_pool().take()
                os.chown(self.workdir, self.uid, self.uid)
            self.cpu_backstop_s = (sandbox_limits.cpu_backstop_seconds(0, self.limits.start_ms)
                                   + sandbox_limits.CPU_BACKSTOP_SLACK_S)
            own_uid = self.uid is not None
            preexec = sandbox_limits.preexec(
                sandbox_limits.resource_limits(self.limits, own_uid=own_uid), self.cpu_backstop_s, uid=self.uid,
                open_up=sandbox_limits.hidden_ancestors(self._paths_needed(), self.uid) if own_uid else [],
                namespaces=self.protections.namespaces)
        self.forks = self.isolate and self.protections.namespaces
        try:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, cwd=self.cwd or self.workdir, env=bot_environment(self.workdir, self.extra_env),
                start_new_session=True, close_fds=True, preexec_fn=preexec)
        except (OSError, subprocess.SubprocessError) as error:
            self.spawn_error = f"cannot start {self.argv[0]!r}: {getattr(error, 'strerror', None) or error}"
            self._cleanup()
            return
        self.spawn_error = None
        self.stdin = self.process.stdin.fileno()
        self.stdout = self.process.stdout.fileno()
        self.stderr = self.process.stderr.fileno()
        for fd in (self.stdin, self.stdout, self.stderr):
            os.set_blocking(fd, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.stdout, selectors.EVENT_READ)
        self.selector.register(self.stderr, selectors.EVENT_READ)
        self.pid = self._bot_pid()
        self.cpu_clock_id = ((~self.pid) << 3) | 2
        self.schedstat_fd = None
        if self.protections.cpu_clock == "schedstat":
            try:
                self.schedstat_fd = os.open(f"/proc/{self.pid}/schedstat", os.O_RDONLY)
            except OSError:
                pass

    def _paths_needed(self) -> list[str]:
        """What a bot with its own user id must reach: the runner's Python, its cwd, its program's files."""
        program = shutil.which(self.argv[0]) or self.argv[0]
        paths = [sys.executable, os.path.realpath(sys.executable), sys.prefix, sys.base_prefix,
                 *sys.path, self.workdir, self.cwd or self.workdir, program, os.path.realpath(program)]
        return [path for path in paths + self.argv[1:] if path and os.path.exists(path)]

    def _bot_pid(self) -> int:
        """The bot's own pid: its keeper's child when there is a PID namespace (see ``become_process_one``)."""
        if not self.forks:
            return self.process.pid
        children = f"/proc/{self.process.pid}/task/{self.process.pid}/children"
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with open(children, "rb") as handle:
                    pids = handle.read().split()
            except OSError:
                break
            if pids:
                return int(pids[0])
            time.sleep(0.0005)
        return self.process.pid

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def cpu_ns(self) -> int:
        """CPU time the bot's process has used (all its threads), or 0 without a CPU clock."""
        if self.protections.cpu_clock == "process":
            try:
                return time.clock_gettime_ns(self.cpu_clock_id)
            except OSError:
                return 0
        if self.schedstat_fd is not None:
            try:
                return int(os.pread(self.schedstat_fd, 64, 0).split()[0])
            except (OSError, ValueError, IndexError):
                return 0
        return 0

    def _kill(self) -> None:
        """SIGKILL the bot and everything it started, and reap it.

        In a PID namespace the bot is its process 1: killing it ends the whole
        namespace, and its keeper exits once that is done. Otherwise the bot's
        process group dies, and as root every process of the bot's user id.
        """
        if self.process is None:
            return
        if self.forks and self.pid != self.process.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
                self.process.wait(timeout=2)
            except (ProcessLookupError, PermissionError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.uid is not None and not self.forks:
            sandbox_limits.kill_user(self.uid)
        self.process.wait()

    def _cleanup(self) -> None:
        """Release what the process held: pipes, selector, work folder, user id."""
        if self.process is not None:
            self.selector.close()
            for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
                try:
                    pipe.close()
                except OSError:
                    pass
            if self.schedstat_fd is not None:
                os.close(self.schedstat_fd)
            self.process = None
        shutil.rmtree(self.workdir, ignore_errors=True)
        if self.uid is not None:
            _uid_pool().give_back(self.uid)
            self.uid = None

    def close(self) -> None:
        """Kill the bot's processes and free everything (the adapter can still ``start`` again)."""
        if self.process is not None:
            self._drain_stderr()
        self._kill()
        self._cleanup()

    def _stop(self) -> None:
        """After a timeout or crash: kill it now, restart it for its next game."""
        self.healthy = False
        self.close()

    # -- stderr --

    def _drain_stderr(self) -> bool:
        """Move what the bot wrote on stderr into the tail; False at end of file."""
        while True:
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
            self.stderr_tail.extend(chunk)
            self._log_stderr(chunk)

    def _log_stderr(self, chunk: bytes) -> None:
        """Log the bot's complete stderr lines, up to ``STDERR_LOG_LIMIT`` bytes a game."""
        *lines, self.stderr_partial = (self.stderr_partial + chunk).split(b"\n")
        if len(self.stderr_partial) > STDERR_KEEP:
            lines.append(self.stderr_partial)
            self.stderr_partial = b""
        for line in lines:
            if self.stderr_logged > STDERR_LOG_LIMIT:
                return
            self.stderr_logged += len(line) + 1
            if self.stderr_logged > STDERR_LOG_LIMIT:
                self.stderr_log.info("[more than %d KiB of stderr this game: the rest is not logged]",
                                     STDERR_LOG_LIMIT >> 10)
            else:
                self.stderr_log.info("%s", line.decode("utf-8", "replace"))

    def stderr_text(self) -> str:
        """The kept tail of the bot's stderr."""
        return bytes(self.stderr_tail).decode("utf-8", "replace")

    def _last_words(self) -> str:
        lines = [line.strip() for line in self.stderr_text().splitlines() if line.strip()]
        return f"; stderr: {lines[-1][:300]}" if lines else ""

    # -- the exchange --

    def _send(self, message: dict, deadline: float) -> None:
        data = memoryview(orjson.dumps(message, option=DUMP_OPTIONS))
        while data:
            try:
                data = data[os.write(self.stdin, data):]
            except BlockingIOError:
                self._wait_writable(deadline)
            except (BrokenPipeError, OSError):
                raise self._crash("closed its standard input") from None

    def _wait_writable(self, deadline: float) -> None:
        """Wait until the bot reads its stdin, draining its output meanwhile."""
        self.selector.register(self.stdin, selectors.EVENT_WRITE)
        try:
            while True:
                remaining = deadline - time.perf_counter()
                if remaining <= 0:
                    self._stop()
                    error = BotTimeout("did not read its input within the wall-clock cap")
                    error.clock = self.clock = "wall"
                    raise error
                for key, _ in self.selector.select(remaining):
                    if key.fd == self.stdin:
                        return
                    if key.fd == self.stderr:
                        self._drain_stderr()
                    elif not self._read_stdout():
                        raise self._crash("closed its standard output")
        finally:
            if self.process is not None:
                self.selector.unregister(self.stdin)

    def _read_stdout(self) -> bool:
        """Append what the bot wrote to the reply buffer; False at end of file."""
        try:
            chunk = os.read(self.stdout, 65536)
        except BlockingIOError:
            return True
        if not chunk:
            return False
        self.buffer += chunk
        return True

    def _discard_stale(self) -> None:
        """Drop reply lines left from an earlier exchange (a bot that answered twice, or too late)."""
        self.buffer.clear()
        while self._read_stdout() and self.buffer:
            self.buffer.clear()
        self.resync = False

    def _crash(self, what: str) -> BotCrashed:
        """The crash fault for a bot that is gone or broke the pipe: kill, reap, explain."""
        if self.process is not None:
            try:
                self.process.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
            status = self.process.poll()
            if status is None:
                detail = what
            elif status < 0:
                detail = f"was killed by {_signal_name(-status)}"
            else:
                detail = f"exited with status {status}"
            self._kill()
            self._drain_stderr()
        else:
            detail = what
        detail += self._last_words()
        self._stop()
        return BotCrashed(detail)

    def _exchange(self, message: dict, limit_ms: float, what: str) -> tuple[Any, float]:
        """Send ``message``, read one reply line within ``limit_ms``; the parsed reply and the time charged."""
        if self.resync:
            self._discard_stale()
        cpu_before = self.cpu_ns()
        if self.isolate and self.has_cpu_clock:
            needed = sandbox_limits.cpu_backstop_seconds(cpu_before, limit_ms)
            if needed > self.cpu_backstop_s:
                self.cpu_backstop_s = sandbox_limits.move_cpu_backstop(self.pid, needed)
        began = time.perf_counter()
        wall_cap = began + limit_ms * self.wall_factor / 1000
        self._send(message, wall_cap)
        buffer = self.buffer
        while True:
            newline = buffer.find(b"\n")
            if newline >= 0:
                break
            if len(buffer) > MAX_LINE:
                self._stop()
                error = BotMalformed(f"{what}: a reply longer than {MAX_LINE} bytes without a newline")
                error.stops_seat = True
                raise error
            cpu_ms = (self.cpu_ns() - cpu_before) / 1e6
            wall_ms = (time.perf_counter() - began) * 1000
            charged = max(cpu_ms, wall_ms / self.wall_factor)
            if charged > limit_ms:
                raise self._timeout(what, cpu_ms, wall_ms, limit_ms, answered=False)
            wait = max((limit_ms - charged) / 2000, 0.001)
            for key, _ in self.selector.select(wait):
                if key.fd == self.stderr:
                    self._drain_stderr()
                elif not self._read_stdout():
                    raise self._crash("closed its standard output")
        cpu_ms = (self.cpu_ns() - cpu_before) / 1e6
        wall_ms = (time.perf_counter() - began) * 1000
        line = bytes(buffer[:newline])
        del buffer[:newline + 1]
        if buffer:
            self.resync = True
        used = max(cpu_ms, wall_ms / self.wall_factor)
        if used > limit_ms:
            raise self._timeout(what, cpu_ms, wall_ms, limit_ms, answered=True)
        try:
            return orjson.loads(line), used
        except ValueError:
            self.resync = True
            raise BotMalformed(f"{what}: not one JSON object on one line: {line[:120]!r}") from None

    def _timeout(self, what: str, cpu_ms: float, wall_ms: float, limit_ms: float, answered: bool) -> BotTimeout:
        by_cpu = self.wall_factor != 1 and cpu_ms >= wall_ms / self.wall_factor
        self.clock = "cpu" if by_cpu else "wall"
        state = "answered after" if answered else "no answer after"
        if by_cpu:
            detail = f"{what}: {state} {cpu_ms:.0f} ms of CPU time, limit {limit_ms:.0f} ms (cpu clock)"
        else:
            detail = (f"{what}: {state} {wall_ms:.0f} ms on the wall clock, cap {self.wall_factor} x "
                      f"{limit_ms:.0f} ms (wall clock; {cpu_ms:.0f} ms of CPU time)")
        self._stop()
        error = BotTimeout(detail)
        error.clock = self.clock
        return error

    # -- the adapter protocol --

    def start(self, info: dict, limit_ms: float) -> None:
        """Send ``start`` (starting the process afresh if it is not running) and wait for ready."""
        if not self.running:
            self.close()
            self._spawn()
            if self.spawn_error:
                self.healthy = False
                raise BotCrashed(self.spawn_error)
        self.healthy = True
        self.clock = "cpu" if self.has_cpu_clock else "wall"
        self.stderr_logged = 0
        reply, _ = self._exchange(info, limit_ms, "start")
        if reply != READY:
            raise BotMalformed(f'start: expected {{"type": "ready"}}, got {str(reply)[:120]}')

    def decide(self, request: dict, limit_ms: float) -> tuple[Any, float]:
        """Send the ``decide`` message and return the bot's reply and the time charged (ms)."""
        if self.process is None:
            raise BotCrashed("is not running")
        message = request.full() if hasattr(request, "full") else request
        return self._exchange(message, limit_ms, message["decision"])

    def end(self, info: dict) -> None:
        """Send ``end`` (no reply expected); a bot already gone is restarted for its next game."""
        if self.process is None:
            return
        try:
            self._send(info, time.perf_counter() + self.limits.move_ms * self.wall_factor / 1000)
        except (BotCrashed, BotTimeout):
            pass

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<ProcessBot {self.name} {state} pid={getattr(self, 'pid', None)}>"
