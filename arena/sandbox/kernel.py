"""The kernel's numbers the process sandbox uses, and its ``prctl`` calls, in one place.

Linux (x86-64) values, as in ``<linux/prctl.h>`` and ``<linux/sched.h>``;
each helper raises ``OSError`` naming the call when the kernel refuses it.
"""

from __future__ import annotations

from arena.sandbox.syscalls import check, libc

PR_SET_PDEATHSIG = 1
PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    """``prctl(2)``; its result (``OSError`` when it is -1)."""
    result = int(libc.prctl(option, arg2, arg3, arg4, arg5))
    if result == -1:
        check(result, f"prctl({option})")
    return result


def not_dumpable() -> None:
    """Make this process not dumpable: no process of its user, not even its parent (a game's template), can
    read or write its memory through ``/proc/PID/mem`` or ptrace it; its ``/proc`` files become root's.
    A fork keeps it; an ``exec`` of an ordinary program makes the new program dumpable again."""
    prctl(PR_SET_DUMPABLE, 0)


def dumpable() -> bool:
    """Whether this process is dumpable (see :func:`not_dumpable`)."""
    return prctl(PR_GET_DUMPABLE) == 1
