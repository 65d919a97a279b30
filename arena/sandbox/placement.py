"""Where a bot runs: on the core of the runner that is waiting for it, while its answers come quickly.

A decision is a ping-pong: the runner writes the request and waits, the bot
reads, thinks, answers and waits; never both at once. Left to itself the
kernel wakes a sleeping process on an idle core when there is one (its last
core if idle, else any idle sibling), so a bot that once ran on another core
is woken there at every decision, and the runner is woken back across: two
wake-ups of an idle core an exchange. On a virtual machine each costs an
interrupt between cores and the core's way out of its idle state through
the hypervisor: measured here (2 cores, echo bots answering real Modern Art
requests, four seats in turn) 75-100 µs of CPU a decision against 46-48 with
the bots on the runner's core, the same code, a run landing in one mode or
the other by chance (``benchmarks/decision.py``).

So a quick bot's main process is pinned to the core its runner runs on,
checked at each decision (the runner may move: a ``sched_getcpu`` costs about
0.1 µs, a pin about 2 µs, made only when the core changed). What it starts
later inherits the pin. Nothing is lost by it: the runner sleeps while its
bot thinks. Only a bot whose last decision took under :data:`QUICK_MS` on
the wall clock is pinned: one that thinks longer gains nothing measurable
(two wake-ups in milliseconds) and runs where the kernel puts it, free to
move to an idle core rather than share a busy one; nor is a bot that may
start several threads (``Limits.threads``), which wants cores of its own.
A bot that changes its own affinity only loses the gain; a pin the kernel
refuses (a runner without the right to set another user's affinity) is
given up for that process. Placement is no protection: the bot's CPU time
is charged wherever it runs.
"""

from __future__ import annotations

import os

from arena.sandbox.syscalls import libc

#: a bot whose last decision took longer than this (ms, wall clock) is not pinned for its next one
QUICK_MS = 5.0
#: this system can say which core a thread runs on and pin another process (Linux)
PINS = hasattr(os, "sched_setaffinity") and hasattr(libc, "sched_getcpu")


def runner_core() -> int:
    """The core this thread runs on now (-1 where the kernel cannot say)."""
    core: int = libc.sched_getcpu()
    return core


class Placement:
    """Pins one seat's bot process to its runner's core between :meth:`before` (the request is sent) and its
    answer, while the bot is quick (see the module docstring)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and PINS
        #: the bot process pinned (its pid), to which core; what it could run on before (restored when it
        #: stops being quick)
        self.pid: int | None = None
        self.core = -1
        self.allowed: set[int] | None = None
        #: its last decision was quick (a new process is taken as quick)
        self.quick = True
        #: pins refused for this process (its pid): not tried again
        self.refused: int | None = None

    def before(self, pid: int | None) -> None:
        """The bot (process ``pid``) is about to be asked: pin it to this core if it is quick, else let it go."""
        if not self.enabled or pid is None or pid == self.refused:
            return
        if pid != self.pid:  # a new process: it runs where its parent let it
            self.pid, self.core, self.allowed = pid, -1, None
        if not self.quick:
            if self.core >= 0:
                self._set(pid, self.allowed or os.sched_getaffinity(0))
                self.core = -1
            return
        core = runner_core()
        if core != self.core and core >= 0:
            if self.allowed is None:
                try:
                    self.allowed = os.sched_getaffinity(pid)
                except OSError:
                    self.refused = pid
                    return
            if self._set(pid, {core}):
                self.core = core

    def after(self, wall_ms: float) -> None:
        """The bot answered after ``wall_ms`` on the wall clock: whether it is pinned for its next decision."""
        self.quick = wall_ms < QUICK_MS

    def _set(self, pid: int, cores: set[int]) -> bool:
        try:
            os.sched_setaffinity(pid, cores)
        except OSError:  # gone, or not ours to place
            self.refused = pid
            return False
        return True
