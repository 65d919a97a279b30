"""The kernel's numbers the process sandbox uses, and its ``prctl`` calls, in one place.

Linux (x86-64) values, as in ``<linux/prctl.h>`` and ``<linux/sched.h>``;
each helper raises ``OSError`` naming the call when the kernel refuses it.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
from typing import NamedTuple

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


def _fdinfo(fd: int) -> bytes | None:
    """This process's ``/proc/self/fdinfo/FD``, after a newline (so that every field follows one), or None
    when it cannot be read: three system calls, no file object."""
    try:
        fd_info = os.open(f"/proc/self/fdinfo/{fd}", os.O_RDONLY)
    except OSError:
        return None
    try:
        return b"\n" + os.read(fd_info, 4096)
    except OSError:
        return None
    finally:
        os.close(fd_info)


def _fdinfo_pid(fd: int) -> int | None:
    """The ``Pid:`` of descriptor ``fd``'s fdinfo (a pidfd's: its process's id here, -1 once it is gone), None
    when it has none (not a pidfd) or cannot be read: three system calls, no file object (the runner asks
    this three times a fresh game)."""
    text = _fdinfo(fd)
    if text is None:
        return None
    at = text.find(b"\nPid:")
    if at < 0:
        return None
    try:
        return int(text[at + 5:text.index(b"\n", at + 1)])
    except ValueError:
        return None


def pidfd_ids(pidfd: int) -> tuple[int, ...] | None:
    """The ids of the process behind ``pidfd`` in this process's PID namespace and each one below it down to
    its own (its fdinfo's ``NSpid:``: a game's bot's id here, in its template's namespace, then 1); None once
    it is gone, or not a pidfd."""
    text = _fdinfo(pidfd)
    if text is None:
        return None
    at = text.find(b"\nNSpid:")
    if at < 0:
        return None
    try:
        ids = tuple(int(field) for field in text[at + 7:text.index(b"\n", at + 1)].split())
    except ValueError:
        return None
    return ids if ids and ids[0] > 0 else None


#: what ``/proc/PID/fd/N`` shows for a pidfd
PIDFD_TARGET = "anon_inode:[pidfd]"


def descriptor_targets(pid: int) -> set[str]:
    """What each open descriptor of process ``pid`` refers to, as its ``/proc/PID/fd`` links say (a path as this
    process sees it, ``pipe:[INODE]``, ``socket:[INODE]``, ``anon_inode:[pidfd]``...). ``OSError`` when it is
    gone or not this process's to read."""
    folder = f"/proc/{pid}/fd"
    targets = set()
    for name in os.listdir(folder):
        try:
            targets.add(os.readlink(f"{folder}/{name}"))
        except FileNotFoundError:
            continue  # closed meanwhile
    return targets


def is_pidfd(fd: int) -> bool:
    """Whether ``fd`` refers to a process (a pidfd: its fdinfo has a ``Pid:`` line), alive or not."""
    return _fdinfo_pid(fd) is not None


def pid_of(pidfd: int) -> int | None:
    """This process's id for the process behind ``pidfd`` (None once it is gone, or not a pidfd)."""
    pid = _fdinfo_pid(pidfd)
    return pid if pid is not None and pid > 0 else None


def dumpable() -> bool:
    """Whether this process is dumpable (see :func:`not_dumpable`)."""
    return prctl(PR_GET_DUMPABLE) == 1


class _MapQuery(ctypes.Structure):
    """``struct procmap_query`` (Linux 6.11): one question about a process's mappings."""

    _fields_ = [(name, ctypes.c_uint64) for name in (
        "size", "query_flags", "query_addr", "vma_start", "vma_end", "vma_flags", "vma_page_size", "vma_offset",
        "inode")] + [(name, ctypes.c_uint32) for name in (
            "dev_major", "dev_minor", "vma_name_size", "build_id_size")] + [
        (name, ctypes.c_uint64) for name in ("vma_name_addr", "build_id_addr")]


#: ``PROCMAP_QUERY``, an ioctl on /proc/PID/maps: _IOWR('f', 17, struct procmap_query)
PROCMAP_QUERY = (3 << 30) | (ctypes.sizeof(_MapQuery) << 16) | (ord("f") << 8) | 17
#: the next mapping at or after the address that is shared, whatever its protection (one mapped read-only,
#: or with no access, can be made writable again with mprotect)
_NEXT_SHARED = 0x10 | 0x08


class Mapping(NamedTuple):
    """One mapping of a process: its addresses and the object mapped (device and inode; an anonymous shared
    mapping has an inode of its own, the same in every process that shares it)."""

    start: int
    end: int
    device: tuple[int, int]
    inode: int


def shared_mappings(pid: int | str = "self") -> list[Mapping]:
    """Every shared mapping of process ``pid`` (``MAP_SHARED``: anonymous, memfd, shm or a file, of any
    protection), asked of the kernel mapping by mapping (``PROCMAP_QUERY``: no text to make and parse), else
    read from /proc/PID/maps. ``OSError`` when the process is gone or not this one's to read."""
    found: list[Mapping] = []
    fd = os.open(f"/proc/{pid}/maps", os.O_RDONLY)
    try:
        query = _MapQuery(size=ctypes.sizeof(_MapQuery), query_flags=_NEXT_SHARED)
        while True:
            try:
                fcntl.ioctl(fd, PROCMAP_QUERY, query)
            except OSError as error:
                if error.errno == errno.ENOENT:
                    return found  # no more
                break  # an older kernel: read the text
            found.append(Mapping(query.vma_start, query.vma_end, (query.dev_major, query.dev_minor), query.inode))
            query = _MapQuery(size=ctypes.sizeof(_MapQuery), query_flags=_NEXT_SHARED, query_addr=query.vma_end)
    finally:
        os.close(fd)
    found = []
    with open(f"/proc/{pid}/maps") as handle:
        lines = handle.read().splitlines()
    for line in lines:
        fields = line.split()
        if fields[1][3] == "s":
            start, end = (int(part, 16) for part in fields[0].split("-"))
            major, minor = (int(part, 16) for part in fields[3].split(":"))
            found.append(Mapping(start, end, (major, minor), int(fields[4])))
    return found
