"""The system-call filter of every bot process: the calls no bot needs are refused with an error.

Built with libseccomp (``libseccomp.so.2``, through a small typed ctypes
binding of the few functions used here) from the policy below, exported once
as a classic BPF program (:func:`program`), and loaded by the bot's process
as the last thing before the bot's own code runs (:func:`load`: one
``seccomp(2)`` call, no libseccomp in the child). A refused call returns
``EPERM`` (``clone3``: ``ENOSYS``, so that the C library falls back to
``clone``, whose flags the filter can read), it never kills: ordinary
programs see an error they handle.

Two filters: :data:`BOT` for a ``cmd:`` program and a game's Python bot,
:data:`TEMPLATE` for a Python bot's template, which must still clone each
game into new namespaces and mount its scratch there. A game forked from a
template keeps the template's (no filter is ever removed) and stacks
:data:`GAME` on it, what :data:`BOT` refuses beyond it (filters only ever
get stricter): together, :data:`BOT` and more. Which calls are refused, and why, is in docs/security.md.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
from typing import Callable, NamedTuple

#: libseccomp's actions: allow, and return an error number
_ACT_ALLOW = 0x7FFF0000
_ACT_ERRNO = 0x00050000
#: libseccomp's comparisons of a system call argument
_CMP_NE, _CMP_MASKED_EQ = 1, 7
#: ``SCMP_FLTATR_ACT_BADARCH``: what a call of another architecture (x32) gets
_ATTR_BADARCH = 2
_ATTR_OPTIMIZE = 8  # ``SCMP_FLTATR_CTL_OPTIMIZE``
_ARCH_X86 = 0x40000003  # AUDIT_ARCH_I386: 32-bit calls of an x86-64 process get the same rules
_SYS_SECCOMP, _SECCOMP_SET_MODE_FILTER, _SECCOMP_FILTER_FLAG_SPEC_ALLOW = 317, 1, 4  # x86-64
_PR_GET_SECCOMP = 21
#: the 32 bits the kernel reads of an ``int`` or ``unsigned int`` argument (the register's upper half is ignored)
_LOW = 0xFFFFFFFF

CLONE_NEWTIME, CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC = 0x80, 0x20000, 0x02000000, 0x04000000, \
    0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
#: every namespace flag of ``clone`` and ``unshare`` (each refused alone: libseccomp ORs rules, ANDs comparisons)
_FLAGS = (CLONE_NEWTIME, CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
          CLONE_NEWNET)
_NEW_NAMESPACES_WHY = "new namespaces: a user namespace gives capabilities over kernel code no bot needs"
KEYCTL_JOIN_SESSION_KEYRING = 1
#: fcntl commands refused: record locks (classic, 64-bit on i386, open file description), leases, dnotify
LOCK_AND_NOTIFY_COMMANDS = {
    "F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_GETLK64": 12, "F_SETLK64": 13, "F_SETLKW64": 14,
    "F_OFD_GETLK": 36, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38,
    "F_SETLEASE": 1024, "F_GETLEASE": 1025, "F_NOTIFY": 1026,
}
#: ``madvise`` advice refused: it pushes a mapped file's pages towards eviction from the page cache (refused for
#: every mapping: the filter cannot tell a bot's own memory from a shared file's)
EVICTING_ADVICE = {"MADV_COLD": 20, "MADV_PAGEOUT": 21}
#: memory deduplication (KSM) asked for: ``madvise(MADV_MERGEABLE)``, ``prctl(PR_SET_MEMORY_MERGE)``
MADV_MERGEABLE, PR_SET_MEMORY_MERGE = 12, 67
_MERGE_WHY = ("memory deduplication (KSM, where the machine runs it): a page merged with another bot's identical "
              "page is slower to write, which tells one bot what another holds")
#: ``preadv2``'s flag refused: a read that fails rather than wait for the disk says whether a page is cached
RWF_NOWAIT = 0x8
_PAGE_CACHE_WHY = ("the page cache of a file every bot sees (the runtime) is shared: one bot evicting its pages "
                   "(posix_fadvise DONTNEED, madvise MADV_COLD/MADV_PAGEOUT) and another asking which are cached "
                   "without loading them (a read with RWF_NOWAIT, cachestat) would be a channel between bots and "
                   "games")
#: the ``personality`` bits allowed (Docker's values: Linux, 32-bit Linux, UNAME26 and both); any other bit is
#: refused (the query, all bits set, too: libseccomp cannot compare one argument twice in a rule)
PERSONALITY_BITS = 0x8 | 0x20000


class Refusal(NamedTuple):
    """Refuse the calls ``names`` with ``error``, always or when ``when`` holds of their arguments.

    ``when``: comparisons ``(argument, op, a, b)`` (libseccomp's ``scmp_arg_cmp``) that must all hold
    for the call to be refused; several :class:`Refusal` of one call refuse it when any holds. (A named
    tuple, not a dataclass: every template imports this module, and ``dataclasses`` brings ``inspect``.)
    """

    names: tuple[str, ...]
    why: str
    error: int = errno.EPERM
    when: tuple[tuple[int, int, int, int], ...] = ()


def _masked(argument: int, mask: int, value: int) -> tuple[int, int, int, int]:
    return argument, _CMP_MASKED_EQ, mask, value


#: refused for every bot process, its template included
COMMON: tuple[Refusal, ...] = (
    Refusal(("add_key", "request_key"), "keyrings belong to no namespace: a channel between bots and games, and "
            "the way to keys of the runner's"),
    Refusal(("flock",), "a lock on a file every bot sees (the runtime) is a channel between bots"),
    *(Refusal((call,), "fcntl's lock, lease and notify commands: a lock or watch on a shared file is a channel "
              "between bots", when=(_masked(1, _LOW, number),))
      for number in LOCK_AND_NOTIFY_COMMANDS.values() for call in ("fcntl", "fcntl64")),
    Refusal(("inotify_init", "inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark"),
            "watches on shared files tell one bot when another opens them"),
    Refusal(("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "move_pages"),
            "reading or changing another process"),
    Refusal(("perf_event_open",), "performance counters: a side channel, and kernel attack surface"),
    Refusal(("bpf", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register"),
            "kernel attack surface no bot needs (io_uring also runs calls this filter never sees)"),
    Refusal(("umount", "umount2", "pivot_root", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount",
             "fspick", "mount_setattr", "chroot"), "changing what the bot sees of the filesystem"),
    *(Refusal(("unshare",), _NEW_NAMESPACES_WHY, when=(_masked(0, flag, flag),)) for flag in _FLAGS),
    Refusal(("setns",), "joining another process's namespaces"),
    Refusal(("init_module", "finit_module", "delete_module", "create_module", "query_module", "get_kernel_syms",
             "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "acct", "quotactl", "quotactl_fd",
             "lookup_dcookie", "nfsservctl", "sysfs", "_sysctl", "uselib", "ustat", "vm86", "vm86old", "iopl",
             "ioperm", "syslog", "vhangup", "sethostname", "setdomainname"),
            "the machine's administration (modules, reboot, swap, accounting, quotas, I/O ports, kernel log)"),
    Refusal(("settimeofday", "stime", "clock_settime", "clock_settime64", "clock_adjtime", "clock_adjtime64",
             "adjtimex"), "setting the machine's clocks"),
    Refusal(("name_to_handle_at", "open_by_handle_at"), "opening files by handle, around the mount table"),
    Refusal(("fadvise64", "fadvise64_64", "cachestat"), _PAGE_CACHE_WHY),
    *(Refusal(("madvise",), _PAGE_CACHE_WHY, when=(_masked(2, _LOW, advice),)) for advice in EVICTING_ADVICE.values()),
    Refusal(("preadv2",), _PAGE_CACHE_WHY, when=(_masked(5, RWF_NOWAIT, RWF_NOWAIT),)),
    Refusal(("madvise",), _MERGE_WHY, when=(_masked(2, _LOW, MADV_MERGEABLE),)),
    Refusal(("prctl",), _MERGE_WHY, when=(_masked(0, _LOW, PR_SET_MEMORY_MERGE),)),
    Refusal(("io_setup", "io_submit"), "Linux AIO: a read's RWF_NOWAIT lies in memory the filter cannot read (a probe "
            "of the page cache, see preadv2)"),
    *(Refusal(("personality",), "unusual execution domains (no address randomisation, executable reads)",
              when=(_masked(0, 1 << bit, 1 << bit),)) for bit in range(32) if not PERSONALITY_BITS & 1 << bit),
)
#: refused for a ``cmd:`` program and a game's Python bot, beyond :data:`COMMON`
GAME_ONLY: tuple[Refusal, ...] = (
    Refusal(("keyctl",), "keyrings (see add_key)"),
    Refusal(("mount",), "changing what the bot sees of the filesystem"),
    *(Refusal(("clone",), _NEW_NAMESPACES_WHY, when=(_masked(0, flag, flag),)) for flag in _FLAGS),
    Refusal(("clone3",), "its flags lie in memory the filter cannot read: the C library then uses clone",
            error=errno.ENOSYS),
)
#: why a Python bot's template and its games make no socket (the games share the template's network namespace)
NO_SOCKET_WHY = ("a Python bot's template and its games share one network namespace (the games do not pay for "
                 "one each): no socket of any family, so nothing in it to reach, name, count or change")
#: why they use no System V IPC or POSIX message queue (the games share the template's IPC namespace)
NO_IPC_WHY = ("a Python bot's template and its games share one IPC namespace (the games do not pay for one each): "
              "no System V shared memory, semaphore or message queue, no POSIX message queue, so nothing in it "
              "to find, attach or count")
#: ``prctl(PR_SET_DUMPABLE, ...)``, refused but to 0 to a template and its games
PR_SET_DUMPABLE = 4
NOT_DUMPABLE_WHY = ("a game's bot stays not dumpable (its template, whose code is the bot's, could otherwise read it "
                    "through /proc)")
#: a clock id of a process's CPU clock by its id (negative, the per-thread bit clear: ``MAKE_PROCESS_CPUCLOCK``),
#: refused with EINVAL (what the kernel answers for a process that is not there); a thread's clock stays
_PROCESS_CLOCK_BITS, _PROCESS_CLOCK = 0x80000004, 0x80000000
OTHERS_CPU_WHY = ("another process's CPU time read by its id: a template would read its games' (its own is "
                  "CLOCK_PROCESS_CPUTIME_ID)")
CGROUP_NAMESPACE_WHY = ("a cgroup namespace of its own: cgroup2 mounted there opens the cgroup it was made in (a "
                        "game's slot, whose cpu.stat is its earlier games' CPU time) to a process of the slot's owner "
                        "(an unprivileged runner's bots share its user id)")
#: refused for a template beyond :data:`COMMON`: every ``keyctl`` but joining a fresh session keyring (each game
#: does, before its own filter); it still clones games into new namespaces and mounts their scratch. Its games
#: inherit this filter (and stack :data:`BOT` on it), so no process a template starts ever holds a socket or an
#: IPC object: the network and IPC namespaces its games share with it stay empty whatever the bot's code does
TEMPLATE_ONLY: tuple[Refusal, ...] = (
    Refusal(("keyctl",), "keyrings (see add_key)", when=((0, _CMP_NE, KEYCTL_JOIN_SESSION_KEYRING, 0),)),
    Refusal(("keyctl",), "keyrings (see add_key)", when=((1, _CMP_NE, 0, 0),)),
    Refusal(("socket", "socketpair", "socketcall"), NO_SOCKET_WHY),
    Refusal(("shmget", "shmat", "shmctl", "semget", "semop", "semtimedop", "semtimedop_time64", "semctl", "msgget",
             "msgsnd", "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedsend_time64",
             "mq_timedreceive", "mq_timedreceive_time64", "mq_notify", "mq_getsetattr", "ipc"), NO_IPC_WHY),
    Refusal(("prctl",), NOT_DUMPABLE_WHY, when=((0, _CMP_MASKED_EQ, _LOW, PR_SET_DUMPABLE), (1, _CMP_NE, 0, 0))),
    Refusal(("clock_gettime", "clock_gettime64", "clock_getres", "clock_getres_time64", "clock_nanosleep",
             "clock_nanosleep_time64", "timer_create"), OTHERS_CPU_WHY, error=errno.EINVAL,
            when=(_masked(0, _PROCESS_CLOCK_BITS, _PROCESS_CLOCK),)),
    Refusal(("clone",), CGROUP_NAMESPACE_WHY, when=(_masked(0, CLONE_NEWCGROUP, CLONE_NEWCGROUP),)),
)
#: refused beyond :data:`TEMPLATE_ONLY` to the template of a runner whose bots share its user id (not root): ``clone3``,
#: whose flags (a cgroup namespace) lie in memory; it then forks each game with ``clone`` into its slot, moving there
SHARED_USER_ONLY: tuple[Refusal, ...] = (
    Refusal(("clone3",), CGROUP_NAMESPACE_WHY + "; clone3's flags lie in memory the filter cannot read (where bots "
            "share the runner's user id)", error=errno.ENOSYS),
)
BOT = "bot"
TEMPLATE = "template"
#: the template of a runner whose bots share its user id (:data:`SHARED_USER_ONLY`)
TEMPLATE_SHARED_USER = "template-shared-user"
#: what a game forked from a template stacks on the template's filter, which it keeps (no filter is ever removed):
#: only what :data:`BOT` refuses beyond it, so that each game loads (and each of its calls runs) a short filter
GAME = "game"
POLICIES = {BOT: COMMON + GAME_ONLY, TEMPLATE: COMMON + TEMPLATE_ONLY, GAME: GAME_ONLY,
            TEMPLATE_SHARED_USER: COMMON + TEMPLATE_ONLY + SHARED_USER_ONLY}


class _Compare(ctypes.Structure):
    """``struct scmp_arg_cmp``."""

    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


class _Program(ctypes.Structure):
    """``struct sock_fprog``: a classic BPF program for ``seccomp(2)``."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Unavailable(Exception):
    """The filter cannot be built here (no libseccomp, an architecture it does not know); the message says why."""


@functools.cache
def _library() -> ctypes.CDLL:
    try:  # by its usual name first: find_library runs ldconfig, slow and absent in a jail
        library = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    except OSError:
        from ctypes.util import find_library  # only here: it brings subprocess into every template

        name = find_library("seccomp")
        if name is None:
            raise Unavailable("libseccomp not found (install libseccomp2)") from None
        library = ctypes.CDLL(name, use_errno=True)
    library.seccomp_init.restype = ctypes.c_void_p
    library.seccomp_init.argtypes = [ctypes.c_uint32]
    library.seccomp_release.argtypes = [ctypes.c_void_p]
    library.seccomp_release.restype = None
    library.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                               ctypes.POINTER(_Compare)]
    library.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    library.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    library.seccomp_arch_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    library.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    library.seccomp_load.argtypes = [ctypes.c_void_p]
    return library


