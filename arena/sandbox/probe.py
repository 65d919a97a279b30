"""Which protections this machine gives bot processes, found once per runner by trying them."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import time
from dataclasses import dataclass

from arena.sandbox import limits
from arena.sandbox.limits import UID_BASE, hidden_ancestors


@dataclass(frozen=True)
class Protections:
    """What the process sandbox uses here.

    - ``root``: whether the runner runs as root;
    - ``own_user``: (root only) every bot runs as an unprivileged user id of
      its own, so it can neither write the runner's files nor signal it;
    - ``namespaces``: bots get new network, PID and mount namespaces: no
      network, and a private process tree that dies whole with the bot;
    - ``cpu_clock``: how a bot's CPU time is read: ``process`` (the kernel's
      per-process CPU clock, all threads), ``schedstat`` (the main thread's
      ``/proc/PID/schedstat``) or ``wall`` (no CPU clock: wall time only).
    """

    root: bool
    own_user: bool
    namespaces: bool
    cpu_clock: str

    def rows(self) -> list[tuple[str, str, str]]:
        """``(protection, state, what it means)`` rows for ``arena sandbox``."""
        if self.own_user:
            user = ("on", "each bot runs as a user id of its own: it cannot write the runner's files "
                          "nor signal it, and has at most 128 processes and threads")
        elif self.root:
            user = ("off (setting a user id failed)", "bots run as root: they can write what root can")
        else:
            user = ("off (runner is not root)", "bots run as the runner's user")
        timing = (("cpu (" + self.cpu_clock + ") + wall cap", "a decision is timed on the bot's CPU time; "
                   "wall time counts at a third, so a sleeping bot cannot stall the game")
                  if self.cpu_clock != "wall" else ("wall", "a decision is timed on the wall clock"))
        spaces = "on" if self.namespaces else "off (namespaces refused here)"
        return [
            ("process per bot", "on", "each seat's bot runs in a process of its own, JSON lines over pipes"),
            ("time", *timing),
            ("memory", "on", "memory_mb bounds private memory (RLIMIT_DATA); address space is capped too"),
            ("files", "on", "at most 256 open files, each written file at most memory_mb, no core dumps"),
            ("own user id", *user),
            ("no network", spaces, "a network namespace of its own, with no interface up"),
            ("private process tree", spaces,
             "PID namespace: the bot sees and signals only its own processes; all die with it"
             if self.namespaces else "the bot's process group (as root: its user id) is killed with it"),
            ("seccomp", "off", "no system-call filter (see docs/sandbox.md)"),
        ]


def _cpu_clock() -> str:
    try:
        time.clock_gettime_ns(((~os.getpid()) << 3) | 2)  # this process's CPU clock, by pid
        return "process"
    except (OSError, AttributeError):
        pass
    if os.path.exists(f"/proc/{os.getpid()}/schedstat"):
        return "schedstat"
    return "wall"


def _runs(own_user: bool, namespaces: bool) -> bool:
    """Whether Python starts as a bot would (as root: under a user id of its own)."""
    needed = [sys.executable, os.path.realpath(sys.executable), sys.prefix, sys.base_prefix]
    open_up = hidden_ancestors([path for path in needed if os.path.exists(path)], UID_BASE) if own_user else []
    preexec = limits.preexec([], 60, uid=UID_BASE if own_user else None, open_up=open_up, namespaces=namespaces)
    try:
        completed = subprocess.run([sys.executable, "-c", ""], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   timeout=30, cwd="/", preexec_fn=preexec)
    except (OSError, subprocess.SubprocessError):
        return False
    return completed.returncode == 0


@functools.cache
def protections() -> Protections:
    """The protections bots get on this machine (tried once per process, then remembered)."""
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    trials = [(True, True), (True, False), (False, False)] if root else [(False, True), (False, False)]
    own_user, namespaces = next(
        ((own_user, namespaces) for own_user, namespaces in trials
         if (not own_user and not namespaces) or _runs(own_user, namespaces)),
    )
    return Protections(root=root, own_user=own_user, namespaces=namespaces, cpu_clock=_cpu_clock())
