"""The few Linux system calls the sandbox makes that Python's ``os`` lacks, through libc."""

from __future__ import annotations

import _random
import ctypes
import errno
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
CLONE_CHILD_SETTID = 0x01000000
CLONE_PARENT = 0x8000
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


def _thread_id_address() -> int:
    """Where the C library keeps this thread's id (glibc's ``struct pthread``: the offset it publishes for
    debuggers, ``_thread_db_pthread_tid``), so that a clone's child has its own written there by the kernel
    (``CLONE_CHILD_SETTID``), as ``fork`` does; 0 where the C library does not say."""
    try:
        field = (ctypes.c_uint32 * 3).in_dll(libc, "_thread_db_pthread_tid")  # bits, count, offset
        libc.pthread_self.restype = ctypes.c_void_p
        thread = libc.pthread_self()
    except (ValueError, AttributeError):
        return 0
    return int(thread) + int(field[2]) if field[0] == 32 and thread else 0


#: this (main) thread's id in the C library, written with the child's own id by each clone
_TID_ADDRESS = _thread_id_address()
_ARGS.child_tid = _TID_ADDRESS
_SETTID = CLONE_CHILD_SETTID if _TID_ADDRESS else 0
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

    The kernel writes the child's id into its C library's cached thread id (``CLONE_CHILD_SETTID``, as
    ``fork`` does: raising a signal, ``abort`` and lock owners use it); where the C library does not say
    where it keeps it (:func:`_thread_id_address` is 0), ``OSError`` (ENOTSUP) unless the caller is
    process 1 of its PID namespace and ``flags`` hold ``CLONE_NEWPID`` (then the cached id, 1, is right).
    Raises ``OSError`` (ENOSYS, EPERM, ...) when the kernel refuses, for example a cgroup it may not enter.
    Python's fork handlers run around it as around ``fork(2)`` in ``os.fork`` (locks reset in the child,
    ``os.register_at_fork`` callbacks) only where the caller runs more than one thread: in a process of one
    thread no other thread holds a lock or a thread state to reset, and the child seeds ``random``'s shared
    generator afresh itself (:func:`_reseed_random`).
    """
    _PIDFD.value = -1
    if not _TID_ADDRESS and os.getpid() != 1:
        raise OSError(errno.ENOTSUP, "clone: the C library does not say where it keeps a thread's id")
    # Python's fork handlers (os.fork's) only where another thread may hold a lock or a thread state to reset:
    # their Python code (threading's, logging's, random's) writes about 200 pages that every child copies
    handlers = not one_thread()
    if handlers:
        _before_fork()
    if cgroup is None:
        pid = int(_python.syscall(ctypes.c_long(_SYS_CLONE), ctypes.c_ulong(
            flags | CLONE_PIDFD | _SETTID | signal.SIGCHLD), None, ctypes.byref(_PIDFD),
            ctypes.c_void_p(_TID_ADDRESS or None), None))
    else:  # through the structures made once, the child born in the cgroup
        _ARGS.flags, _ARGS.pidfd, _ARGS.exit_signal, _ARGS.cgroup = (
            flags | CLONE_PIDFD | CLONE_INTO_CGROUP | _SETTID, _PIDFD_ADDRESS,
            0 if flags & CLONE_PARENT else _SIGCHLD, cgroup)  # with CLONE_PARENT the caller's own signal
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