def _errno_action(number: int) -> int:
    return _ACT_ERRNO | (number & 0xFFFF)


def _check(result: int, what: str) -> None:
    if result < 0:
        raise Unavailable(f"libseccomp: {what}: {os.strerror(-result)}")


def build(kind: str) -> int:
    """A libseccomp context holding the policy ``kind`` (:data:`BOT` or :data:`TEMPLATE`); release it with
    ``_library().seccomp_release``. Calls this machine's libseccomp does not know are left out."""
    library = _library()
    context = library.seccomp_init(_ACT_ALLOW)
    if not context:
        raise Unavailable("libseccomp: seccomp_init failed (an architecture it does not know?)")
    try:
        _check(library.seccomp_attr_set(context, _ATTR_BADARCH, _errno_action(errno.ENOSYS)), "bad architecture")
        # a binary tree of the calls (libseccomp 2.5): half the kernel's work to load it, the same answers
        library.seccomp_attr_set(context, _ATTR_OPTIMIZE, 2)
        if os.uname().machine == "x86_64":
            result = library.seccomp_arch_add(context, _ARCH_X86)
            if result not in (0, -errno.EEXIST):
                _check(result, "adding i386")
        for refusal in POLICIES[kind]:
            compares = (_Compare * max(len(refusal.when), 1))(*(_Compare(*compare) for compare in refusal.when))
            for name in refusal.names:
                number = library.seccomp_syscall_resolve_name(name.encode())
                if number == -1:  # __NR_SCMP_ERROR: a call this libseccomp has never heard of
                    continue
                _check(library.seccomp_rule_add_array(context, _errno_action(refusal.error), number,
                                                      len(refusal.when), compares), f"rule for {name}")
    except BaseException:
        library.seccomp_release(context)
        raise
    return int(context)


