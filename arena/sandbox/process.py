"""The seat adapter for a bot in a process of its own: JSON lines over pipes, time, faults, restarts.

:class:`ProcessBot` follows the adapter protocol of :class:`arena.match.InProcessBot`
(``start``, ``decide``, ``end``, ``close``, ``healthy``, ``clock``). It writes
one JSON object per line to the bot's stdin and reads one per line from its
stdout, never blocking (:mod:`arena.sandbox.channel`), so a bot can stall
neither the runner nor itself.

Time: a decision may use ``limit_ms`` (move time plus what is left of the
bank) of the bot's CPU time (:mod:`arena.sandbox.clock`), counted from its
last answer; a bot seen computing between its decisions is stopped between
them from then on (:mod:`arena.sandbox.freezer`).

Each game's bot comes from the seat's launcher (:mod:`arena.sandbox.launcher`),
chosen once: a program started in the jail of its
:class:`~arena.sandbox.jailspec.JailSpec` (:mod:`arena.sandbox.launch_program`),
or a Python bot's game forked from its untrusted template
(:mod:`arena.sandbox.launch_template`). Anything wrong is a crash of the
seat, never a failed game.

A bot that times out or crashes is killed with every process it started; it
is started afresh for the next game (``start`` respawns it; ``SeatPool``
replaces it because ``healthy`` is false).
"""

from __future__ import annotations

import logging
import signal
import subprocess
import time
from typing import Any

import orjson

from arena.errors import BotCrashed, BotMalformed, BotTimeout
from arena.match import Limits
from arena.safetext import cap_detail
from arena.sandbox import limits as sandbox_limits
from arena.sandbox.cgroups import BotCgroup
from arena.sandbox.channel import EXTRA, MAX_LINE, STDERR, STDIN, STDOUT, LineChannel
from arena.sandbox.clock import BotClock
from arena.sandbox.freezer import Freezer, TemplateCell, awake_here
from arena.sandbox.jailspec import JailSpec
from arena.sandbox.launch_program import ProgramLauncher
from arena.sandbox.launch_template import TemplateLauncher
from arena.sandbox.launcher import GameProcess, Launcher
from arena.sandbox.output import StderrCapture
from arena.sandbox.probe import Protections
from arena.sandbox.probe import protections as detected_protections

DUMP_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
READY = {"type": "ready"}


