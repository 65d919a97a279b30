"""Stopping a bot between its decisions, so that it computes only while it is asked (and is charged for).

With cgroups a bot is frozen with its cgroup's ``cgroup.freeze`` (every
process and thread at once; a frozen task still dies of SIGKILL); a Python
bot's template has a cell of its own (:class:`TemplateCell`), frozen apart
from its games. Without cgroups the bot's process group is stopped with
SIGSTOP. Freezing is lazy: a bot that answered may run on until another bot
of its game (its thread) is asked (:func:`awake_here`), and what it uses
meanwhile counts against its next decision.

With cgroups a bot is frozen only once it has been seen computing between
its turns (:meth:`Freezer.judge`): its cgroup's clock counts every process
and thread, also between its turns, and everything it used since its last
answer is charged to its next decision, so an idle bot (blocked reading its
next request) need not be stopped. Freezing one costs a write to its
``cgroup.freeze`` and waking every task of it twice (into the freezer and out
of it): about as much CPU as the rest of a decision's exchange. A bot whose
processes used clearly more CPU since its last answer than its decision's
wall time on every core explains is frozen between its turns from then on;
what it took before that was charged to it. Without cgroups (a process clock
that does not see its children) a bot is always stopped.

Without a cgroup freezer a Python bot's template is stopped on its own
(:class:`TemplateStop`, SIGSTOP) from its answer until the runner's next
request, so that it computes nothing while any of its games lives.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

from arena.sandbox.cgroups import CELL, BotCgroup

#: CPU (ns) a bot's processes may use since its last answer beyond what its decision's wall time explains
#: before it is frozen between its turns: the tail of its answer, and the kernel's lag in counting a task that
#: runs on (up to a scheduler tick, 4 ms at 250 Hz; 10 ms at 100 Hz)
BETWEEN_TURNS_NS = 10_000_000
#: how long the runner waits for a template sent SIGSTOP to be stopped (the kernel stops it within microseconds,
#: once it leaves the kernel; a task in uninterruptible sleep stops when it wakes)
STOP_WAIT_S = 1.0
#: how long its CPU clock may go on moving once it is stopped (its last slice is counted as it leaves its core)
SETTLE_S = 0.1
#: what a task's state in ``/proc/PID/task/TID/stat`` is once it cannot run: stopped, traced, a zombie, dead
_NOT_RUNNING = frozenset(b"TtZXx")
#: per thread (a game is played in one): the bots that answered and were not stopped yet (lazy freezing)
_awake = threading.local()


def awake_here() -> set[Any]:
    """The bots of this thread's game that may run now (at most the one asked and the last to answer)."""
    bots: set[Any] | None = getattr(_awake, "bots", None)
    if bots is None:
        bots = _awake.bots = set()
    return bots