@functools.cache
def program(kind: str) -> bytes:
    """The policy ``kind`` as a BPF program (``struct sock_filter`` array), built once per process."""
    library = _library()
    context = build(kind)
    fd = os.memfd_create("arena-seccomp", 0)
    try:
        _check(library.seccomp_export_bpf(context, fd), "export")
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    finally:
        os.close(fd)
        library.seccomp_release(context)
    return b"".join(chunks)


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def loader(code: bytes) -> Callable[[], None]:
    """A function that loads the BPF program ``code`` into the calling process (and all it will start).

    Everything it needs is made now, in the caller, so that the function does
    one ``seccomp(2)`` call in the child (``prctl`` where that call is
    refused); it needs ``NO_NEW_PRIVS``. It raises ``OSError`` when the kernel refuses the filter.
    """
    buffer = ctypes.create_string_buffer(code, len(code))
    fprog = _Program(len(code) // 8, ctypes.addressof(buffer))

    def load() -> None:
        for flags in (_SECCOMP_FILTER_FLAG_SPEC_ALLOW, 0):  # no forced speculation mitigations: not what it is for
            if _libc.syscall(_SYS_SECCOMP, _SECCOMP_SET_MODE_FILTER, flags, ctypes.byref(fprog)) == 0:
                return
            if ctypes.get_errno() not in (errno.EINVAL, errno.ENOSYS):
                break
        else:
            if _libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) == 0:  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
                return
        number = ctypes.get_errno()
        raise OSError(number, f"seccomp filter: {os.strerror(number)}")

    load.keep = (buffer, fprog)  # type: ignore[attr-defined]  # alive as long as the function
    return load


