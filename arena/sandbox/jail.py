"""The private world of a bot process: its own root, /tmp, /dev/shm, working folder and IPC limits.

Built in the bot's own mount namespace, as bubblewrap does it: a tmpfs
becomes the new root, holding only mount points; the runtime (``/usr``, the
libraries, the Python prefix), a few files of ``/etc`` and the bot's own files
are bind-mounted into it read-only at their own paths; a fresh ``/proc`` of
its own PID namespace, full or, where a tournament asks (``[sandbox] proc =
"processes"``), showing its processes only (:data:`PROC_OPTIONS`); ``/dev`` holds only
``null``, ``zero``, ``full``, ``random`` and ``urandom``.
What is not listed does not exist for the bot: results folders, the
tournament's folder, home folders, other bots' files.

A size-capped tmpfs (the *scratch*, ``memory_mb``) holds everything the bot
may write: it is mounted at ``/.scratch`` and its folders are bound to
``/tmp``, ``/dev/shm`` and ``/home/bot`` (the working folder and ``HOME``).
A game forked from a template mounts a new scratch over the template's
(:func:`fresh_scratch`), so nothing written in one game is seen in the next.
"""

from __future__ import annotations

import ctypes
import os
from typing import NamedTuple, Sequence

from arena.sandbox.kernel import shared_mappings
from arena.sandbox.syscalls import check as _check
from arena.sandbox.syscalls import libc as _libc
from arena.sandbox.syscalls import mount as _mount

SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: what a runtime reads in /etc (the dynamic linker, names, time zone); nothing else of /etc is seen
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "nsswitch.conf",
             "passwd", "group", "alternatives", "os-release", "mime.types", "ssl", "hosts")
DEVICES = ("null", "zero", "full", "random", "urandom")
SCRATCH = "/.scratch"
HOME = "/home/bot"
#: inodes of the scratch tmpfs (each costs kernel memory the size cap does not see)
SCRATCH_INODES = 16384


#: the ``mount(2)`` options of a bot's ``/proc`` for each view (``[sandbox] proc``, :attr:`arena.match.Limits.proc`).
#: ``full`` by default: what honest bots and their libraries read is there (psutil reads ``/proc/stat`` at import,
#: ``os.getloadavg()`` ``/proc/loadavg``, Node's ``os.cpus()`` ``/proc/cpuinfo``). ``processes`` (``subset=pid``,
#: Linux 5.8; a user namespace may mount it) shows the bot's own processes and none of the machine's counters
#: that another bot moves (loadavg, stat, meminfo, ...), for competitions that prefer it: those libraries then
#: fail, and ``sysinfo(2)`` and the other routes docs/security.md lists ("What the kernel still shares") still
#: count the same threads and memory
PROC_OPTIONS: dict[str, str | None] = {"full": None, "processes": "subset=pid"}
#: a file only a full ``/proc`` shows: how a template tells which view it got (its games mount the same)
_MACHINE_FILE = "/proc/loadavg"
#: in a template: the options of its games' ``/proc``, those of its own (:func:`note_proc_view`)
_game_proc: bytes | None = None


def _mount_proc(target: bytes, options: bytes | None = None) -> int:
    """``mount(2)`` of a ``/proc`` of this PID namespace at ``target`` with ``options`` (None: a full one;
    :data:`PROC_OPTIONS`); libc's result."""
    return int(_libc_mount(b"proc", target, b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, options))


def note_proc_view() -> None:
    """In a template, before its first game: its games' ``/proc`` will show what its own shows (the runner
    mounted it, :data:`PROC_OPTIONS`; the runner checks each game's, :mod:`arena.sandbox.audit`)."""
    global _game_proc
    _game_proc = None if os.path.exists(_MACHINE_FILE) else os.fsencode(PROC_OPTIONS["processes"] or "")

#: libc's calls a game's jail makes, looked up once at import (in its template, before its games: a look-up in
#: each game's bot would write pages that the bot then copies)
_libc_mount, _libc_capset, _libc_prctl, _libc_munmap = _libc.mount, _libc.capset, _libc.prctl, _libc.munmap

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MS_NOATIME, MS_NODIRATIME, MS_REC, MS_PRIVATE, MS_RELATIME = 1024, 2048, 16384, 1 << 18, 1 << 21
_MNT_DETACH = 2
#: statvfs flags of a mount and the mount flags that keep them (a user namespace may not drop them)
_KEPT_FLAGS = ((os.ST_RDONLY, MS_RDONLY), (os.ST_NOSUID, MS_NOSUID), (os.ST_NODEV, MS_NODEV),
               (os.ST_NOEXEC, MS_NOEXEC), (os.ST_NOATIME, MS_NOATIME), (os.ST_NODIRATIME, MS_NODIRATIME),
               (os.ST_RELATIME, MS_RELATIME))


