"""The seat adapter for a bot in a process of its own: JSON lines over pipes, time, faults, restarts.

:class:`ProcessBot` follows the adapter protocol of :class:`arena.match.InProcessBot`
(``start``, ``decide``, ``end``, ``close``, ``healthy``, ``clock``). It writes
one JSON object per line to the bot's stdin and reads one per line from its
stdout, never blocking (:mod:`arena.sandbox.channel`), so a bot can stall
neither the runner nor itself.

Time: a decision may use ``limit_ms`` (move time plus what is left of the
bank) of the bot's CPU time (:mod:`arena.sandbox.clock`); between its
decisions the bot is stopped (:mod:`arena.sandbox.freezer`). A new process
gets the jail of its :class:`~arena.sandbox.jailspec.JailSpec`.

A Python bot's games are forked from a *template* that imported it
(:mod:`arena.sandbox.host`), which runs the bot's code and so is not
trusted: what it says is checked (:mod:`arena.sandbox.control`), it runs
only from a request until its answer, charged to its bot (its own cgroup
cell), and each game's bot is checked from outside before its game
(:mod:`arena.sandbox.audit`). Anything wrong is a crash of the seat, never a
failed game.

A bot that times out or crashes is killed with every process it started; it
is started afresh for the next game (``start`` respawns it; ``SeatPool``
replaces it because ``healthy`` is false).
"""

from __future__ import annotations

import logging
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

import orjson

from arena.errors import BotCrashed, BotMalformed, BotTimeout
from arena.match import Limits
from arena.sandbox import audit
from arena.sandbox.control import CONTROL_BYTES, ControlError, TemplateProtocol
from arena.sandbox.channel import EXTRA, MAX_LINE, STDERR, STDIN, STDOUT, LineChannel
from arena.sandbox.clock import WALL_FACTOR, BotClock
from arena.sandbox.freezer import Freezer, TemplateCell, awake_here, usage_ns
from arena.sandbox.jailspec import JailSpec
from arena.sandbox.kernel import pid_of
from arena.sandbox import limits as sandbox_limits
from arena.sandbox.cgroups import BotCgroup
from arena.sandbox.jail import HOME, covered
from arena.safetext import cap_detail
from arena.sandbox.output import StderrCapture
from arena.sandbox.probe import Protections
from arena.sandbox.probe import protections as detected_protections

#: Environment variables a bot inherits from the runner; nothing else (no tokens).
INHERITED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "NODE_PATH")
DUMP_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_APPEND_NEWLINE
READY = {"type": "ready"}
#: what a game's bot forked by a template writes once its jail is made, before it reads anything
JAILED = b'{"type":"jailed"}\n'
#: the name of a working folder on the host (only a bot without a private root has one): WORK_PREFIX + PID-...
WORK_PREFIX = "arena-bot-"
_swept = False  # this process removed the working folders of runners that are gone

_uids: sandbox_limits.UidPool | None = None


def _uid_pool() -> sandbox_limits.UidPool:
    """This process's pool of bot user ids (a forked worker makes its own)."""
    global _uids
    if _uids is None or _uids.owner != os.getpid():
        _uids = sandbox_limits.UidPool()
    return _uids


def work_folder() -> str:
    """A new working folder for a bot without a private root: ``arena-bot-PID-*`` in the temporary folder,
    PID this process's. The first call of a process removes such folders of processes that are gone (a runner
    killed with SIGKILL cannot remove its own)."""
    global _swept
    base = tempfile.gettempdir()
    if not _swept:
        _swept = True
        for name in os.listdir(base):
            pid = name[len(WORK_PREFIX):].partition("-")[0]
            if name.startswith(WORK_PREFIX) and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{os.getpid()}-", dir=base)