def filtered() -> bool:
    """Whether this process runs under a system-call filter already (a template's game then adds its own)."""
    return int(_libc.prctl(_PR_GET_SECCOMP, 0, 0, 0, 0)) == 2


def refused_calls(kind: str = BOT) -> list[tuple[str, str]]:
    """``(calls, why)`` of the policy ``kind``, one per reason, for documentation and ``arena sandbox``."""
    seen: dict[str, list[str]] = {}
    for refusal in POLICIES[kind]:
        names = seen.setdefault(refusal.why, [])
        names.extend(name for name in refusal.names if name not in names)
    return [(", ".join(names), why) for why, names in seen.items()]


#: ``keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING)`` in the trial: refused with EPERM under the filter
_TRIAL_CALL = (250, 0, -3, 0)


@functools.cache
def refusal() -> str | None:
    """Why bots get no system-call filter on this machine (None: they do), found once per process.

    Builds both filters and loads the bots' one in a forked child, which must
    then see ``keyctl`` refused with ``EPERM`` and still run.
    """
    if os.uname().machine != "x86_64":
        return f"written for x86-64 system call numbers, this machine is {os.uname().machine}"
    try:
        load = loader(program(BOT))
        loader(program(TEMPLATE))
    except (Unavailable, OSError) as error:
        return str(error)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, which only makes system calls
        code = 1
        try:
            _libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
            load()
            refused = _libc.syscall(*_TRIAL_CALL) < 0 and ctypes.get_errno() == errno.EPERM
            code = 0 if refused else 2
        finally:
            os._exit(code)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if status == 0:
        return None
    if status == 2:
        return "a loaded filter did not refuse keyctl"
    return "the kernel refuses system-call filters (seccomp)"