class Freezer:
    """Stops (and lets go on) every process of one bot: its cgroups, else its process group."""

    def __init__(self, isolate: bool) -> None:
        self.isolate = isolate
        #: the process group stopped with SIGSTOP (no freezer), until :meth:`resume`
        self.stopped: int | None = None
        #: the bot was seen computing between its turns: with cgroups, frozen between them from then on
        #: (for the rest of the seat's life: its later games' bots too)
        self.between_turns = False

    def judge(self, unexplained_ns: int) -> bool:
        """After an answer: ``unexplained_ns`` is the CPU the bot's processes used since its last answer beyond
        what this decision's wall time on every core explains (:meth:`BotClock.unexplained_ns`). True when the
        bot is frozen between its turns from now on and was not before."""
        if unexplained_ns > BETWEEN_TURNS_NS and not self.between_turns:
            self.between_turns = True
            return True
        return False

    def stops(self, cgroup: BotCgroup | None, cell: TemplateCell | None) -> bool:
        """Whether :meth:`pause` would stop anything of the bot now: its template's cell while the template
        has a request to answer (held, it is frozen already), its cgroup once it is frozen between its turns,
        its process group where there is no cgroup. A bot it would not stop need not be remembered as awake
        after its answer (:func:`awake_here`): nothing is done for it before another bot is asked. A cell is
        let run (:meth:`TemplateCell.free`) only before its bot is let run (the seat's ``wake``), so that a
        freed cell's bot is remembered then."""
        if cell is not None and cell.wanted:
            return True
        if cgroup is not None and cgroup.core:
            return self.between_turns
        return self.isolate

    def pause(self, cgroup: BotCgroup | None, cell: TemplateCell | None, pid: int | None) -> None:
        """Stop the bot if it must be (``pid``: its process, whose group is stopped where there is no freezer);
        its template always."""
        if cell is not None:
            cell.pause(True)
        if cgroup is not None and cgroup.core:
            if self.between_turns:
                cgroup.freeze()
        elif self.isolate and pid is not None and not self.stopped:
            try:
                self.stopped = os.getpgid(pid)
                os.killpg(self.stopped, signal.SIGSTOP)
            except OSError:
                self.stopped = None

    def resume(self, cgroup: BotCgroup | None, cell: TemplateCell | None) -> None:
        if cell is not None:
            cell.pause(False)
        if cgroup is not None and cgroup.core:
            cgroup.thaw()
        elif self.stopped:
            try:
                os.killpg(self.stopped, signal.SIGCONT)
            except OSError:
                pass
            self.stopped = None

    def frozen(self, cgroup: BotCgroup | None) -> bool:
        """Whether the bot is stopped now."""
        if cgroup is not None and cgroup.core:
            return cgroup.frozen
        return self.stopped is not None


def usage_ns(cpu_stat: int) -> int:
    """The CPU time (ns) a cgroup's open ``cpu.stat`` counts: every process and thread ever in it."""
    return int(os.pread(cpu_stat, 64, 0).split(None, 2)[1]) * 1000  # the first line: usage_usec N


class TemplateCell:
    """A template's own cgroup (a leaf beside its games' slots): frozen except from a request until its answer
    (or while the runner waits on it) and then only while its bot may run, its CPU time counted against its
    bot, so that a template (the bot's code, between games) computes nothing for free."""

    def __init__(self, cgroup: BotCgroup, pid: int) -> None:
        folder = cgroup.leaf(CELL)
        self.procs = os.path.join(folder, "cgroup.procs")
        with open(self.procs, "w") as handle:
            handle.write(str(pid))
        self.freeze_fd = os.open(os.path.join(folder, "cgroup.freeze"), os.O_WRONLY)
        self.cpu_fd = os.open(os.path.join(folder, "cpu.stat"), os.O_RDONLY)
        self.wanted = True  # the runner lets it run (it has a request to answer)
        self.paused = False  # its bot is stopped (another bot is asked)
        self.frozen = False
        #: its CPU time read once since it was last frozen: it cannot change until it is let run again
        self.settled: int | None = None

    def _set(self) -> None:
        frozen = self.paused or not self.wanted
        if frozen != self.frozen:
            os.pwrite(self.freeze_fd, b"1" if frozen else b"0", 0)
            self.frozen = frozen
            self.settled = None

    def hold(self) -> None:
        """Freeze the template until :meth:`free` (the kernel stops it within microseconds)."""
        self.wanted = False
        self._set()

    def free(self) -> None:
        """Let the template run (while its bot may)."""
        self.wanted = True
        self._set()

    def pause(self, paused: bool) -> None:
        """Stop (or let go on) the template with its bot; a write only while it has a request to answer."""
        self.paused = paused
        self._set()

    def cpu_ns(self) -> int:
        """CPU time of the template (every process and thread it ever had in its cell).

        Read from its ``cpu.stat`` unless it was read already since it was frozen (as it is through a game,
        once its next game's bot is forked): the first read after a freeze is what it keeps (a later read of
        a cumulative counter would only add the microseconds a freeze takes to land).
        """
        if self.settled is not None:
            return self.settled
        used = usage_ns(self.cpu_fd)
        if self.frozen:
            self.settled = used
        return used

    def members(self) -> list[int]:
        """The processes in the cell (ids as this runner sees them), read with ``os`` calls, no file object (once
        a game)."""
        fd = os.open(self.procs, os.O_RDONLY)
        try:
            text = chunk = os.read(fd, 65536)
            while chunk:
                chunk = os.read(fd, 65536)
                text += chunk
        finally:
            os.close(fd)
        return [int(word) for word in text.split()]

    def close(self) -> None:
        os.close(self.freeze_fd)
        os.close(self.cpu_fd)


