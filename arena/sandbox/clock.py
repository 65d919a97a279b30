"""A bot's clock: the CPU time it used (all its processes and threads where the machine can tell), and what
a decision is charged.

A decision may use ``limit_ms`` of the bot's CPU time; the wall clock counts
at 1/``WALL_FACTOR`` (a bot that sleeps or waits is stopped after three
times its limit; one slowed down by a loaded machine keeps its full CPU
time). Where no CPU clock can be read, the wall clock counts in full. The
clock that ran out is the timeout's ``clock``.
"""

from __future__ import annotations

import os
import time

from arena.errors import BotTimeout
from arena.sandbox.cgroups import BotCgroup
from arena.sandbox.freezer import TemplateCell

#: The wall clock counts at 1/WALL_FACTOR against a bot's time.
WALL_FACTOR = 3


class BotClock:
    """The CPU time of one bot, read the best way this machine allows (``kind``, see
    :class:`arena.sandbox.probe.Protections`): its cgroup (every process and thread; a template's cell
    too), the kernel's CPU clock of its process, its ``/proc/PID/schedstat``, or none (``"wall"``)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.cpu = kind != "wall"
        #: wall time counts at 1/wall_factor; without a CPU clock, in full
        self.wall_factor = WALL_FACTOR if self.cpu else 1
        self.clock_id = 0
        self.schedstat_fd: int | None = None
        #: the CPU time read when the bot last answered (what it uses after counts in its next decision), and
        #: when its process (or game) began
        self.mark = self.origin = 0
        #: the CPU time of the bot's own processes (its cgroup, not its template's cell) at the last reading,
        #: and at its last answer (None: none read yet for this process)
        self.own = 0
        self.own_mark: int | None = None
        self.cores = os.cpu_count() or 1

    def watch(self, pid: int) -> None:
        """Read process ``pid`` from now on (where there is no cgroup)."""
        self.unwatch()
        self.own_mark = None
        self.clock_id = ((~pid) << 3) | 2  # the kernel's CPU clock of a process: CPUCLOCK_SCHED of its pid
        if self.kind == "schedstat":
            try:
                self.schedstat_fd = os.open(f"/proc/{pid}/schedstat", os.O_RDONLY)
            except OSError:
                pass

    def unwatch(self) -> None:
        if self.schedstat_fd is not None:
            os.close(self.schedstat_fd)
            self.schedstat_fd = None

    def cpu_ns(self, cgroup: BotCgroup | None, cell: TemplateCell | None) -> int:
        """CPU time the bot has used: all its processes and threads (its cgroup, and its template's cell),
        else its main process; 0 where it cannot be read (it is gone)."""
        try:
            if cgroup is not None and cgroup.core:
                own = self.own = cgroup.cpu_ns()
                if self.own_mark is None:
                    self.own_mark = own
                return own + (cell.cpu_ns() if cell is not None else 0)
            if self.kind == "process":
                return time.clock_gettime_ns(self.clock_id)
            if self.schedstat_fd is not None:
                return int(os.pread(self.schedstat_fd, 64, 0).split()[0])
        except (OSError, ValueError, IndexError):
            return 0
        return 0

    def unexplained_ns(self, wall_ms: float) -> int:
        """Read after an answer (whose exchange took ``wall_ms``): what the bot's own processes used since its
        previous answer beyond ``wall_ms`` on every core, so at least what they used between its turns (0
        without a cgroup reading)."""
        if self.own_mark is None:
            return 0
        used, self.own_mark = self.own - self.own_mark, self.own
        return used - int(wall_ms * 1e6) * self.cores

    def charged(self, cpu_ms: float, wall_ms: float) -> float:
        """The milliseconds a decision that used ``cpu_ms`` of CPU and ``wall_ms`` of wall time is charged."""
        return max(cpu_ms, wall_ms / self.wall_factor)

    def timeout(self, what: str, cpu_ms: float, wall_ms: float, limit_ms: float, answered: bool) -> BotTimeout:
        """The fault of a decision over ``limit_ms``, naming the clock that ran out."""
        by_cpu = self.wall_factor != 1 and cpu_ms >= wall_ms / self.wall_factor
        state = "answered after" if answered else "no answer after"
        if by_cpu:
            detail = f"{what}: {state} {cpu_ms:.0f} ms of CPU time, limit {limit_ms:.0f} ms (cpu clock)"
        else:
            detail = (f"{what}: {state} {wall_ms:.0f} ms on the wall clock, cap {self.wall_factor} x "
                      f"{limit_ms:.0f} ms (wall clock; {cpu_ms:.0f} ms of CPU time)")
        error = BotTimeout(detail)
        error.clock = "cpu" if by_cpu else "wall"
        return error