def bot_environment(home: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
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


class ForkedGame:
    """A game's bot forked by a template (:mod:`arena.sandbox.host`): what the adapter needs of a ``Popen``.

    ``pid`` is the bot (process 1 of its own PID namespace, the template's
    child); its exit status comes from the template over the control socket.
    """

    def __init__(self, owner: "ProcessBot", number: int, pid: int, pidfd: int | None = None) -> None:
        self.owner = owner
        self.number = number
        self.pid = pid
        self.returncode: int | None = None
        # signalled through a pidfd (the template's, or one opened now): never another process that got its id
        self.pidfd = pidfd
        if pidfd is None:
            try:
                self.pidfd = os.pidfd_open(pid)
            except (OSError, AttributeError):
                pass

    def bot(self) -> int:
        """The bot's pid."""
        return self.pid

    def kill(self) -> None:
        """SIGKILL the bot (nothing if it is gone)."""
        try:
            if self.pidfd is not None:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            else:
                os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass

    def close(self) -> None:
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.owner._read_control(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """The bot's exit status, which its template reports (let run meanwhile: it reaps its games)."""
        limit = 30 if timeout is None else timeout
        deadline = time.monotonic() + limit
        cell = self.owner.cell
        try:
            while self.returncode is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise subprocess.TimeoutExpired("bot", limit)
                if cell is not None:
                    cell.free()
                self.owner._read_control(remaining)
        finally:
            if self.owner.cell is not None and self.owner.cell is cell:
                self.owner._hold_template()
        return self.returncode


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

    Between games the adapter keeps its process (``reuse``) or ends it
    (:meth:`finish_game`: a template keeps only the template).
    """

    def __init__(self, name: str, argv: list[str], limits: Limits, *, isolate: bool = True,
                 cwd: str | None = None, env: dict[str, Any] | None = None,
                 protections: Protections | None = None, readable: list[str] | None = None,
                 template: bool = False) -> None:
        self.name = name
        self.argv = list(argv)
        self.limits = limits
        self.isolate = isolate
        self.cwd = cwd
        self.extra_env = env
        self.protections = protections or detected_protections()
        self.readable = readable if isolate and self.protections.filesystem else None
        self.template = template and isolate and self.protections.fork_template
        self.keep = covered(self.readable or [])  # read-only paths under the scratch, bound again in every game
        self.timing = BotClock(self.protections.cpu_clock)
        self.clock = "cpu" if self.has_cpu_clock else "wall"  # the clock of its last timeout (Seat protocol)
        self.healthy = True
        self.freezer = Freezer(self.isolate)
        self.stderr_capture = StderrCapture(logging.getLogger(f"arena.bot.{name}"))
        self.process: Any = None
        self.cgroup: BotCgroup | None = None
        self.template_process: subprocess.Popen[bytes] | None = None
        self.pending: tuple[int, list[int]] | None = None  # a game asked of the template: its number, our pipe ends
        self.replies: dict[int, dict[str, Any]] = {}  # the template's messages, by game number
        self.spawn_error: str | None = None
        self.workdir: str | None = None  # a host working folder (only without a private root)
        self.protocol = TemplateProtocol()  # what the template said so far
        self.template_fault: str | None = None  # how the template broke the protocol (its seat's crash)
        self.cell: TemplateCell | None = None  # the template's own cgroup, with cgroups
        self.ahead_marks: dict[int, int] = {}  # the CPU time of a game's slot when its bot was asked for
        self.template_mark = 0  # the template's CPU time when its last game ended (or when it was ready)
        self.template_marks: audit.TemplateMarks | None = None  # what its games must not share with it
        self.games = 0
        if self.template:  # the template starts now and forks the first game's bot, collected by ``start``
            self._ask_fork()
        else:
            self._spawn()

    # -- the process --

    def _preexec(self, uid: int | None) -> Callable[[], None]:
        """The sandbox of a new process (:class:`JailSpec`): limits, own user, namespaces, private root, cgroups."""
        self.jail = JailSpec.for_bot(self.limits, uid=uid, namespaces=self.protections.namespaces,
                                     readable=self.readable, needed=self._paths_needed,
                                     cgroup_files=self.cgroup.join_files if self.cgroup else [],
                                     forks_games=self.template)
        self.cpu_backstop_s = self.first_backstop_s = self.jail.cpu_seconds
        return self.jail.preexec()

    def _work_folder(self) -> str | None:
        """The host folder the bot works in; None when it gets a private root (its home is in its scratch there,
        so a runner killed with SIGKILL leaves nothing of it on the host)."""
        return None if self.readable is not None else work_folder()

    def _new_cgroup(self) -> None:
        if self.isolate and self.protections.cgroups:
            try:
                self.cgroup = BotCgroup(self.limits.memory_mb, sandbox_limits.MAX_TASKS)
            except OSError:
                self.cgroup = None

    def _spawn(self) -> None:
        """Start the process, or fork a game from the template (a failure is kept and reported by ``start``)."""
        self.stderr_capture.new_game()
        self.spawn_error = None  # a new attempt (after a failed one, the template is started afresh)
        if self.template:
            self._fork_game()
            return
        self.workdir = self._work_folder()
        self.uid = None
        preexec: Callable[[], None] = sandbox_limits.die_with_parent  # unjailed too: never outlives the runner
        if self.isolate:
            if self.protections.own_user:
                self.uid = _uid_pool().take()
                if self.workdir:
                    os.chown(self.workdir, self.uid, self.uid)
            self._new_cgroup()
            preexec = self._preexec(self.uid)
        self.forks = self.isolate and self.protections.namespaces
        home = self.workdir or HOME
        try:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, cwd=self.cwd or self.workdir or "/", env=bot_environment(home, self.extra_env),
                start_new_session=True, close_fds=True, preexec_fn=preexec)
        except (OSError, subprocess.SubprocessError) as error:
            self.spawn_error = f"cannot start {self.argv[0]!r}: {getattr(error, 'strerror', None) or error}"
            self._cleanup()
            return
        self.spawn_error = None
        self._take_pipes(self.process.stdin.fileno(), self.process.stdout.fileno(), self.process.stderr.fileno())
        self.pid = self._bot_pid()
        self.timing.watch(self.pid)
        self.timing.mark = self.timing.origin = 0

    def _take_pipes(self, stdin: int, stdout: int, stderr: int) -> None:
        self.channel = LineChannel(stdin, stdout, stderr, self.stderr_capture)

    # -- the template and its games --

    def _start_template(self) -> None:
        """Start the template (``host.py`` with ``template``), in the sandbox; it says when it imported the bot."""
        self.workdir = self._work_folder()
        self.uid = _uid_pool().take() if self.protections.own_user else None
        if self.uid is not None and self.workdir:
            os.chown(self.workdir, self.uid, self.uid)
        self._new_cgroup()
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.control.setblocking(False)  # a template that reads no request cannot hold the runner in a send
        self.template_fault = None
        self.template_marks = None
        self.protocol = TemplateProtocol()
        self.control_poll = select.poll()
        self.control_poll.register(self.control, select.POLLIN)
        output_r, output_w = os.pipe()
        env = bot_environment(self.workdir or HOME, self.extra_env)
        env["ARENA_CONTROL_FD"] = str(theirs.fileno())
        try:
            self.template_process = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=output_w, stderr=output_w,
                cwd=self.cwd or self.workdir or "/",
                env=env, start_new_session=True, close_fds=True, pass_fds=(theirs.fileno(),),
                preexec_fn=self._preexec(self.uid))
        except (OSError, subprocess.SubprocessError) as error:
            self.spawn_error = f"cannot start the template of {self.name}: {error}"
            return
        finally:
            theirs.close()
            os.close(output_w)
        self.template_output = output_r
        os.set_blocking(output_r, False)
        self.forks = True
        self.template_pid = self._children_of(self.template_process.pid, wait=True) or self.template_process.pid
        if self.cgroup is not None and self.cgroup.core:
            try:
                self.cell = TemplateCell(self.cgroup, self.template_pid)
            except OSError as error:
                self.spawn_error = f"cannot confine the template of {self.name}: {error}"
                self._close_template()

    def _drain_template_output(self) -> None:
        while True:
            try:
                chunk = os.read(self.template_output, 65536)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self.stderr_capture.feed(chunk)

    def _control_message(self, timeout: float) -> dict[str, Any] | None:
        """The next message of the template (None after ``timeout`` seconds, or when it is gone or broke
        the protocol: then :attr:`template_fault` says how, and the template and its games are killed).

        Messages about games are also kept in ``self.replies`` by game number
        (the template's answers about several games can interleave).
        """
        if self.template_process is None or not self.control_poll.poll(max(timeout, 0) * 1000):
            return None
        try:
            data, fds, flags, _ = socket.recv_fds(self.control, CONTROL_BYTES, 1)
        except BlockingIOError:
            return None
        except OSError:
            data, fds, flags = b"", [], 0  # it is gone (a reset: it left a request unread)
        if not data and not self.protocol.ready:
            return None  # it ended before it was ready: the import failed, its stderr says why
        try:
            message = self.protocol.check(data, fds, flags)
        except ControlError as error:
            for fd in fds:
                os.close(fd)
            self._template_broke(str(error))
            return None
        if fds:  # the pidfd of a game's bot, with its "forked" message
            message["pidfd"] = fds[0]
        if message.get("ready"):
            self._drain_template_output()
            self.template_mark = self.cell.cpu_ns() if self.cell is not None else 0  # importing is free
            others = self._template_company()
            if others:
                self._template_broke(f"ready with {others} started at import (refused: a template must run "
                                     "nothing between games)")
                return None
        if "game" in message:
            self.replies.setdefault(message["game"], {}).update(message)
            if message["game"] == self.games and ("forked" in message or "error" in message):
                self._hold_template(check=False)  # it answered the last request: nothing to do until the next
                if self.template_fault is not None:
                    return None
        return message

    def _template_company(self) -> str:
        """What runs beside the template's one thread, in its cell or its keeper's cgroup ("" when nothing):
        threads or processes it started at import would compute between games, and are refused. With
        ``[limits] threads`` above one, a numeric library's threads are let be (a thread cannot leave its
        process's cgroup: they are frozen and charged with the template); processes never are."""
        try:
            threads = len(os.listdir(f"/proc/{self.template_pid}/task")) - 1 if self.limits.threads <= 1 else 0
        except OSError:
            return ""
        processes = 0
        if self.cell is not None and self.cgroup is not None:
            try:
                keeper = self.template_process.pid if self.template_process is not None else 0
                processes = len(set(self.cell.members()) - {self.template_pid}) + len(
                    set(self.cgroup.pids_inside()) - {keeper})
            except OSError:
                pass
        parts = [f"{count} {one if count == 1 else many}" for count, one, many in (
            (threads, "thread", "threads"), (processes, "process", "processes")) if count]
        return " and ".join(parts)

    def _template_broke(self, what: str, sent: bool = True) -> None:
        """The template sent ``what`` where the protocol allows none (or, not ``sent``: ``what`` says what it
        did): a crash of this seat (kill the template and its game; the next game starts a new template)."""
        self.template_fault = cap_detail(f"its template sent {what}" if sent else what)
        game = self.process if isinstance(self.process, ForkedGame) else None
        self._close_template()
        if game is not None and game.returncode is None:
            game.returncode = -signal.SIGKILL

    def _read_control(self, timeout: float) -> None:
        """Take the template's messages for ``timeout`` seconds at most: a game's exit status."""
        message = self._control_message(timeout)
        if message is None:
            if not self._template_alive():  # gone, or killed for breaking the protocol: its games with it
                if self.process is not None and self.process.returncode is None:
                    self.process.returncode = -signal.SIGKILL
            return
        if self.process is not None and "exited" in self.replies.get(self.process.number, {}):
            self.process.returncode = self.replies.pop(self.process.number)["exited"]

    @staticmethod
    def _children_of(pid: int, wait: bool = False) -> int | None:
        """The newest child of ``pid`` (as this runner sees it), waiting up to 5 s for one with ``wait``."""
        deadline = time.monotonic() + (5 if wait else 0)
        while True:
            try:
                with open(f"/proc/{pid}/task/{pid}/children", "rb") as handle:
                    pids = handle.read().split()
            except OSError:
                return None
            if pids:
                return int(pids[-1])
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.0002)

    def _fork_game(self) -> None:
        """A fresh bot for this game, forked from the template (started first if need be).

        Each game's bot is asked for one game ahead, right after the previous
        one was collected: it is made while that game plays (in the other
        cgroup slot: nothing of it is counted in that game's time), and waits,
        reading nothing and running none of the bot's code, until its own
        game. Here it is collected (the first game's, while the template starts).
        """
        if self.pending is None:
            self._ask_fork()
        if self.spawn_error:
            return
        assert self.pending is not None  # _ask_fork asked, or failed with spawn_error
        number, ours = self.pending
        self.pending = None
        self._resume()  # the template (and the bot made ahead) may have been frozen with the last game
        self._await_template(number, ("forked", "error"))
        self._check_game(number, ours)
        reply = self.replies.get(number, {})
        for old in [game for game in self.replies if game < number]:
            self._forget(old)  # earlier games' late exit statuses: nobody asks for them any more
        # the bot's id as this runner sees it, read from the pidfd the template sent with it (never from the
        # template's list of children, which misses a child while another one exits)
        pidfd = reply.pop("pidfd", None)
        pid = pid_of(pidfd) if "forked" in reply and pidfd is not None else None
        if not pid and pidfd is not None:
            os.close(pidfd)
            pidfd = None
        if not pid and "forked" in reply:  # its bot is gone already: say why, if it said
            end = time.monotonic() + 1
            while not {"error", "exited"} & set(self.replies.get(number, {})) and time.monotonic() < end \
                    and self.template_fault is None:
                if self._control_message(max(end - time.monotonic(), 0)) is None and not self._template_alive():
                    break
            reply = self.replies.get(number, {})
            if "exited" in reply and "error" not in reply:
                reply["error"] = f"the game's bot exited with status {reply['exited']} before the game"
        if not pid:
            for fd in ours:
                os.close(fd)
            self.spawn_error = (reply or {}).get("error") or f"the template of {self.name} did not fork a game"
            if self.template_fault:
                self.spawn_error = self.template_fault
            elif not self.protocol.ready:
                self._drain_template_output()
                last = self.stderr_capture.last_line()
                self.spawn_error = "the template could not import the bot" + (f"; stderr: {last}" if last else "")
            self._close_template()
            return
        self.spawn_error = None
        self.process = ForkedGame(self, number, pid, pidfd)
        if self.cgroup and self.cgroup.slots:
            self.cgroup.use_slot(number)
        self._take_pipes(*ours)
        # what the template says during the game is read at once: a game's end, or a broken protocol (a crash)
        self.channel.watch(self.control.fileno())
        self.pid = pid
        self.timing.watch(pid)
        # what the bot used since it was forked (its jail, anything it did before its game) counts in its start,
        # and what the template uses from now on (forking the next game's bot) in this game's
        self.timing.mark = self.timing.origin = self.cpu_ns() if self.cgroup and self.cgroup.core else 0
        ahead = self.ahead_marks.pop(number, None)
        if ahead is not None and self.cell is not None:
            self.timing.mark = self.timing.origin = ahead + self.template_mark
        self.cpu_backstop_s = self.first_backstop_s  # the game's bot has the template's limit, and no CPU time yet
        self._ask_fork()  # the next game's bot: forked now, frozen in its slot until its game

    def _ask_fork(self) -> None:
        """Send the template the pipes of a new game (starting the template first if need be)."""
        if not self._template_alive():
            self._close_template()
            self._start_template()
            if self.spawn_error:
                return
        self.games += 1
        pipes = [os.pipe() for _ in range(3)]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        self._resume()
        if self.cell is not None:
            self.cell.free()  # until it answers (its CPU counted against its bot, as it goes)
        self.protocol.asked(self.games)
        request = {"game": self.games, "memory_mb": self.limits.memory_mb, "keep": self.keep}
        slot = []
        if self.cgroup and self.cgroup.core:
            self.cgroup.open_slots(self.uid)
            slot = self.cgroup.slot_fds(self.games)
            self.ahead_marks = {self.games: usage_ns(self.cgroup.slots[self.games % 2]["cpu"])}
        try:
            socket.send_fds(self.control, [orjson.dumps(request)], theirs + slot)
        except OSError:
            pass  # the template is gone: collecting the answer says so
        for fd in theirs:
            os.close(fd)
        self.pending = (self.games, ours)

    def _check_game(self, number: int, ours: list[int]) -> None:
        """Once game ``number``'s bot says its jail is made (on its stdout, of ``ours``: the runner's ends of
        its pipes), check from outside that it holds nothing of its template (:mod:`arena.sandbox.audit`):
        the template's code, which made that jail, is the bot's. A bot that holds something is a crash of this
        seat (its template is killed with it)."""
        reply = self.replies.get(number, {})
        pid = pid_of(reply["pidfd"]) if "pidfd" in reply else None
        if not pid or self.template_fault is not None:
            return  # gone already: collecting it says why
        problem = self._await_jail(ours[1])
        if not problem:
            self._hold_template()
            try:
                if self.template_marks is None:
                    self.template_marks = audit.TemplateMarks.of(self.template_pid, self.readable is not None)
                pipes = {(status.st_dev, status.st_ino) for status in map(os.fstat, ours)}
                held = audit.held_from_template(pid, self.template_marks, pipes)
            except OSError:
                held = ""  # the bot is gone (its start says so), or /proc cannot be read here
            if held:
                problem = f"its game's bot held {held} of its template (its template changed the jail)"
        if problem and self.template_fault is None:
            self._template_broke(problem, sent=False)

    def _await_jail(self, stdout: int) -> str:
        """Read the line a game's bot writes once its jail is made (never more than that line, which is not
        the game's); what is wrong ("" when nothing, or when the bot is gone: its start says why)."""
        got = b""
        allowed = self.limits.start_ms * WALL_FACTOR / 1000 + 5
        deadline = time.monotonic() + allowed
        while len(got) < len(JAILED):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return f"its game's bot made no jail within {allowed:.0f} s"
            if not select.select([stdout], [], [], remaining)[0]:
                continue
            try:
                chunk = os.read(stdout, len(JAILED) - len(got))
            except BlockingIOError:
                continue
            if not chunk:
                return ""
            got += chunk
        if got != JAILED:
            return f"its game's bot wrote {got!r} before its game, not that its jail was made"
        return ""

    def _hold_template(self, check: bool = True) -> None:
        """Freeze the template until the runner waits on it again; with ``check``, it must still be alone in
        its cell (it may write its keeper's ``cgroup.procs``, which its forks need: leaving for it would leave
        it unfrozen; checked once a game, before the game's bot is checked)."""
        if self.cell is None:
            return
        self.cell.hold()
        if not check or not self.protocol.ready or not self._template_alive():
            return  # it is gone: what it said before it went (an import that failed) is what counts
        try:
            alone = self.cell.members() == [self.template_pid]
        except OSError:
            alone = False
        company = self._template_company()
        if not alone or company:
            self._template_broke(f"nothing, but left its cgroup or ran beside {company or 'itself'}")

    def _await_template(self, number: int, words: tuple[str, ...]) -> None:
        """Let the template run until it says one of ``words`` about game ``number`` (or breaks, ends, or
        takes longer than a start may); it stays free (a caller holds it again)."""
        if self.cell is not None and not set(words) & set(self.replies.get(number, {})):
            self.cell.free()
        deadline = time.monotonic() + self.limits.start_ms * WALL_FACTOR / 1000 + 5
        while not set(words) & set(self.replies.get(number, {})) and time.monotonic() < deadline:
            if self._control_message(max(deadline - time.monotonic(), 0)) is None:
                break

    def _template_alive(self) -> bool:
        return self.template_process is not None and self.template_process.poll() is None

    def _forget(self, number: int) -> None:
        """Drop what the template said about game ``number`` (closing its bot's pidfd, if unused)."""
        pidfd = self.replies.pop(number, {}).get("pidfd")
        if pidfd is not None:
            os.close(pidfd)

    def _close_template(self) -> None:
        """End the template and all its games; remove its cgroup."""
        for number in list(self.replies):
            self._forget(number)
        if self.pending is not None:
            for fd in self.pending[1]:
                os.close(fd)
            self.pending = None
        if self.template_process is not None:
            try:
                os.kill(self.template_pid, signal.SIGKILL)
            except OSError:
                pass
            try:
                os.killpg(self.template_process.pid, signal.SIGKILL)
            except OSError:
                pass
            if self.cgroup:
                self.cgroup.kill()
            self.template_process.wait()
        if self.cell is not None:
            self.cell.close()
            self.cell = None
        self.ahead_marks = {}
        if self.template_process is not None:
            self.template_process = None
            if self.process is not None:
                self.channel.unwatch()
            self.control.close()
            os.close(self.template_output)
        if self.cgroup:
            self.cgroup.remove()
            self.cgroup = None
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None
        uid = getattr(self, "uid", None)
        if uid is not None:
            _uid_pool().give_back(uid)
            self.uid = None

    def _paths_needed(self) -> list[str]:
        """What a bot with its own user id must reach: the runner's Python, its cwd, its program's files."""
        program = shutil.which(self.argv[0]) or self.argv[0]
        paths = [sys.executable, os.path.realpath(sys.executable), sys.prefix, sys.base_prefix,
                 *sys.path, self.workdir, self.cwd or self.workdir, program, os.path.realpath(program)]
        return [path for path in paths + self.argv[1:] if path and os.path.exists(path)]

    def _bot_pid(self) -> int:
        """The bot's own pid: its keeper's child when there is a PID namespace (see ``become_process_one``)."""
        if not self.forks:
            return int(self.process.pid)
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
        return int(self.process.pid)

    def _limited_pid(self) -> int:
        """The process whose RLIMIT_CPU backstops the bot: the bot itself (a forked game's, not its keeper)."""
        if isinstance(self.process, ForkedGame):
            return self.process.bot() or self.pid
        return int(self.pid)

    @property
    def frozen(self) -> bool:
        """Whether the bot's processes are stopped now (between its decisions)."""
        return self.freezer.frozen(self.cgroup)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

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
        return self.timing.cpu_ns(self.cgroup, self.cell)

    def _pause(self) -> None:
        """Stop every process of the bot until it is asked again (:class:`Freezer`)."""
        awake_here().discard(self)
        self.freezer.pause(self.cgroup, self.cell, self.pid if self.process is not None else None)

    def _resume(self) -> None:
        """Let the bot run; it stays awake after answering until another bot of this thread is asked."""
        if self.isolate:
            awake_here().add(self)
        self.freezer.resume(self.cgroup, self.cell)

    def _pause_others(self) -> None:
        """Stop the bots of this thread's game left awake after their answers, before this one is asked."""
        awake = awake_here()
        for bot in [bot for bot in awake if bot is not self]:
            if bot.process is None:
                awake.discard(bot)
            else:
                bot._pause()

    def _kill(self) -> None:
        """SIGKILL the bot and everything it started, and reap it.

        In a PID namespace the bot is its process 1: killing it ends the whole
        namespace (and its keeper, if it has one, exits once that is done). Otherwise the bot's
        process group dies, and as root every process of the bot's user id.
        """
        if self.process is None:
            return
        if isinstance(self.process, ForkedGame):
            # SIGKILL to the game's process 1 ends its PID namespace; not waited for (the template reaps it
            # and reports its status later), so the next game's fork is not held up
            if self.process.returncode is None:
                self.process.kill()
            return
        if self.cgroup is not None:
            self.cgroup.kill()
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
        """Release what the process held: pipes, selector, work folder, user id, cgroup (a template's stay)."""
        awake_here().discard(self)
        if self.process is not None:
            self.channel.close(descriptors=isinstance(self.process, ForkedGame))
            if isinstance(self.process, ForkedGame):
                self.process.close()
            else:
                for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
                    try:
                        pipe.close()
                    except OSError:
                        pass
            self.timing.unwatch()
            self.process = None
        if self.template:
            return
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None
        if self.uid is not None:
            _uid_pool().give_back(self.uid)
            self.uid = None

    def finish_game(self) -> None:
        """End this game's process (and everything it started); a template stays, forking the next game's bot."""
        self._end_game()
        if self.template and self.pending is None and self.template_process is not None:
            self._ask_fork()  # the next game's bot, made while the runner does other work

    def _end_game(self) -> None:
        if self.cell is not None:  # what the template uses from now on counts in its next game's start
            try:
                self.template_mark = self.cell.cpu_ns()
            except (OSError, ValueError, IndexError):
                pass
        if self.process is not None:
            if not self.template:
                self._resume()  # a frozen game's processes die frozen (cgroup v2); a stopped group needs SIGCONT
            self._drain_stderr()
        self._kill()
        self._cleanup()
        if self.cell is not None:
            self._pause()  # the template waits frozen for the next game
        self.stderr_capture.end_game()

    def close(self) -> None:
        """Kill the bot's processes (a template too) and free everything (the adapter can still ``start`` again)."""
        self._end_game()
        if self.template:
            self._close_template()

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

    def _send(self, message: dict[str, Any], deadline: float) -> None:
        """Write ``message`` and let the bot run: written first while it is stopped, so that one wake-up
        finds it (a message longer than the pipe holds is finished once the bot runs)."""
        data = memoryview(orjson.dumps(message, option=DUMP_OPTIONS))
        try:
            data = self.channel.write(data)
        except OSError:
            self._resume()
            raise self._crash("closed its standard input") from None
        self._resume()
        while data:
            try:
                data = self.channel.write(data)
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
            elif what == EXTRA and not self._template_heard():
                raise self._crash("ended during the game")

    def _template_heard(self) -> bool:
        """Take what the template said during a game; False when its game is over (it ended, or the template
        broke the protocol and was killed with it)."""
        self._read_control(0)
        return self.process is not None and self.process.returncode is None

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
            elif status < 0 or status == 128 + signal.SIGKILL:
                detail = f"was killed by {_signal_name(-status if status < 0 else signal.SIGKILL)}"
                if self.cgroup is not None and self.cgroup.memory_kills():
                    detail += f" (over its memory limit of {self.limits.memory_mb} MB)"
            else:
                detail = f"exited with status {status}"
            self._kill()
            self._drain_stderr()
        else:
            detail = what
        if self.template_fault:
            detail = self.template_fault
        detail += self._last_words()
        self._stop()
        return BotCrashed(detail)

    def _exchange(self, message: dict[str, Any], limit_ms: float, what: str) -> tuple[Any, float]:
        """Send ``message``, read one reply line within ``limit_ms``; the parsed reply and the time charged."""
        channel = self.channel
        if channel.resync:
            channel.discard_stale()
        if self.isolate:
            self._pause_others()
        # CPU since the bot's last answer counts too: it may run on until another bot is asked (the CPU
        # clock of a process without a cgroup counts from its first answer, as before it only waited to start)
        cgroup_clock = self.cgroup is not None and self.cgroup.core
        timing = self.timing
        cpu_before = timing.mark if cgroup_clock or (self.isolate and timing.mark) else self.cpu_ns()
        if self.isolate and self.has_cpu_clock:
            needed = sandbox_limits.cpu_backstop_seconds(cpu_before - timing.origin, limit_ms)
            if needed > self.cpu_backstop_s:
                self.cpu_backstop_s = sandbox_limits.move_cpu_backstop(self._limited_pid(), needed)
        began = time.perf_counter()
        wall_cap = began + limit_ms * self.wall_factor / 1000
        self._send(message, wall_cap)
        waited = False
        while True:
            line = channel.line()
            if line is not None:
                break
            if len(channel.buffer) > MAX_LINE:
                self._stop()
                error = BotMalformed(f"{what}: a reply longer than {MAX_LINE} bytes without a newline")
                error.stops_seat = True
                raise error
            cpu_ms = (self.cpu_ns() - cpu_before) / 1e6 if waited else 0.0  # no clock read before the first wait
            wall_ms = (time.perf_counter() - began) * 1000
            charged = timing.charged(cpu_ms, wall_ms)
            if charged > limit_ms:
                raise self._timeout(what, cpu_ms, wall_ms, limit_ms, answered=False)
            wait = max((limit_ms - charged) / 2000, 0.001)
            waited = True
            self._take(channel.wait(wait))
        timing.mark = self.cpu_ns()
        cpu_ms = (timing.mark - cpu_before) / 1e6
        wall_ms = (time.perf_counter() - began) * 1000
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
            self._end_game()
            self._spawn()
            if self.spawn_error:
                self.healthy = False
                raise BotCrashed(cap_detail(self.spawn_error))
        else:
            self.stderr_capture.new_game()
        self.healthy = True
        self.clock = "cpu" if self.has_cpu_clock else "wall"
        reply, _ = self._exchange(info, limit_ms, "start")
        if reply != READY:
            raise BotMalformed(f'start: expected {{"type": "ready"}}, got {str(reply)[:120]}')

    def decide(self, request: dict[str, Any], limit_ms: float) -> tuple[Any, float]:
        """Send the ``decide`` message and return the bot's reply and the time charged (ms)."""
        if self.process is None:
            raise BotCrashed("is not running")
        message = request.full() if hasattr(request, "full") else request
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
        return f"<ProcessBot {self.name} {state} pid={getattr(self, 'pid', None)}>"