class TemplateStop:
    """A template's stop where there is no cgroup freezer: SIGSTOP (which it can neither catch nor ignore) from
    its answer until the runner's next request, when none of its games lives any more (:meth:`free`).

    Only the template is signalled, through a pidfd (never another process that got its id), never its
    process group, which holds its keeper and its reaper: the reaper must go on reaping its games and telling
    the runner. Its games' bots are in sessions and process groups of their own (checked before each game), in
    PID namespaces below the template's, where its id names nothing; a process of its own beside it (one it
    forked) is refused (the launcher's check of its namespace). What it may still arrange is a SIGCONT of its
    own (a POSIX timer, its signal handled, sends one every millisecond: a generated SIGCONT continues a
    stopped process whoever sends it), so its CPU clock is read once it is stopped and again before it is let
    run: a template that ran while held (:meth:`free` says so) is ended before it forks another game, and what
    it saw of the last one dies with it.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.pidfd = os.pidfd_open(pid)
        self.clock_id = ((~pid) << 3) | 2  # the kernel's CPU clock of a process (all its threads): CPUCLOCK_SCHED
        self.wanted = True  # the runner lets it run (it has a request to answer)
        self.held_ns: int | None = None  # its CPU time once it stopped (None: it did not stop)

    def hold(self) -> None:
        """Stop the template (every thread of it), wait until the kernel stopped it and its CPU clock stands
        (it is off its core; or it is gone), and note that clock."""
        if not self.wanted:
            return
        self.wanted = False
        self.held_ns = None
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGSTOP)
        except OSError:
            return  # gone
        deadline = time.monotonic() + STOP_WAIT_S
        while not self.stopped():
            if time.monotonic() > deadline:
                return
            time.sleep(0.0001)
        deadline = time.monotonic() + SETTLE_S
        try:
            last = time.clock_gettime_ns(self.clock_id)
            while time.monotonic() < deadline:
                time.sleep(0.0002)  # its last slice ends as it leaves its core: counted then
                now = time.clock_gettime_ns(self.clock_id)
                if now == last:
                    self.held_ns = now
                    return
                last = now
        except OSError:
            pass  # gone

    def free(self) -> bool:
        """Let the template run (for a request: none of its games lives); False, and it stays stopped, when it
        ran while it was held (it arranged a SIGCONT of its own, or never stopped): it must be ended."""
        if self.wanted:
            return True
        try:
            if self.held_ns is None or time.clock_gettime_ns(self.clock_id) != self.held_ns:
                return False
        except OSError:
            return True  # gone: nothing of it runs
        self.wanted = True
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGCONT)
        except OSError:
            pass
        return True

    def stopped(self) -> bool:
        """Whether no thread of the template can run now (each stopped, or it is gone)."""
        folder = f"/proc/{self.pid}/task"
        try:
            threads = os.listdir(folder)
        except OSError:
            return True
        for thread in threads:
            try:
                with open(f"{folder}/{thread}/stat", "rb") as handle:
                    text = handle.read()
            except OSError:
                continue  # ended meanwhile
            at = text.rfind(b")")  # the name, in parentheses, may hold anything
            if at < 0 or text[at + 2] not in _NOT_RUNNING:
                return False
        return True

    def close(self) -> None:
        os.close(self.pidfd)