def encode(message: dict[str, Any]) -> bytes:
    """``message`` as one JSON line. orjson's path for keys that are not strings costs about a sixth more on
    every message, so it is taken only for a message that has such keys (the same bytes either way)."""
    try:
        return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError:
        return orjson.dumps(message, option=DUMP_OPTIONS)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class ProcessBot:
    """A bot in a sandboxed process of its own.

    :param name: the entrant's name.
    :param argv: the bot's command line (for a template: the host's).
    :param isolate: put the bot in the sandbox (limits, own user, namespaces, cgroups);
        false runs it as a plain child process, timed the same way.
    :param cwd: its working folder (default: a private folder, also its HOME).
    :param env: extra environment variables.
    :param readable: the host paths the bot may read (its own files and runtime, see
        :mod:`arena.sandbox.jail`), where the machine allows a private root.
    :param template: ``argv`` starts a template (``host.py``) and each game is a fresh bot forked from it.

    Its launcher (:mod:`arena.sandbox.launcher`), chosen once here, starts
    each game's bot; between games the adapter keeps its process (``reuse``)
    or ends it (:meth:`finish_game`: a template keeps only the template).
    """

    def __init__(self, name: str, argv: list[str], limits: Limits, *, isolate: bool = True,
                 cwd: str | None = None, env: dict[str, Any] | None = None,
                 protections: Protections | None = None, readable: list[str] | None = None,
                 template: bool = False) -> None:
        self.name = name
        self.argv = list(argv)
        self.limits = limits
        self.isolate = isolate
        self.protections = protections or detected_protections()
        readable = readable if isolate and self.protections.filesystem else None
        self.template = template and isolate and self.protections.fork_template
        self.timing = BotClock(self.protections.cpu_clock)
        self.clock = "cpu" if self.has_cpu_clock else "wall"  # the clock of its last timeout (Seat protocol)
        self.healthy = True
        self.freezer = Freezer(self.isolate)
        self.stderr_capture = StderrCapture(logging.getLogger(f"arena.bot.{name}"))
        self.cpu_backstop_s = 0  # the bot's RLIMIT_CPU now (moved up as its bank grows)
        shared: dict[str, Any] = dict(isolate=isolate, cwd=cwd, env=env, protections=self.protections,
                                      readable=readable, timing=self.timing, capture=self.stderr_capture)
        self.launcher: Launcher[Any]
        if self.template:  # the template starts now and forks the first game's bot, collected by ``start``
            template_launcher = TemplateLauncher(name, self.argv, limits, wake=self._resume, **shared)
            self.launcher = template_launcher
            template_launcher.ask()
        else:
            self.launcher = ProgramLauncher(name, self.argv, limits, **shared)
            self._spawn()

    # -- what its launcher started --

    @property
    def process(self) -> GameProcess | None:
        """The game's bot process (a ``Popen``, or a :class:`~arena.sandbox.launch_template.ForkedGame`)."""
        return self.launcher.process

    @property
    def pid(self) -> int | None:
        """The bot's own pid."""
        return self.launcher.pid

    @property
    def cgroup(self) -> BotCgroup | None:
        return self.launcher.cgroup

    @property
    def cell(self) -> TemplateCell | None:
        return self.launcher.cell

    @property
    def jail(self) -> JailSpec | None:
        """The jail of the bot's last process."""
        return self.launcher.jail

    @property
    def channel(self) -> LineChannel:
        """The bot's pipes (while it has a process)."""
        channel = self.launcher.channel
        assert channel is not None, "the bot has no process"
        return channel

    def _spawn(self) -> None:
        """Start this game's bot (a failure is kept in the launcher's ``error``, reported by ``start``)."""
        self.stderr_capture.new_game()
        launcher = self.launcher
        launcher.launch()
        if launcher.error is None and launcher.jail is not None:
            self.cpu_backstop_s = launcher.jail.cpu_seconds  # a new bot has its jail's limit, no CPU time yet

    @property
    def frozen(self) -> bool:
        """Whether the bot's processes are stopped now (between its decisions)."""
        return self.freezer.frozen(self.launcher.cgroup)

    @property
    def running(self) -> bool:
        process = self.launcher.process
        return process is not None and process.poll() is None

    @property
    def has_cpu_clock(self) -> bool:
        return self.timing.cpu

    @property
    def wall_factor(self) -> int:
        """Wall time counts at 1/wall_factor against the bot (:class:`BotClock`)."""
        return self.timing.wall_factor

    @wall_factor.setter
    def wall_factor(self, factor: int) -> None:
        self.timing.wall_factor = factor

    def cpu_ns(self) -> int:
        """CPU time the bot has used (:meth:`BotClock.cpu_ns`)."""
        return self.timing.cpu_ns(self.launcher.cgroup, self.launcher.cell)

    def _pause(self, awake: set[ProcessBot] | None = None) -> None:
        """Stop every process of the bot until it is asked again (:class:`Freezer`); ``awake``: this thread's
        :func:`awake_here`, when the caller has it."""
        (awake_here() if awake is None else awake).discard(self)
        launcher = self.launcher
        self.freezer.pause(launcher.cgroup, launcher.cell, launcher.pid if launcher.process is not None else None)

    def _resume(self, awake: set[ProcessBot] | None = None) -> None:
        """Let the bot run; it stays awake after answering until another bot of this thread is asked (remembered
        in ``awake`` only if it is to be stopped then: :meth:`Freezer.stops`)."""
        launcher = self.launcher
        freezer = self.freezer
        if self.isolate and freezer.stops(launcher.cgroup, launcher.cell):
            (awake_here() if awake is None else awake).add(self)
        freezer.resume(launcher.cgroup, launcher.cell)

    def _pause_others(self, awake: set[ProcessBot]) -> None:
        """Stop the bots of this thread's game left awake (``awake``) after their answers, before this one is
        asked."""
        for bot in [bot for bot in awake if bot is not self]:
            cell = bot.launcher.cell  # between games a template may have a request (the next game's bot)
            if bot.process is None and (cell is None or not cell.wanted):
                awake.discard(bot)
            else:
                bot._pause(awake)

    # -- ending a game --

    def _cleanup(self) -> None:
        """Release what the process held: pipes, work folder, user id, cgroup (a template's stay)."""
        awake_here().discard(self)
        self.launcher.release()

    def finish_game(self) -> None:
        """End this game's process (and everything it started); a template stays, forking the next game's bot."""
        self._end_game()
        self.launcher.after_game()

    def _end_game(self) -> None:
        launcher = self.launcher
        launcher.before_end()
        if launcher.process is not None:
            if not self.template:
                self._resume()  # a frozen game's processes die frozen (cgroup v2); a stopped group needs SIGCONT
            self._drain_stderr()
        launcher.kill()
        self._cleanup()
        if launcher.cell is not None:
            self._pause()  # the template waits frozen for the next game
        self.stderr_capture.end_game()

    def close(self) -> None:
        """Kill the bot's processes (a template too) and free everything (the adapter can still ``start`` again)."""
        self._end_game()
        self.launcher.close()

    def _stop(self) -> None:
        """After a timeout or crash: kill it now, restart it for its next game."""
        self.healthy = False
        self.finish_game()

    # -- stderr --

    def _drain_stderr(self) -> bool:
        """Move what the bot wrote on stderr into its capture (:meth:`LineChannel.drain_stderr`)."""
        return self.channel.drain_stderr()

    def stderr_text(self) -> str:
        """The kept tail of the bot's stderr."""
        return self.stderr_capture.text()

    def _last_words(self) -> str:
        line = self.stderr_capture.last_line()
        return f"; stderr: {line}" if line else ""

    # -- the exchange --

    def _send(self, message: dict[str, Any], deadline: float, awake: set[ProcessBot] | None = None) -> None:
        """Write ``message`` and let the bot run: written first while it is stopped, so that one wake-up
        finds it (a message longer than the pipe holds is finished once the bot runs)."""
        channel = self.channel
        try:
            data = channel.write(encode(message))
        except OSError:
            self._resume(awake)
            raise self._crash("closed its standard input") from None
        self._resume(awake)
        while data:
            try:
                data = channel.write(data)
            except OSError:
                raise self._crash("closed its standard input") from None
            if data:
                self._wait_writable(deadline)

    def _wait_writable(self, deadline: float) -> None:
        """Wait until the bot reads its stdin, draining its output meanwhile."""
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                self._stop()
                error = BotTimeout("did not read its input within the wall-clock cap")
                error.clock = self.clock = "wall"
                raise error
            ready = self.channel.wait(remaining, writable=True)
            if STDIN in ready:
                return
            self._take(ready)

    def _take(self, ready: list[str]) -> None:
        """Read what the bot (or its template) wrote on the descriptors ``ready``; a crash when it is gone."""
        for what in ready:
            if what == STDERR:
                self.channel.drain_stderr()
            elif what == STDOUT:
                if not self.channel.read_stdout():
                    raise self._crash("closed its standard output")
            elif what == EXTRA:
                self._heard()

    def _heard(self) -> None:
        """The launcher's own descriptor can be read: a crash when the game's bot is gone with it."""
        if not self.launcher.heard():
            raise self._crash("ended during the game")

    def _crash(self, what: str) -> BotCrashed:
        """The crash fault for a bot that is gone or broke the pipe: kill, reap, explain."""
        launcher = self.launcher
        process = launcher.process
        if process is not None:
            try:
                process.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass
            status = process.poll()
            if status is None:
                detail = what
            elif status < 0 or status == 128 + signal.SIGKILL:
                detail = f"was killed by {_signal_name(-status if status < 0 else signal.SIGKILL)}"
                if launcher.cgroup is not None and launcher.cgroup.memory_kills():
                    detail += f" (over its memory limit of {self.limits.memory_mb} MB)"
            else:
                detail = f"exited with status {status}"
            launcher.kill()
            self._drain_stderr()
        else:
            detail = what
        if launcher.fault:
            detail = launcher.fault
        detail += self._last_words()
        self._stop()
        return BotCrashed(detail)

    def _exchange(self, message: dict[str, Any], limit_ms: float, what: str) -> tuple[Any, float]:
        """Send ``message``, read one reply line within ``limit_ms``; the parsed reply and the time charged.

        The runner's part of a decision, kept to what each one needs: one write, one wait, one read and one
        reading of the bot's clock (its cgroup's ``cpu.stat``) after the answer; the clock is read again only
        when a wait ends without a whole line (to time the bot out).
        """
        launcher = self.launcher
        channel = launcher.channel
        assert channel is not None, "the bot has no process"
        if channel.resync:
            channel.discard_stale()
        timing = self.timing
        cgroup = launcher.cgroup
        cgroup_clock = cgroup is not None and cgroup.core is not None
        awake = None
        if self.isolate:
            awake = awake_here()
            if awake:
                self._pause_others(awake)
            # CPU since the bot's last answer counts too: it may run on until another bot is asked (the CPU
            # clock of a process without a cgroup counts from its first answer, as before it only waited to start)
            cpu_before = timing.mark if cgroup_clock or timing.mark else self.cpu_ns()
            # RLIMIT_CPU's backstop, moved up (rarely) when this decision may use more; ceil(x) > n is x > n
            if timing.cpu and (cpu_before - timing.origin) / 1e9 + limit_ms / 1000 > self.cpu_backstop_s:
                needed = sandbox_limits.cpu_backstop_seconds(cpu_before - timing.origin, limit_ms)
                self.cpu_backstop_s = sandbox_limits.move_cpu_backstop(launcher.limited_pid(), needed)
        else:
            cpu_before = self.cpu_ns()
        began = time.perf_counter()
        self._send(message, began + limit_ms * timing.wall_factor / 1000, awake)
        # a line can be here already only if the bot wrote while a long message was being written
        line = channel.line() if channel.buffer else None
        wait_s = max(limit_ms / 2000, 0.001)  # the first wait: half the limit (nothing is measured before it)
        while line is None:
            news = channel.pump(wait_s)
            if news == STDOUT:
                raise self._crash("closed its standard output")
            if news == EXTRA:
                self._heard()
            line = channel.line()
            if line is None:  # no whole line yet: the clocks say how long it may still take
                if len(channel.buffer) > MAX_LINE:
                    self._stop()
                    error = BotMalformed(f"{what}: a reply longer than {MAX_LINE} bytes without a newline")
                    error.stops_seat = True
                    raise error
                cpu_ms = (self.cpu_ns() - cpu_before) / 1e6
                wall_ms = (time.perf_counter() - began) * 1000
                charged = timing.charged(cpu_ms, wall_ms)
                if charged > limit_ms:
                    raise self._timeout(what, cpu_ms, wall_ms, limit_ms, answered=False)
                wait_s = max((limit_ms - charged) / 2000, 0.001)
        timing.mark = mark = timing.cpu_ns(cgroup, launcher.cell)
        cpu_ms = (mark - cpu_before) / 1e6
        wall_ms = (time.perf_counter() - began) * 1000
        # seen computing between its turns: frozen between them from now on, from the next bot's turn on
        if cgroup_clock and self.freezer.judge(timing.unexplained_ns(wall_ms)) and awake is not None:
            awake.add(self)
        used = timing.charged(cpu_ms, wall_ms)
        if used > limit_ms:
            raise self._timeout(what, cpu_ms, wall_ms, limit_ms, answered=True)
        try:
            return orjson.loads(line), used
        except ValueError:
            channel.resync = True
            raise BotMalformed(cap_detail(f"{what}: not one JSON object on one line: {line[:120]!r}")) from None

    def _timeout(self, what: str, cpu_ms: float, wall_ms: float, limit_ms: float, answered: bool) -> BotTimeout:
        error = self.timing.timeout(what, cpu_ms, wall_ms, limit_ms, answered)
        self.clock = error.clock or self.clock
        self._stop()
        return error

    # -- the adapter protocol --

    def start(self, info: dict[str, Any], limit_ms: float) -> None:
        """Send ``start`` (starting the process afresh if it is not running) and wait for ready."""
        if not self.running:
            if self.launcher.process is not None or self.launcher.cell is None:
                self._end_game()  # a bot that ended (crashed) unseen; a template's ended its game in finish_game
            self._spawn()
            if self.launcher.error:
                self.healthy = False
                raise BotCrashed(cap_detail(self.launcher.error))
        else:
            self.stderr_capture.new_game()
        self.healthy = True
        self.clock = "cpu" if self.has_cpu_clock else "wall"
        reply, _ = self._exchange(info, limit_ms, "start")
        if reply != READY:
            raise BotMalformed(f'start: expected {{"type": "ready"}}, got {str(reply)[:120]}')

    def decide(self, request: dict[str, Any], limit_ms: float) -> tuple[Any, float]:
        """Send the ``decide`` message and return the bot's reply and the time charged (ms)."""
        if self.launcher.process is None:
            raise BotCrashed("is not running")
        full = getattr(request, "full", None)
        message = full() if full is not None else request
        return self._exchange(message, limit_ms, message["decision"])

    def end(self, info: dict[str, Any]) -> None:
        """Send ``end`` (no reply expected); a bot already gone is restarted for its next game."""
        if self.process is None:
            return
        try:
            self._send(info, time.perf_counter() + self.limits.move_ms * self.wall_factor / 1000)
        except (BotCrashed, BotTimeout):
            pass

    def __repr__(self) -> str:
        state = "running" if self.running else "stopped"
        return f"<ProcessBot {self.name} {state} pid={self.pid}>"
