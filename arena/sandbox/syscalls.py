"""The few Linux system calls the sandbox makes that Python's ``os`` lacks, through libc."""

from __future__ import annotations

import _random
import ctypes
import os
import signal
import sys

libc = ctypes.CDLL(None, use_errno=True)


def check(result: int, what: str) -> None:
    """Raise ``OSError`` naming ``what`` when a libc call returned non-zero."""
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    """``mount(2)``."""
    check(libc.mount(_encoded(source), _encoded(target), _encoded(fstype), flags, _encoded(data)), f"mount {target}")


def _encoded(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)


#: calls through this handle keep the GIL, as ``os.fork`` does around ``fork(2)``
_python = ctypes.PyDLL(None, use_errno=True)
_python.syscall.restype = ctypes.c_long
_SYS_CLONE, _SYS_CLONE3 = 56, 435  # x86-64
CLONE_PIDFD = 0x1000
CLONE_INTO_CGROUP = 0x200000000


class _CloneArgs(ctypes.Structure):
    _fields_ = [(name, ctypes.c_uint64) for name in (
        "flags", "pidfd", "child_tid", "parent_tid", "exit_signal", "stack", "stack_size", "tls", "set_tid",
        "set_tid_size", "cgroup")]


#: made once: a template forks every game through these, so that neither it nor each game's bot allocates (and so
#: writes, a page copied on write) more than it must around the fork
_clone3 = ctypes.PyDLL(None, use_errno=True).syscall
_clone3.restype = ctypes.c_long
_clone3.argtypes = (ctypes.c_long, ctypes.c_void_p, ctypes.c_size_t)
_ARGS = _CloneArgs()
_PIDFD = ctypes.c_int(-1)
_ARGS_ADDRESS, _ARGS_SIZE, _PIDFD_ADDRESS = ctypes.addressof(_ARGS), ctypes.sizeof(_ARGS), ctypes.addressof(_PIDFD)
_SIGCHLD = int(signal.SIGCHLD)
_before_fork, _after_fork_child, _after_fork_parent = (
    _python.PyOS_BeforeFork, _python.PyOS_AfterFork_Child, _python.PyOS_AfterFork_Parent)


def one_thread() -> bool:
    """Whether this process runs one thread only (its ``/proc/self/task`` holds one entry: a folder's links are
    two and one per entry); False where that cannot be read."""
    try:
        return os.stat("/proc/self/task").st_nlink == 3
    except OSError:
        return False


def _reseed_random() -> None:
    """Seed ``random``'s shared generator afresh (from the kernel), if the process imported ``random``: what its
    own after-fork handler does, through the C method (no Python frame of ``random.Random.seed``)."""
    shared = getattr(sys.modules.get("random"), "_inst", None)
    if isinstance(shared, _random.Random):
        _random.Random.seed(shared, None)
        if hasattr(shared, "gauss_next"):  # ``random.Random``'s own: its next normal draw, dropped by a new seed
            vars(shared)["gauss_next"] = None


def clone(flags: int, cgroup: int | None = None) -> tuple[int, int]:
    """``os.fork`` with ``clone(2)`` flags (new namespaces), the child born in the cgroup v2 folder
    ``cgroup`` (an open descriptor) when given; ``(pid, pidfd)`` in the parent, ``(0, -1)`` in the child.

    The child's C library keeps the parent's cached thread id, so the caller must be process 1 of its
    PID namespace and ``flags`` must hold ``CLONE_NEWPID`` (the child is process 1 of its own).
    Raises ``OSError`` (ENOSYS, EPERM, ...) when the kernel refuses, for example a cgroup it may not enter.
    Python's fork handlers run around it as around ``fork(2)`` in ``os.fork`` (locks reset in the child,
    ``os.register_at_fork`` callbacks) only where the caller runs more than one thread: in a process of one
    thread no other thread holds a lock or a thread state to reset, and the child seeds ``random``'s shared
    generator afresh itself (:func:`_reseed_random`).
    """
    _PIDFD.value = -1
    # Python's fork handlers (os.fork's) only where another thread may hold a lock or a thread state to reset:
    # their Python code (threading's, logging's, random's) writes about 200 pages that every child copies
    handlers = not one_thread()
    if handlers:
        _before_fork()
    if cgroup is None:
        pid = int(_python.syscall(ctypes.c_long(_SYS_CLONE), ctypes.c_ulong(flags | CLONE_PIDFD | signal.SIGCHLD),
                                  None, ctypes.byref(_PIDFD), None, None))
    else:  # through the structures made once, the child born in the cgroup
        _ARGS.flags, _ARGS.pidfd, _ARGS.exit_signal, _ARGS.cgroup = (
            flags | CLONE_PIDFD | CLONE_INTO_CGROUP, _PIDFD_ADDRESS, _SIGCHLD, cgroup)
        pid = int(_clone3(_SYS_CLONE3, _ARGS_ADDRESS, _ARGS_SIZE))
    if pid == 0:
        if handlers:
            _after_fork_child()
        else:
            _reseed_random()  # what of the handlers a new process needs: random's own, as after os.fork
        return 0, -1
    number = ctypes.get_errno()
    if handlers:
        _after_fork_parent()
    if pid < 0:
        raise OSError(number, f"clone: {os.strerror(number)}")
    return pid, _PIDFD.value
