"""What a new bot process's jail is made of, as one frozen value decided before the process starts.

:meth:`JailSpec.for_bot` decides it from the tournament's limits and what
this machine allows; :meth:`JailSpec.preexec` is the function the child runs
between ``fork`` and ``exec`` to build it (:func:`arena.sandbox.limits.preexec`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

from arena.sandbox import limits as sandbox_limits

if TYPE_CHECKING:
    from arena.match import Limits, ProcView


@dataclass(frozen=True)
class JailSpec:
    """The jail of one bot process (a ``cmd:`` program, or a Python bot's template)."""

    #: ``(RLIMIT_x, value)`` pairs, soft and hard alike
    rlimits: tuple[tuple[int, int], ...]
    #: the soft RLIMIT_CPU (a backstop above what the runner allows) and the finite hard one
    cpu_seconds: int
    cpu_hard: int
    #: the user id it becomes (a root runner), else None: the runner's, in a user namespace
    uid: int | None
    #: (own user id, no private root) folders its user must be let through
    open_up: tuple[str, ...]
    #: new network, PID, IPC and mount namespaces
    namespaces: bool
    #: the host paths it sees read-only in a root of its own (None: the host's filesystem)
    readable: tuple[str, ...] | None
    #: the size of its scratch tmpfs (/tmp, /dev/shm, its home)
    scratch_mb: int
    #: the ``cgroup.procs`` files it joins first
    cgroup_files: tuple[str, ...]
    #: a Python bot's template, which forks games (its system-call filter lets it)
    forks_games: bool
    #: what its ``/proc`` shows (``[sandbox] proc``): ``full``, or ``processes`` only (a template's games too)
    proc: ProcView = "full"
    #: spread over every core (a tournament that lets a bot run several threads), else kept on the runner's
    #: cores: a worker pinned to a core (``arena run``'s local pool) and its game's bots take turns on it
    spread: bool = True

    @classmethod
    def for_bot(cls, limits: Limits, *, uid: int | None, namespaces: bool, readable: Sequence[str] | None,
                needed: Callable[[], list[str]], cgroup_files: Sequence[str], forks_games: bool) -> JailSpec:
        """The jail of a bot under ``limits``: ``needed`` lists what a bot with a user id of its own and no
        private root must reach (asked only then)."""
        return cls(
            rlimits=tuple(sandbox_limits.resource_limits(limits, own_uid=uid is not None)),
            cpu_seconds=first_cpu_backstop(limits), cpu_hard=sandbox_limits.cpu_hard_seconds(limits), uid=uid,
            open_up=tuple(sandbox_limits.hidden_ancestors(needed(), uid)
                          if uid is not None and readable is None else ()),
            namespaces=namespaces, readable=None if readable is None else tuple(readable),
            scratch_mb=limits.memory_mb, cgroup_files=tuple(cgroup_files), forks_games=forks_games,
            proc=limits.proc, spread=limits.threads > 1)

    def preexec(self, report: int = -1) -> Callable[[], None]:
        """The function the new process runs before ``exec``: its whole jail (``report``: a template's reaper
        writes its games' ends there, :mod:`arena.sandbox.reaper`)."""
        return sandbox_limits.preexec(
            list(self.rlimits), self.cpu_seconds, uid=self.uid, open_up=self.open_up, namespaces=self.namespaces,
            cpu_hard=self.cpu_hard, readable=None if self.readable is None else list(self.readable),
            scratch_mb=self.scratch_mb, cgroup_files=self.cgroup_files, forks_games=self.forks_games,
            report=report, proc=self.proc, spread=self.spread)


def first_cpu_backstop(limits: Limits) -> int:
    """The soft RLIMIT_CPU a bot process starts with: its start's time plus slack."""
    return sandbox_limits.cpu_backstop_seconds(0, limits.start_ms) + sandbox_limits.CPU_BACKSTOP_SLACK_S