def _pivot_root(new: str, old: str) -> None:
    _check(_libc.syscall(155, os.fsencode(new), os.fsencode(old)), "pivot_root")  # x86-64 pivot_root


def _umount(target: str) -> None:
    _check(_libc.umount2(os.fsencode(target), _MNT_DETACH), f"umount {target}")


def _bind(source: str, target: str, flags: int, recursive: bool = False) -> None:
    """Bind ``source`` at ``target`` (with its submounts when ``recursive``), then remount with ``flags`` added
    to its own (the top mount's; submounts keep their own, read-only ones among them)."""
    _mount(source, target, None, MS_BIND | (MS_REC if recursive else 0))
    kept = os.statvfs(target).f_flag
    own = 0
    for st_flag, ms_flag in _KEPT_FLAGS:
        if kept & st_flag:
            own |= ms_flag
    _mount(None, target, None, MS_BIND | MS_REMOUNT | own | flags)


def _make_point(root: str, path: str, like: str) -> str:
    """Create in ``root`` what ``path`` needs to be bound on (a folder or an empty file, parents 0755)."""
    target = root + path
    os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
    if os.path.isdir(like):
        os.makedirs(target, mode=0o755, exist_ok=True)
    elif not os.path.exists(target):
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
    return target


def readable_paths(extra: list[str]) -> list[str]:
    """The host paths a bot sees read-only: the system runtime, /etc's few files, and ``extra``."""
    paths = [path for path in SYSTEM_PATHS if os.path.lexists(path)]
    paths += [os.path.join("/etc", name) for name in ETC_FILES if os.path.exists(os.path.join("/etc", name))]
    for path in extra:
        if path and os.path.exists(path):
            real = os.path.realpath(path)
            paths += [path] if real == os.path.abspath(path) else [real, path]
    return outermost(paths)


def outermost(paths: Sequence[str]) -> list[str]:
    """``paths`` without repeats and without those lying inside another one (bound with it), in order.

    A path inside another is kept where it is a mount point of its own on the
    host (a bind of the outer one would not carry it).
    """
    found: list[str] = []
    for path in dict.fromkeys(paths):
        inside = any(other != path and path.startswith(other.rstrip("/") + "/") for other in paths)
        if not inside or os.path.ismount(path):
            found.append(path)
    return found


def enter_root(readable: list[str], scratch_mb: int, owner: tuple[int, int], proc: str = "full") -> None:
    """Make this mount namespace's root a new tmpfs holding only ``readable`` (read-only) and a scratch, and a
    ``/proc`` showing what ``proc`` says (:data:`PROC_OPTIONS`).

    Must run in the bot's own mount and PID namespaces (as its process 1, so
    that ``/proc`` shows its own processes). ``owner`` is the ``(uid, gid)``
    the scratch belongs to. Afterwards the working folder is ``HOME``. Paths
    are bound shallowest first. Where a mount fails the process writes the
    failed mount on its stderr and exits with status 1 (it runs between
    ``fork`` and ``exec``: an exception would reach the runner without its cause).
    """
    try:
        _build_root(readable, scratch_mb, owner, PROC_OPTIONS[proc])
    except OSError as error:  # the bot-to-be's stderr is the runner's pipe: the cause reaches the crash's detail
        os.write(2, f"arena-jail: cannot build the bot's root: {error}\n".encode())
        os._exit(1)


