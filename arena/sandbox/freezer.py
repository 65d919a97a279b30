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
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

from arena.sandbox.cgroups import CELL, BotCgroup

#: CPU (ns) a bot's processes may use since its last answer beyond what its decision's wall time explains
#: before it is frozen between its turns: the tail of its answer, and the kernel's lag in counting a task that
#: runs on (up to a scheduler tick, 4 ms at 250 Hz; 10 ms at 100 Hz)
BETWEEN_TURNS_NS = 10_000_000
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
