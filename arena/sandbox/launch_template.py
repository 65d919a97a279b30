"""The template launcher: each game's bot is forked from a template that imported a Python bot.

The template (:mod:`arena.sandbox.host` with ``template``) runs the bot's
code, so it is not trusted: what it says is checked (:mod:`arena.sandbox.control`),
it runs only from a request until its answer, charged to its bot (its own
cgroup cell), and each game's bot is checked from outside before its game
(:mod:`arena.sandbox.audit`). Anything wrong is the seat's crash
(:attr:`Launcher.fault`), never a failed game.

Each game's bot is the child of the template's reaper (:mod:`arena.sandbox.reaper`),
not of the template: the reaper tells the runner how each game ended, on a pipe
the template never holds, and the template learns nothing of it. A game's bot
is forked once the previous one is reaped (right after that game, while the
runner does its other work), so that whenever the template runs none of its
games lives: what it could probe of them (``/proc``, ``kill(pid, 0)``, a
pidfd, the next process id) answers the same whatever they did. It is held
then: frozen in its cgroup cell, or, without a cgroup freezer, stopped with
SIGSTOP (:class:`~arena.sandbox.freezer.TemplateStop`); each game's bot is in
a session of its own, so that neither stopping it between its turns nor
anything it signals reaches its template.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import subprocess
import time
from typing import Any, Callable

import orjson

from arena.safetext import cap_detail
from arena.sandbox import audit, reaper, seccomp
from arena.sandbox.clock import WALL_FACTOR
from arena.sandbox.control import CONTROL_BYTES, ControlError, TemplateProtocol
from arena.sandbox.freezer import TemplateCell, TemplateStop, usage_ns
from arena.sandbox.jail import HOME, covered
from arena.sandbox.kernel import PIDFD_TARGET, descriptor_targets, pidfd_ids
from arena.sandbox.launcher import Launcher, bot_environment, uid_pool

#: what a game's bot forked by a template writes once its jail is made, before it reads anything
JAILED = b'{"type":"jailed"}\n'
#: how long a game's bot killed at its game's end may take to be reaped before its template is started afresh
REAP_S = 5
#: how long the end of a game waits for its bot to be reaped, to fork the next one meanwhile
SETTLE_S = 0.05
#: games share their template's network and IPC namespaces where its filter refuses every socket and IPC object
#: (made once per template, not per game: see docs/security.md); benchmarks/jailed.py turns it off to compare
SHARE_NAMESPACES = True


def namespaces_shared() -> bool:
    """Whether a template's games share its network and IPC namespaces here: its system-call filter
    (:data:`arena.sandbox.seccomp.TEMPLATE`, loaded by the runner before the template's first instruction)
    refuses every socket and IPC object to it and all it starts, so that those namespaces stay empty."""
    return SHARE_NAMESPACES and seccomp.refusal() is None


class ForkedGame:
    """A game's bot forked by a template (:mod:`arena.sandbox.host`): what the adapter needs of a ``Popen``.

    ``pid`` is the bot (process 1 of its own PID namespace, the child of its
    template's reaper), ``inner`` its id in its template's namespace; its exit
    status comes from the reaper (:meth:`TemplateLauncher._read_reports`).
    """

    def __init__(self, owner: "TemplateLauncher", number: int, pid: int, pidfd: int | None = None,
                 inner: int = 0) -> None:
        self.owner = owner
        self.number = number
        self.pid = pid
        self.inner = inner
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
            self.owner._read_reports(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        """The bot's exit status, which its reaper reports (the template stays frozen: it reaps nothing)."""
        limit = 30 if timeout is None else timeout
        deadline = time.monotonic() + limit
        while self.returncode is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise subprocess.TimeoutExpired("bot", limit)
            self.owner._read_reports(remaining)
        return self.returncode




def _zombie(pid: int) -> bool:
    """Whether process ``pid`` has ended (a zombie not reaped yet, or gone): it computes nothing."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read()
    except OSError:
        return True
    at = text.rfind(b")")
    return at >= 0 and text[at + 2:at + 3] in (b"Z", b"X", b"x")


def _depth(pid: int) -> int:
    """How many PID namespaces, from this runner's down, process ``pid`` has an id in (0: gone)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            text = handle.read()
    except OSError:
        return 0
    at = text.find(b"\nNSpid:")
    return len(text[at + 7:text.index(b"\n", at + 1)].split()) if at >= 0 else 0


class TemplateLauncher(Launcher[ForkedGame]):
    """Forks each game's bot from a template started once (and again after it broke or ended).

    :param wake: lets the seat's processes run (the template, and a game's bot asked for, may be frozen).
    """

    def __init__(self, *args: Any, wake: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.wake = wake
        self.keep = covered(self.readable or [])  # read-only paths under the scratch, bound again in every game
        self.template_process: subprocess.Popen[bytes] | None = None
        self.template_pid = 0  # the template itself (its reaper's child)
        self.reaper_pid = 0  # its reaper (its keeper's child, process 1 of the template's PID namespace)
        self.reports = -1  # the runner's end of the reaper's pipe: how each game's bot ended
        self.report_poll = select.poll()
        self.report_rest = b""  # a line of the reaper's not read whole yet
        self.events: select.epoll | None = None  # the control socket and the reaper's pipe, watched in a game
        self.awaited = 0  # the id (in the template's namespace) of the last game's bot, killed and not reaped yet
        self.early: dict[int, int] = {}  # statuses of games' bots reaped before they were collected, by that id
        #: what the template's descriptors may refer to once it answered (what it held then, less all it was sent:
        #: None until its first game's check), and what it was sent before that (games' pipes, cgroup slots)
        self.template_targets: set[str] | None = None
        self.sent_targets: set[str] = set()
        self.template_output = -1  # the runner's end of the template's stdout and stderr
        self.control: socket.socket | None = None  # the control socket, the runner's end
        self.control_poll = select.poll()
        self.pending: tuple[int, list[int]] | None = None  # a game asked of the template: its number, our pipe ends
        self.replies: dict[int, dict[str, Any]] = {}  # the template's messages, by game number
        self.protocol = TemplateProtocol()  # what the template said so far
        self.ahead_marks: dict[int, int] = {}  # the CPU time of a game's slot when its bot was asked for
        #: the template's CPU time when its last game ended; 0 for a new template (a new cell): all it used before
        #: its first game (its import, and anything after its ready) counts in that game's start
        self.template_mark = 0
        self.template_marks: audit.TemplateMarks | None = None  # what its games must not share with it
        self.stop: TemplateStop | None = None  # without a cgroup freezer: the template's SIGSTOP while it is held
        self.woken: str | None = None  # why the next game's start is a crash: its last template ran while held
        self.shared_namespaces = namespaces_shared()  # its games may stay in its (empty) network and IPC namespaces
        self.games = 0

    def _start_template(self) -> None:
        """Start the template (``host.py`` with ``template``), in the sandbox; it says when it imported the bot."""
        self.workdir = self._work_folder()
        self.uid = uid_pool().take() if self.protections.own_user else None
        if self.uid is not None and self.workdir:
            os.chown(self.workdir, self.uid, self.uid)
        self._new_cgroup()
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.control.setblocking(False)  # a template that reads no request cannot hold the runner in a send
        self.fault = None
        self.template_marks = None
        self.template_mark = 0  # its new cell counts from zero: the first start of a process includes its start-up
        self.protocol = TemplateProtocol()
        self.control_poll = select.poll()
        self.control_poll.register(self.control, select.POLLIN)
        output_r, output_w = os.pipe()
        reports, report_w = os.pipe()
        env = bot_environment(self.workdir or HOME, self.extra_env)
        env["ARENA_CONTROL_FD"] = str(theirs.fileno())
        # every symbol bound when a library is loaded, in the template: none bound lazily in each game (a write to
        # the library's table, a page copied on write per game); the template takes it out of its environment
        env["LD_BIND_NOW"] = "1"
        try:
            self.template_process = subprocess.Popen(
                self.argv, stdin=subprocess.DEVNULL, stdout=output_w, stderr=output_w,
                cwd=self.cwd or self.workdir or "/",
                env=env, start_new_session=True, close_fds=True, pass_fds=(theirs.fileno(),),
                preexec_fn=self._preexec(self.uid, forks_games=True, report=report_w))
        except (OSError, subprocess.SubprocessError) as error:
            self.error = f"cannot start the template of {self.name}: {error}"
            os.close(reports)
            return
        finally:
            theirs.close()
            os.close(output_w)
            os.close(report_w)
        self.template_output = output_r
        os.set_blocking(output_r, False)
        self.reports = reports
        os.set_blocking(reports, False)
        self.report_poll = select.poll()
        self.report_poll.register(reports, select.POLLIN)
        self.events = select.epoll()
        self.events.register(self.control, select.EPOLLIN)
        self.events.register(reports, select.EPOLLIN)
        self.report_rest, self.awaited, self.early = b"", 0, {}
        self.template_targets, self.sent_targets = None, set()
        self.forks = True
        self.reaper_pid = self._children_of(self.template_process.pid, wait=True) or 0
        self.template_pid = (self._children_of(self.reaper_pid, wait=True) if self.reaper_pid else None) \
            or self.template_process.pid
        try:
            if self.cgroup is not None and self.cgroup.core:
                self.cell = TemplateCell(self.cgroup, self.template_pid)
            else:
                self.stop = TemplateStop(self.template_pid)
        except OSError as error:
            self.error = f"cannot confine the template of {self.name}: {error}"
            self._close_template()

    def _drain_template_output(self) -> None:
        while True:
            try:
                chunk = os.read(self.template_output, 65536)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self.capture.feed(chunk)

    def _control_message(self, timeout: float) -> dict[str, Any] | None:
        """The next message of the template (None after ``timeout`` seconds, or when it is gone or broke
        the protocol: then :attr:`fault` says how, and the template and its games are killed).

        Messages about games are also kept in ``self.replies`` by game number
        (the template's answers about several games can interleave).
        """
        if self.template_process is None or not self.control_poll.poll(max(timeout, 0) * 1000):
            return None
        assert self.control is not None  # made with the template
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
            # not a mark of its CPU time: whenever the runner reads this, the template may have computed since it
            # sent it (or imported at length), and all of that counts in its first game's start
            self._drain_template_output()
            others = self._template_company()
            if others:
                self._template_broke(f"ready with {others} started at import (refused: a template must run "
                                     "nothing between games)")
                return None
        if "game" in message:
            self.replies.setdefault(message["game"], {}).update(message)
            if message["game"] == self.games and ("forked" in message or "error" in message):
                self._hold_template(check=False)  # it answered the last request: nothing to do until the next
                if self.fault is not None:
                    return None
        return message

    def _template_company(self, members: list[int] | None = None, game: int = 0) -> str:
        """What runs beside the template's one thread, in its cell (``members``, when just read) or its keeper's
        cgroup, or without cgroups in its PID namespace beside its game's bot ``game`` ("" when nothing): threads
        or processes it started at import would compute between games, and are refused. With ``[limits]
        threads`` above one, a numeric library's threads are let be (a thread cannot leave its process's cgroup:
        they are frozen and charged with the template; without cgroups SIGSTOP stops them with it); processes
        never are."""
        try:
            # a folder's links: two, and one per thread (one call, no listing)
            threads = os.stat(f"/proc/{self.template_pid}/task").st_nlink - 3 if self.limits.threads <= 1 else 0
        except OSError:
            return ""
        processes = 0
        if self.cell is not None and self.cgroup is not None:
            try:
                keeper = self.template_process.pid if self.template_process is not None else 0
                processes = len(set(self.cell.members() if members is None else members) - {self.template_pid}) + len(
                    set(self.cgroup.pids_inside()) - {keeper, self.reaper_pid})
            except OSError:
                pass
        elif self.stop is not None:
            processes = len(self._namespace_processes(game))
        parts = [f"{count} {one if count == 1 else many}" for count, one, many in (
            (threads, "thread", "threads"), (processes, "process", "processes")) if count]
        return " and ".join(parts)

    def _namespace_processes(self, game: int) -> list[int]:
        """The live processes of the template's PID namespace (ids as this runner sees them) but its reaper, the
        template and its game's bot ``game`` (and what that one started, in a namespace of its own): what the
        template forked. Every process of a PID namespace descends from its process 1 (an orphan is given to
        it), so the reaper's descendants are all of them, whatever they did (``setsid``, a double fork).
        ``game`` 0 (the template said ready, and may have forked its first game's bot already): any process 1
        of a namespace below is let be here, and found at that game's check if it is not its bot."""
        found: list[int] = []
        depth = _depth(self.template_pid) + 1 if not game else 0
        below = [self.reaper_pid] if self.reaper_pid else []
        while below:
            parent = below.pop()
            try:
                threads = os.listdir(f"/proc/{parent}/task")
            except OSError:
                continue  # gone
            for thread in threads:
                try:
                    with open(f"/proc/{parent}/task/{thread}/children", "rb") as handle:
                        children = [int(word) for word in handle.read().split()]
                except OSError:
                    continue
                for child in children:
                    if child != game and not (depth and _depth(child) == depth):
                        below.append(child)
                        if child != self.template_pid and not _zombie(child):
                            found.append(child)
        return found

    def _template_broke(self, what: str, sent: bool = True) -> None:
        """The template sent ``what`` where the protocol allows none (or, not ``sent``: ``what`` says what it
        did): a crash of this seat (kill the template and its game; the next game starts a new template)."""
        self.fault = cap_detail(f"its template sent {what}" if sent else what)
        game = self.process
        self._close_template()
        if game is not None and game.returncode is None:
            game.returncode = -signal.SIGKILL

    def _read_control(self, timeout: float) -> None:
        """Take the template's messages for ``timeout`` seconds at most (during a game there is none to take:
        anything is a broken protocol, a crash)."""
        if self._control_message(timeout) is None and not self._template_alive():
            # gone, or killed for breaking the protocol: its reaper, process 1 of its namespace, and its games with it
            if self.process is not None and self.process.returncode is None:
                self.process.returncode = -signal.SIGKILL
            self.awaited = 0

    def _read_reports(self, timeout: float) -> None:
        """Take what the reaper says for ``timeout`` seconds at most: ``PID STATUS`` for each game's bot it
        reaped (:mod:`arena.sandbox.reaper`). The game being played gets its exit status; the last one, killed at
        its end, is no longer awaited; any other is kept for a game's bot not collected yet."""
        if self.reports < 0:  # no reaper (gone, or the template closed): no game's bot of it lives
            if self.process is not None and self.process.returncode is None:
                self.process.returncode = -signal.SIGKILL
            return
        if not self.report_poll.poll(max(timeout, 0) * 1000):
            return
        try:
            data = os.read(self.reports, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:  # the reaper is gone, its namespace with it: every game's bot of it is dead
            self.report_poll.unregister(self.reports)
            if self.events is not None:
                self.events.unregister(self.reports)
            os.close(self.reports)
            self.reports, self.awaited = -1, 0
            if self.process is not None and self.process.returncode is None:
                self.process.returncode = -signal.SIGKILL
            return
        ended, self.report_rest = reaper.parse(self.report_rest + data)
        process = self.process
        for inner, status in ended:
            if process is not None and inner == process.inner and process.returncode is None:
                process.returncode = status
            elif inner == self.awaited:
                self.awaited = 0
            else:
                self.early[inner] = status

    def _settle(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the last game's bot to be reaped (it was killed at its game's end);
        whether it was (or the template is gone, and all its games with it)."""
        deadline = time.monotonic() + timeout
        while self.awaited and self._template_alive():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            self._read_reports(remaining)
        return True

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

    def launch(self) -> None:
        """A fresh bot for this game, forked from the template (started first if need be).

        Each game's bot is asked for once the previous one is reaped (at the end
        of the previous game, :meth:`after_game`, or here, waiting for that reap
        first): the template runs only while none of its games lives. It is made
        in the other cgroup slot, and waits, reading nothing and running none of
        the bot's code, until its game. Here it is collected (the first game's,
        asked while the template starts).
        """
        self.error = None  # a new attempt (after a failed one, the template is started afresh)
        if self.pending is None and self.woken is None:
            if not self._settle(REAP_S):  # a bot that outlives its kill: start afresh, so the next sees none
                self._close_template()
            self._ask_fork()
        if self.woken is not None:  # its template ran while stopped: ended, this game's start is its crash
            self.error, self.woken = self.woken, None
        if self.error:
            return
        assert self.pending is not None  # _ask_fork asked, or failed with error
        number, ours = self.pending
        self.pending = None
        self.wake()  # the template (and the bot asked for) may have been frozen with the last game
        self._await_template(number, ("forked", "error"))
        self._check_game(number, ours)
        reply = self.replies.get(number, {})
        for old in [game for game in self.replies if game < number]:
            self._forget(old)  # earlier games' answers: nobody asks for them any more
        # the bot's ids as this runner sees it and in its template's namespace, read from the pidfd the template
        # sent with it (never from the template's word, nor its list of children)
        pidfd = reply.pop("pidfd", None)
        ids = pidfd_ids(pidfd) if "forked" in reply and pidfd is not None else None
        pid = ids[0] if ids else None
        inner = ids[-2] if ids and len(ids) > 2 else 0
        if not pid and pidfd is not None:
            os.close(pidfd)
            pidfd = None
        if not pid and "forked" in reply and "error" not in reply:  # its bot is gone already: say how
            claimed = reply["forked"]  # the template's word: only for the message, it decides nothing
            end = time.monotonic() + 1
            while claimed not in self.early and self.reports >= 0 and time.monotonic() < end:
                self._read_reports(max(end - time.monotonic(), 0))
            if claimed in self.early:
                reply["error"] = f"the game's bot exited with status {self.early[claimed]} before the game"
        if not pid:
            for fd in ours:
                os.close(fd)
            self.error = (reply or {}).get("error") or f"the template of {self.name} did not fork a game"
            if self.fault:
                self.error = self.fault
            elif not self.protocol.ready:
                self._drain_template_output()
                last = self.capture.last_line()
                self.error = "the template could not import the bot" + (f"; stderr: {last}" if last else "")
            self._close_template()
            return
        self.error = None
        self.process = ForkedGame(self, number, pid, pidfd, inner)
        if inner in self.early:  # it ended between its jail's check and now
            self.process.returncode = self.early.pop(inner)
        if self.cgroup and self.cgroup.slots:
            self.cgroup.use_slot(number)
        self._take_pipes(*ours)
        # what the template says during the game is read at once: a game's end, or a broken protocol (a crash)
        assert self.channel is not None and self.events is not None
        self.channel.watch(self.events.fileno())
        self.pid = pid
        self.timing.watch(pid)
        # what the bot used since it was forked (its jail, anything it did before its game) counts in its start,
        # and what the template uses from now on (forking the next game's bot) in this game's
        self.timing.mark = self.timing.origin = self.timing.cpu_ns(self.cgroup, self.cell) \
            if self.cgroup and self.cgroup.core else 0
        ahead = self.ahead_marks.pop(number, None)
        if ahead is not None and self.cell is not None:
            self.timing.mark = self.timing.origin = ahead + self.template_mark

    def _ask_fork(self) -> None:
        """Send the template the pipes of a new game (starting the template first if need be); a template that
        ran while it was stopped (:meth:`TemplateStop.free`) is ended instead, and the next game's start is a
        crash (:attr:`woken`): the game after it starts a new template, which never saw a game."""
        if self.stop is not None and self._template_alive() and not self.stop.free():
            self.woken = "its template ran while it was stopped, during its last game (a SIGCONT of its own)"
            self._close_template()
            return
        if not self._template_alive():
            self._close_template()
            self._start_template()
            if self.error:
                return
        self.games += 1
        self.early = {}  # every game's bot before is reaped: ids from now on are this game's
        pipes = [os.pipe() for _ in range(3)]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        if self.cell is not None:
            self.cell.free()  # until it answers (its CPU counted against its bot, as it goes)
        # without a freezer its SIGSTOP ended above: every game's bot of it is reaped, it may run until it answers
        self.wake()  # after free: a cell with a request is stopped with its bot (Freezer.stops)
        self.protocol.asked(self.games)
        request = {"game": self.games, "memory_mb": self.limits.memory_mb, "keep": self.keep,
                   "shared_namespaces": self.shared_namespaces}
        slot = []
        if self.cgroup and self.cgroup.core:
            self.cgroup.open_slots(self.uid)
            slot = self.cgroup.slot_fds(self.games)
            self.ahead_marks = {self.games: usage_ns(self.cgroup.slots[self.games % 2]["cpu"])}
        if self.template_targets is None:  # until its first game is checked: what it must not keep
            self.sent_targets |= {f"pipe:[{os.fstat(fd).st_ino}]" for fd in theirs}
            self.sent_targets |= {os.readlink(f"/proc/self/fd/{fd}") for fd in slot}
        try:
            assert self.control is not None
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
        ids = pidfd_ids(reply["pidfd"]) if "pidfd" in reply else None
        pid = ids[0] if ids else None
        if not pid or self.fault is not None:
            return  # gone already: collecting it says why
        problem = self._await_jail(ours[1])
        if not problem:
            self._hold_template(game=pid)
            try:
                kept = self._kept_descriptors()
                if kept:
                    problem = f"its template kept {kept} it was sent (a game's pipe or cgroup)"
                if self.template_marks is None:
                    self.template_marks = audit.TemplateMarks.of(self.template_pid, self.readable is not None)
                pipes = {(status.st_dev, status.st_ino) for status in map(os.fstat, ours)}
                held = audit.held_from_template(pid, self.template_marks, pipes, shared=self.shared_namespaces)
            except OSError:
                held = ""  # the bot is gone (its start says so), or /proc cannot be read here
            if not problem and self.stop is not None:
                # the game's bot is stopped between its turns by its process group, which must not be its template's
                # (nor may it signal that group); without cgroups, nothing of the template's may run beside it
                try:
                    alone = os.getpgid(pid) == pid
                except OSError:
                    alone = True  # gone: its start says so
                if not alone:
                    held = ", ".join(filter(None, (held, "its process group")))
            if held and not problem:
                problem = f"its game's bot held {held} of its template (its template changed the jail)"
            keep = {self.template_pid, self.reaper_pid, self.template_process.pid if self.template_process else 0}
            strays = self.cgroup.strays(pid, number, keep) if not problem and self.cgroup is not None else 0
            if strays:  # moved by the template (the bot's code) into its games' slots, out of its frozen cell
                problem = f"its template ran {strays} process{'es' if strays > 1 else ''} beside its games, in their " \
                          "cgroup slots or its keeper's"
        if problem and self.fault is None:
            self._template_broke(problem, sent=False)

    def _kept_descriptors(self) -> str:
        """What the template (held, once it answered) keeps open of what the runner sent it ("" when nothing): a
        game's pipe, or a cgroup slot's folder, from which it would read a later game's messages or its games'
        CPU time, memory and processes. Its descriptors at its first game's check, less all it was sent, are what
        it may hold; a pidfd is let be (it refers to a game's bot, gone whenever the template runs)."""
        targets = descriptor_targets(self.template_pid) - {PIDFD_TARGET}
        if self.template_targets is None:
            self.template_targets = targets - self.sent_targets
            self.sent_targets = set()
        kept = len(targets - self.template_targets)
        return "" if not kept else "1 descriptor" if kept == 1 else f"{kept} descriptors"

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

    def _hold_template(self, check: bool = True, game: int = 0) -> None:
        """Freeze (or stop) the template until the runner waits on it again; with ``check``, it must still be
        alone in its cell (it may write its keeper's ``cgroup.procs``, which its forks need: leaving for it would
        leave it unfrozen), or without cgroups in its PID namespace with its game's bot ``game``: checked once a
        game, before the game's bot is checked."""
        if self.stop is not None:
            self.stop.hold()
        if self.cell is not None:
            self.cell.hold()
        elif self.stop is None:
            return
        if not check or not self.protocol.ready or not self._template_alive():
            return  # it is gone: what it said before it went (an import that failed) is what counts
        members: list[int] | None = None
        if self.cell is not None:
            try:
                members = self.cell.members()
            except OSError:
                pass
        alone = self.cell is None or members == [self.template_pid]
        company = self._template_company(members, game)
        if not alone or company:
            self._template_broke(f"nothing, but left its cgroup or ran beside {company or 'itself'}")

    def _await_template(self, number: int, words: tuple[str, ...]) -> None:
        """Let the template run until it says one of ``words`` about game ``number`` (or breaks, ends, or
        takes longer than a start may); it stays free (a caller holds it again)."""
        if not set(words) & set(self.replies.get(number, {})):
            if self.cell is not None:
                self.cell.free()
            elif self.stop is not None and not self.stop.free():
                self._template_broke("it ran while it was stopped (a SIGCONT of its own)", sent=False)
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
        if self.stop is not None:
            self.stop.close()
            self.stop = None
        self.ahead_marks = {}
        if self.template_process is not None:
            self.template_process = None
            if self.process is not None and self.channel is not None:
                self.channel.unwatch()
            if self.control is not None:
                self.control.close()
            os.close(self.template_output)
            if self.events is not None:
                self.events.close()
                self.events = None
            if self.reports >= 0:
                os.close(self.reports)
                self.reports = -1
        self.awaited, self.early, self.report_rest = 0, {}, b""
        self._free_host()

    # -- the launcher's interface --

    def limited_pid(self) -> int:
        """The game's bot (not its keeper): its RLIMIT_CPU backstops it."""
        if self.process is not None:
            return self.process.bot() or int(self.pid or 0)
        return int(self.pid or 0)

    def kill(self) -> None:
        """SIGKILL the game's process 1, which ends its PID namespace; not waited for here (its reaper reaps it
        and says so: the next game's bot is forked once it did)."""
        if self.process is not None and self.process.returncode is None:
            self.process.kill()

    def release(self) -> None:
        """Close the game's pipes and pidfd (the template, its cgroup and user id stay for the next game)."""
        if self.process is not None:
            if self.channel is not None:
                self.channel.close(descriptors=True)
            if self.process.returncode is None and self.reports >= 0:
                self.awaited = self.process.inner  # reaped later: the next game's bot is forked after
            self.process.close()
            self.timing.unwatch()
            self.process = None

    def heard(self) -> bool:
        """Take what the template and the reaper said during a game; False when its game is over (its bot
        ended, or the template broke the protocol and was killed with it)."""
        self._read_control(0)
        self._read_reports(0)
        return self.process is not None and self.process.returncode is None

    def before_end(self) -> None:
        """What the template uses from now on counts in its next game's start."""
        if self.cell is not None:
            try:
                self.template_mark = self.cell.cpu_ns()
            except (OSError, ValueError, IndexError):
                pass

    def after_game(self) -> None:
        """Fork the next game's bot now, while the runner does other work, once the last one is reaped (waited
        for a moment here; else when the next game starts)."""
        if self.pending is None and self.template_process is not None and self._settle(SETTLE_S):
            self._ask_fork()

    def ask(self) -> None:
        """Start the template and ask it for the first game's bot (collected by :meth:`launch`)."""
        self._ask_fork()

    def close(self) -> None:
        """End the template and all its games."""
        self._close_template()