def _build_root(readable: list[str], scratch_mb: int, owner: tuple[int, int], proc: str | None) -> None:
    global _ipc_limited
    _ipc_limited = _write_ipc_limits(scratch_mb)  # once, before the root is built (limit_ipc says what it found)
    os.umask(0o022)  # the runner's umask (e.g. 077 for results) must not close the root's folders to the bot
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    base = "/tmp"  # covered by a tmpfs in this namespace only; the host's /tmp stays under /oldroot/tmp
    _mount("tmpfs", base, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    os.chdir(base)
    os.mkdir("newroot", 0o755)
    os.mkdir("oldroot", 0o755)
    _mount("tmpfs", "newroot", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m,nr_inodes=4096")
    _pivot_root(".", "oldroot")
    os.chdir("/")
    root = "/newroot"
    for folder in ("/proc", "/tmp", "/dev/shm", HOME, SCRATCH):
        os.makedirs(root + folder, mode=0o755, exist_ok=True)
    if _mount_proc(os.fsencode(root + "/proc"), None if proc is None else os.fsencode(proc)):
        _check(-1, "mount /proc" + ("" if proc is None else f" ({proc})"))
    fresh_scratch(scratch_mb, owner, root)  # first: the bot's files may lie under /tmp, bound over it below
    for path in sorted(readable, key=lambda p: p.count(os.sep)):
        source = "/oldroot" + path
        if os.path.islink(source) and os.path.dirname(path) == "/":
            os.symlink(os.readlink(source), root + path)  # /bin -> usr/bin on merged-/usr systems
            continue
        if not os.path.exists(source) or os.path.exists(root + path) and os.path.ismount(root + path):
            continue
        _bind(source, _make_point(root, path, source), MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.makedirs(root + "/dev", mode=0o755, exist_ok=True)
    for name in DEVICES:
        _bind("/oldroot/dev/" + name, _make_point(root, "/dev/" + name, "/oldroot/dev/" + name), MS_NOSUID)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{root}/dev/{name}")
    os.chdir(root)
    _pivot_root(".", ".")  # the old root now lies on top of the new one: take it away
    _umount(".")
    # the root's own tmpfs read-only (its superblock: only its owner may make it writable again, never a game in
    # a user namespace below): it holds mount points only, and a Python bot's games share it with their template,
    # so that anything written there would be read by the next game (a runner that is not root owns it)
    _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(HOME)


def covered(paths: list[str]) -> list[str]:
    """Those of ``paths`` that lie where the scratch is bound (/tmp, /dev/shm, HOME)."""
    return [path for path in paths
            if any(path == place or path.startswith(place + "/") for place in ("/tmp", "/dev/shm", HOME))]


class ScratchPlan(NamedTuple):
    """The mounts of a scratch (:func:`fresh_scratch`), as the system calls take them: made once per size,
    owner and root (:func:`scratch_plan`), so that each game's bot only makes the calls."""

    tmpfs: tuple[bytes, bytes, bytes, int, bytes]  # mount(2)'s arguments
    folders: tuple[tuple[bytes, int, bytes], ...]  # each folder of the scratch, its mode, where it is bound


_plans: dict[tuple[int, tuple[int, int], str], ScratchPlan] = {}


def scratch_plan(size_mb: int, owner: tuple[int, int], root: str = "") -> ScratchPlan:
    """The plan of a scratch of ``size_mb`` owned by ``owner`` (uid, gid) under ``root``; a template makes its
    games' before it forks the first (:func:`arena.sandbox.limits.prepare_games`)."""
    key = (size_mb, owner, root)
    plan = _plans.get(key)
    if plan is None:
        uid, gid = owner
        options = f"mode=0755,size={max(size_mb, 1)}m,nr_inodes={SCRATCH_INODES},uid={uid},gid={gid}"
        places = (("tmp", 0o1777, "/tmp"), ("shm", 0o1777, "/dev/shm"), ("home", 0o700, HOME))
        plan = _plans[key] = ScratchPlan(
            (b"tmpfs", os.fsencode(root + SCRATCH), b"tmpfs", MS_NOSUID | MS_NODEV, options.encode()),
            tuple((os.fsencode(f"{root}{SCRATCH}/{name}"), mode, os.fsencode(root + target))
                  for name, mode, target in places))
    return plan


def fresh_scratch(size_mb: int, owner: tuple[int, int], root: str = "", keep: Sequence[str] = ()) -> None:
    """Mount a new scratch tmpfs of ``size_mb`` and bind its folders on /tmp, /dev/shm and HOME.

    Over an earlier scratch (a game forked from a template) the new mounts
    cover the old ones, which the bot, holding no capability, cannot uncover;
    the read-only paths ``keep`` that lay there are bound again on top.
    """
    # shallowest first, each with what lies under it (MS_REC): in a game's new user namespace a bind of a
    # folder holding a locked mount without it is refused (EINVAL), and a later bind would cover an earlier one
    held = [(path, os.open(path, os.O_PATH)) for path in sorted(outermost(keep), key=lambda path: path.count(os.sep))
            if os.path.exists(path)] if keep else []
    uid, gid = owner
    plan = scratch_plan(size_mb, owner, root)
    if _libc_mount(*plan.tmpfs):
        _check(-1, f"mount {root}{SCRATCH}")
    mine = owner == (os.geteuid(), os.getegid())  # a game's bot: what it makes is the owner's already
    umask = os.umask(0)
    try:
        for folder, mode, target in plan.folders:
            os.mkdir(folder, mode)
            if not mine:
                os.chown(folder, uid, gid)
                os.chmod(folder, mode)  # after the chown, which may clear mode bits
            if _libc_mount(folder, target, None, MS_BIND, None):
                _check(-1, f"mount {os.fsdecode(target)}")
    finally:
        os.umask(umask)
    for path, fd in held:
        source = f"/proc/self/fd/{fd}"
        _bind(source, _make_point(root, path, source), MS_RDONLY | MS_NOSUID | MS_NODEV, recursive=True)
        os.close(fd)


def mount_proc() -> None:
    """A ``/proc`` of this PID namespace over the one there (a game forked from a template), showing what its
    template's shows (:func:`note_proc_view`)."""
    if _mount_proc(b"/proc", _game_proc):
        _check(-1, "mount /proc")


#: what :func:`enter_root` found when it capped this IPC namespace (None: it has not run in this process)
_ipc_limited: bool | None = None


def limit_ipc(memory_mb: int) -> bool:
    """Cap System V shared memory in this IPC namespace at ``memory_mb`` (needs its owner's privilege).

    False where the kernel refuses (a runner that is not root). After :func:`enter_root`, which caps it
    itself before it builds the bot's root, it says what that found.
    """
    if _ipc_limited is not None:
        return _ipc_limited
    return _write_ipc_limits(memory_mb)


def _write_ipc_limits(memory_mb: int) -> bool:
    pages = (memory_mb << 20) // os.sysconf("SC_PAGE_SIZE")
    try:
        for name, value in (("shmmax", memory_mb << 20), ("shmall", pages), ("shmmni", 64),
                            ("msgmnb", 1 << 16), ("msgmni", 16)):
            with open(f"/proc/sys/kernel/{name}", "w") as handle:
                handle.write(str(value))
    except OSError:
        return False
    return True


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


#: ``capset``'s arguments for no capability at all (version 3: two sets of 32 bits), made once: the kernel only
#: reads them
_NO_CAPABILITIES = (ctypes.byref(_CapHeader(0x20080522, 0)), (_CapData * 2)())


def drop_capabilities() -> None:
    """Give up every capability this process holds (in its own user namespace too)."""
    _libc_prctl(47, 4, 0, 0, 0)  # PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL
    if _libc_capset(*_NO_CAPABILITIES):
        _check(-1, "capset")


def _shared_mappings() -> list[tuple[int, int]]:
    """(start, end) of every shared mapping of this process (:func:`arena.sandbox.kernel.shared_mappings`)."""
    return [(mapping.start, mapping.end) for mapping in shared_mappings()]


#: ``munmap``'s arguments for each of a template's shared mappings, found and made once before its first game
#: (:func:`note_shared_memory`)
_noted: list[tuple[ctypes.c_void_p, ctypes.c_size_t]] | None = None


def _unmap_arguments(mappings: list[tuple[int, int]]) -> list[tuple[ctypes.c_void_p, ctypes.c_size_t]]:
    return [(ctypes.c_void_p(start), ctypes.c_size_t(end - start)) for start, end in mappings]


def note_shared_memory() -> None:
    """In a template, before its first game: note its shared mappings (usually none; glibc maps its gconv
    cache shared and read-only) once, with ``munmap``'s arguments for them, so that each game's bot drops them
    without asking the kernel again or making an object. Its loop maps nothing between games; a game that still
    holds one (the template's code, the bot's, mapped more) is refused by the runner's check before its game
    (:mod:`arena.sandbox.audit`)."""
    global _noted
    _noted = _unmap_arguments(_shared_mappings())


def unmap_shared_memory() -> None:
    """Unmap every shared mapping this process inherited, whatever its protection (a channel between forks:
    the runtime's code and data are private mappings): those its template noted, else those it finds now."""
    for start, size in _unmap_arguments(_shared_mappings()) if _noted is None else _noted:
        _libc_munmap(start, size)
