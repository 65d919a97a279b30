"""What is put around a bot process: resource limits, a user id of its own, namespaces; and its end.

Everything here is applied between ``fork`` and ``exec`` of the bot (in the
child :mod:`subprocess` forks, through ``preexec_fn``), so the bot starts
already limited and cannot undo the hard limits. See docs/sandbox.md for what each protection promises.
"""

from __future__ import annotations

import errno
import math
import os
import resource
import signal
import socket
import stat
from typing import TYPE_CHECKING, Callable, Sequence

from arena.sandbox import jail, keyring, reaper, seccomp
from arena.sandbox.syscalls import check as _check
from arena.sandbox.syscalls import clone
from arena.sandbox.syscalls import libc as _libc
from arena.sandbox.syscalls import mount as _mount

if TYPE_CHECKING:  # not imported at run time: a template (which imports this module) stays smaller
    from arena.match import Limits, ProcView

#: Address space allowed above ``memory_mb``: runtimes reserve address space
#: they never touch (Node's V8 needs about 1 GiB of it to start), so the real
#: memory bound is RLIMIT_DATA (private writable memory) and RLIMIT_AS only
#: stops what DATA does not count (shared anonymous mappings).
ADDRESS_SLACK_MB = 2048
#: Open files per bot process.
MAX_OPEN_FILES = 256
#: Processes and threads per bot, counted by the kernel per user id, so only
#: applied when the bot has a user id of its own (the runner is root).
MAX_TASKS = 128
#: The RLIMIT_CPU backstop is set this much above the CPU time the runner
#: allows, and moved up only when a decision's allowance would pass it (so
#: most decisions cost no system call for it).
CPU_BACKSTOP_SLACK_S = 5

#: Bots of a root runner run as ``UID_BASE + runner_pid * UIDS_PER_RUNNER + slot``:
#: ids no account uses, different for every live bot on the machine.
UID_BASE = 1 << 30
UIDS_PER_RUNNER = 64

_PR_SET_PDEATHSIG = 1
_CLONE_NEWNS, _CLONE_NEWUSER, _CLONE_NEWPID, _CLONE_NEWNET = 0x00020000, 0x10000000, 0x20000000, 0x40000000
_CLONE_NEWIPC = 0x08000000
#: a game's bot is the child of its template's parent (the reaper), not of the template: see fork_game
_CLONE_PARENT = 0x00008000
_PR_SET_NO_NEW_PRIVS = 38
#: the hard RLIMIT_CPU allows this many decisions at full move time beyond start and bank (a runner that is
#: root raises it when a reused process needs more; other runners cannot, and the process then dies)
HARD_CPU_DECISIONS = 2000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC, _MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
_prctl = getattr(_libc, "prctl", None)


_SIGKILL = int(signal.SIGKILL)


def die_with_parent() -> None:
    """Have the kernel SIGKILL this process when its parent dies (Linux; elsewhere nothing)."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, _SIGKILL)


def resource_limits(limits: Limits, own_uid: bool) -> list[tuple[int, int]]:
    """``(RLIMIT_x, value)`` pairs for a bot process under ``limits``."""
    memory = limits.memory_mb << 20
    pairs = [
        (resource.RLIMIT_DATA, memory),
        (resource.RLIMIT_AS, memory + (ADDRESS_SLACK_MB << 20)),
        (resource.RLIMIT_FSIZE, memory),
        (resource.RLIMIT_NOFILE, MAX_OPEN_FILES),
        (resource.RLIMIT_CORE, 0),
    ]
    if own_uid:
        pairs.append((resource.RLIMIT_NPROC, MAX_TASKS))
    return pairs


def cpu_hard_seconds(limits: Limits) -> int:
    """The finite hard RLIMIT_CPU of a bot process: its start, its bank and ``HARD_CPU_DECISIONS`` decisions."""
    return math.ceil((limits.start_ms + limits.bank_ms + limits.move_ms * HARD_CPU_DECISIONS) / 1000) \
        + CPU_BACKSTOP_SLACK_S


def no_new_privileges() -> None:
    """Forbid this process and its children ever to gain privileges (set-user-id files, file capabilities)."""
    if _prctl is not None:
        _check(_prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")


def cpu_backstop_seconds(cpu_used_ns: int, allowed_ms: float) -> int:
    """The least RLIMIT_CPU soft limit that lets a bot run ``allowed_ms`` more CPU time."""
    return math.ceil(cpu_used_ns / 1e9 + allowed_ms / 1000)


def hidden_ancestors(paths: list[str], uid: int) -> list[str]:
    """The folders on the way to ``paths`` that ``uid`` may not pass (not its own, no ``o+x``), outermost first.

    A bot with a user id of its own could not reach what lies below them (on
    these machines: the runner's Python, installed under root's 0700 home).
    """
    found: list[str] = []
    for path in paths:
        parts = os.path.abspath(path).split(os.sep)[1:]
        for depth in range(1, len(parts) + 1):
            folder = os.sep + os.path.join(*parts[:depth])
            try:
                status = os.stat(folder)
            except OSError:
                break
            hidden = stat.S_ISDIR(status.st_mode) and not status.st_mode & stat.S_IXOTH and status.st_uid != uid
            if hidden and folder not in found:
                found.append(folder)
    return sorted(found, key=lambda folder: folder.count(os.sep))


def open_folders(folders: list[str]) -> None:
    """Let everyone pass ``folders`` (mode 0711) in this mount namespace, without opening their contents.

    Each folder gets a tmpfs of mode 0711 laid over it, and every entry of the
    original is bind-mounted back in place (symbolic links copied), so what lies
    inside keeps its own permissions and only passing through is new. The
    runner's view of the filesystem is untouched.
    """
    for folder in folders:
        original = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        names = os.listdir(original)
        _mount("tmpfs", folder, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0711,size=64k")
        for name in names:
            inside = os.path.join(folder, name)
            mode = os.lstat(name, dir_fd=original).st_mode
            if stat.S_ISLNK(mode):
                os.symlink(os.readlink(name, dir_fd=original), inside)
                continue
            if stat.S_ISDIR(mode):
                os.mkdir(inside)
            elif stat.S_ISREG(mode):
                os.close(os.open(inside, os.O_CREAT | os.O_WRONLY, 0o600))
            else:
                continue
            _mount(f"/proc/self/fd/{original}/{name}", inside, None, _MS_BIND | _MS_REC)
        os.close(original)


#: the namespaces of a bot: its own mount table, processes, network, System V IPC (and users, see below)
NAMESPACES = _CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWPID | _CLONE_NEWIPC


def enter_namespaces(new_user: bool) -> None:
    """Give this process new network, PID, IPC and mount namespaces (and a user namespace when not root).

    A non-root runner needs the user namespace to make the others; it maps
    only the runner's own ids, so the bot stays an ordinary user inside and
    keeps no capability once it execs.
    """
    ids = os.getuid(), os.getgid()
    _check(_libc.unshare(NAMESPACES | (_CLONE_NEWUSER if new_user else 0)), "unshare")
    own_namespaces(ids if new_user else None)


def own_namespaces(ids: tuple[int, int] | None, private: bool = True) -> None:
    """In new namespaces: map the user ``ids`` (uid, gid: the process's own before its user namespace; None:
    none made) to themselves, and (``private``) keep this mount table's changes to itself.

    A game forked from a template needs no ``private``: its template's mounts are private already (its root
    was made so before the template's first instruction, and the template, holding no capability over its
    mount namespace, cannot change that), and a mount namespace made with a new user namespace turns any
    shared mount it copies into a slave, which sends nothing back to the template."""
    if ids is not None:
        for path, text in id_maps(ids):
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, text)
            finally:
                os.close(fd)
    if private:
        _mount(None, "/", None, _MS_REC | _MS_PRIVATE)


_id_maps: dict[tuple[int, int], tuple[tuple[bytes, bytes], ...]] = {}


def id_maps(ids: tuple[int, int]) -> tuple[tuple[bytes, bytes], ...]:
    """What :func:`own_namespaces` writes to map the user ``ids`` (uid, gid) to themselves: each file and its
    text, made once per ids."""
    maps = _id_maps.get(ids)
    if maps is None:
        uid, gid = ids
        maps = _id_maps[ids] = ((b"/proc/self/setgroups", b"deny"), (b"/proc/self/uid_map", b"%d %d 1" % (uid, uid)),
                                (b"/proc/self/gid_map", b"%d %d 1" % (gid, gid)))
    return maps


_prepared: tuple[tuple[int, int], int] | None = None


def prepare_games(ids: tuple[int, int], memory_mb: int) -> None:
    """In a template, before it forks a game: make once what each game's jail passes to the kernel (its id maps,
    its scratch's mounts), so that each game's bot only makes the calls (every object a game's bot makes or
    changes is a page it copies). Made again only when they change (a template's games are alike): each call
    writes no more of the template than it must either (what it writes is copied too, while a game lives)."""
    global _prepared
    if _prepared != (ids, memory_mb):
        id_maps(ids)
        jail.scratch_plan(memory_mb, ids)
        jail.note_proc_view()
        _prepared = ids, memory_mb


def fork_game(cgroup_procs: int | None = None, cgroup_folder: int | None = None, *,
              shared: bool = False) -> tuple[int, int]:
    """Fork a game's bot from a template (process 2 of its PID namespace) into namespaces of its own.

    The bot is born the child of the template's parent (``CLONE_PARENT``: the
    reaper, :mod:`arena.sandbox.reaper`), which reaps it and tells the runner
    how it ended: the template never learns a game's exit status, when it
    ended, nor its CPU time. One ``clone`` makes the bot process 1 of new user, mount, PID and (unless
    ``shared``) network and IPC namespaces (the child then calls
    :func:`own_namespaces`), born in its game's cgroup slot, whose ``cgroup.procs`` is ``cgroup_procs``.
    ``cgroup_folder`` is the slot's folder (``clone3`` makes the child there); where the kernel refuses that,
    the template moves itself there first and the child is born where it is. Where the bots share the runner's
    user id (an unprivileged runner) ``cgroup_folder`` is instead the template's own cell's ``cgroup.procs``:
    the slot's folder would open every file in it to them (its ``cpu.stat``: its earlier games' CPU time), so
    the template moves into the slot, forks, and moves back.
    ``shared``: the game stays in its template's network and IPC namespaces,
    only where the template's filter refuses every socket and IPC object
    (:func:`sockets_refused`), so that nothing can be reached in them.
    ``(pid, pidfd)`` in the template, ``(0, -1)`` in the bot.
    """
    if os.getppid() != 1:
        raise OSError(errno.EINVAL, "a game is forked only by a template whose parent is its namespace's reaper")
    flags = NAMESPACES | _CLONE_NEWUSER | _CLONE_PARENT
    if shared:
        flags &= ~(_CLONE_NEWNET | _CLONE_NEWIPC)
    back = None  # the template's own cell, to return to once the game is born in its slot
    if cgroup_folder is not None:
        if not stat.S_ISDIR(os.fstat(cgroup_folder).st_mode):
            back = cgroup_folder
        else:
            try:
                return clone(flags, cgroup_folder)
            except OSError:
                pass  # an older kernel, or a cgroup this user may not enter directly
    if cgroup_procs is not None:
        try:
            os.write(cgroup_procs, b"0")
        except OSError:
            pass
    try:
        return clone(flags)
    finally:
        if back is not None and os.getpid() != 1:  # the template, not a game's bot (process 1 of its namespace)
            try:
                os.write(back, b"0")
            except OSError:
                pass  # left in the slot: the runner finds it out of its cell once it answers (a crash)


def sockets_refused() -> bool:
    """Whether this process may make no socket (its system-call filter refuses ``socket`` and ``socketpair``,
    as a template's does: :data:`arena.sandbox.seccomp.TEMPLATE`, which refuses System V IPC and POSIX message
    queues with them), found by trying to make one."""
    try:
        socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).close()
    except PermissionError:
        return True
    except OSError:
        return False
    return False


def become_process_one(mount_proc: bool = True, proc: ProcView = "full") -> None:
    """Fork into the new PID namespace: the child returns (and execs the bot as its process 1), with a ``/proc``
    of that namespace (``mount_proc``) showing what ``proc`` says (:data:`arena.sandbox.jail.PROC_OPTIONS`).

    The parent stays outside as the bot's keeper: it holds none of the bot's
    pipes (so a bot closing its stdout is seen at once), waits for it, and
    exits with its status (dying of the same signal). It dies with the runner,
    and the bot dies with it.
    """
    child = os.fork()
    if child == 0:
        die_with_parent()
        if mount_proc:
            _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, jail.PROC_OPTIONS[proc])
        return
    os.closerange(0, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    status = os.waitpid(child, 0)[1]
    if os.WIFSIGNALED(status):
        signal.signal(os.WTERMSIG(status), signal.SIG_DFL)
        os.kill(os.getpid(), os.WTERMSIG(status))
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def preexec(pairs: list[tuple[int, int]], cpu_seconds: int, uid: int | None = None,
            open_up: Sequence[str] = (), namespaces: bool = False, *, cpu_hard: int | None = None,
            readable: list[str] | None = None, scratch_mb: int = 64,
            cgroup_files: Sequence[str] = (), forks_games: bool = False, report: int = -1,
            proc: ProcView = "full", spread: bool = True) -> Callable[[], None]:
    """The function run in the child before ``exec``: cgroups, namespaces, its own root, user id, limits,
    a fresh session keyring, and last the system-call filter.

    :param uid: (a root runner) the user id the bot becomes.
    :param open_up: (own user id, no private root) folders the bot's user must be let through
        (:func:`open_folders`).
    :param namespaces: new network, PID, IPC and mount namespaces (:func:`enter_namespaces`).
    :param readable: with namespaces, the bot gets a root of its own showing only these host paths,
        read-only, and a private scratch of ``scratch_mb`` for /tmp, /dev/shm and its working folder
        (:func:`arena.sandbox.jail.enter_root`); None: the host's filesystem.
    :param cgroup_files: ``cgroup.procs`` files the process joins first (:mod:`arena.sandbox.cgroups`).
    :param cpu_hard: the hard RLIMIT_CPU (finite: the bot cannot raise its soft limit past it).
    :param forks_games: the process is a Python bot's template: its filter still lets it clone each game into
        new namespaces and mount its scratch (the game then stacks the bots' filter, :func:`game_seal`); with
        namespaces it is process 2 of its PID namespace, the child of a reaper (:mod:`arena.sandbox.reaper`),
        which is its games' parent and writes how each ended to ``report``, and its ``/proc`` hides both.
    :param proc: with namespaces, what the bot's ``/proc`` shows: ``full``, or ``processes`` only (``[sandbox]
        proc``; a template's games mount theirs like the template's, :func:`arena.sandbox.jail.mount_proc`).
    :param spread: the bot may run on every core (``[limits] threads`` above one); else it keeps the runner's
        (a pinned worker's game then takes turns on its core: about a tenth less CPU a jailed game).

    Hard limits never rise above the runner's own. NO_NEW_PRIVS is set last, then the filter
    (:mod:`arena.sandbox.seccomp`, where this machine allows one): nothing after it is the runner's code.
    """
    settings = []
    for kind, value in pairs:
        hard = resource.getrlimit(kind)[1]
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        settings.append((kind, (value, value)))
    runner_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    cpu_hard = max(cpu_hard or cpu_seconds, cpu_seconds)
    if runner_hard != resource.RLIM_INFINITY:
        cpu_hard = min(cpu_hard, runner_hard)
    settings.append((resource.RLIMIT_CPU, (min(cpu_seconds, cpu_hard), cpu_hard)))
    folders = list(open_up)
    joins = list(cgroup_files)
    # a template whose games' bots share the runner's user id (uid None) owns their cgroup slots as the runner does:
    # it is refused clone3 too (a cgroup namespace in its flags), and clones each game into its slot by moving there
    load_filter = filter_loader(seccomp.BOT if not forks_games else seccomp.TEMPLATE if uid is not None
                                else seccomp.TEMPLATE_SHARED_USER)

    def apply() -> None:
        die_with_parent()
        if spread:  # several threads a bot: not a pinned worker's one core (else its bots take turns on it)
            try:
                os.sched_setaffinity(0, range(os.cpu_count() or 1))
            except (OSError, AttributeError):
                pass
        for path in joins:
            with open(path, "w") as handle:
                handle.write("0")
        if namespaces:
            enter_namespaces(new_user=uid is None)
        elif uid is not None:
            _check(_libc.unshare(_CLONE_NEWNS), "unshare")
            _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
        if uid is not None and readable is None:
            open_folders(folders)
        if namespaces:
            become_process_one(mount_proc=readable is None, proc=proc)
            if forks_games:
                reaper.become_reaper(report)  # this process goes on as the template, process 2
            if readable is not None:
                owner = (uid, uid) if uid is not None else (os.getuid(), os.getgid())
                jail.enter_root(readable, scratch_mb, owner, proc)
                jail.limit_ipc(scratch_mb)
            if forks_games:
                reaper.hide_other_processes()
        if uid is not None:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        keyring.join_fresh_session()  # as the bot's user: the keyring is its own, none of the runner's possessed
        for kind, values in settings:
            resource.setrlimit(kind, values)
        no_new_privileges()
        die_with_parent()
        if load_filter is not None:
            load_filter()

    return apply


def filter_loader(kind: str) -> Callable[[], None] | None:
    """What loads the system-call filter ``kind`` (:data:`arena.sandbox.seccomp.BOT` or ``TEMPLATE``) into a
    new process; None where this machine gives bots none (``arena sandbox`` says why)."""
    if seccomp.refusal() is not None:
        return None
    return seccomp.loader(seccomp.program(kind))


def game_seal() -> Callable[[], None]:
    """Made by a template before its first game: what each game's bot runs last, after its jail and before the
    bot's code: a fresh session keyring of its own (not the template's, shared by its games), then, when the
    template runs under a filter, what the bots' filter refuses beyond the template's (no mounts, namespaces
    or keyrings: :data:`arena.sandbox.seccomp.GAME`) stacked on it; the template's, which no process can
    remove, refuses the rest."""
    load: Callable[[], None] | None = None
    failure = ""
    if seccomp.filtered():
        try:
            load = seccomp.loader(seccomp.program(seccomp.GAME))
        except (seccomp.Unavailable, OSError) as error:
            failure = f"cannot build the game's system-call filter: {error}"

    def seal() -> None:
        keyring.join_fresh_session()
        if failure:
            raise OSError(errno.EPERM, failure)
        if load is not None:
            load()

    return seal


def move_cpu_backstop(pid: int, cpu_seconds: int) -> int:
    """Set the RLIMIT_CPU soft limit of a running bot to ``cpu_seconds`` plus slack; the limit set.

    Only a runner allowed to (root) raises the hard limit; others stop at it.
    Silently nothing when the bot is gone.
    """
    cpu_seconds += CPU_BACKSTOP_SLACK_S
    try:
        hard = resource.prlimit(pid, resource.RLIMIT_CPU)[1]
        if hard != resource.RLIM_INFINITY and cpu_seconds > hard:
            if os.geteuid() == 0:
                hard = cpu_seconds
            else:
                cpu_seconds = hard
        resource.prlimit(pid, resource.RLIMIT_CPU, (cpu_seconds, hard))
    except (ProcessLookupError, PermissionError, OSError):
        pass
    return cpu_seconds


class UidPool:
    """Hands out the unprivileged user ids of a root runner's bots, one per live bot process."""

    def __init__(self) -> None:
        self.owner = os.getpid()
        self.base = UID_BASE + (self.owner % (1 << 22)) * UIDS_PER_RUNNER
        self.free = list(range(UIDS_PER_RUNNER))
        self.next_shared = 0

    def take(self) -> int:
        """A user id no other live bot of this runner has (shared only past 64 live bots)."""
        if self.free:
            return self.base + self.free.pop(0)
        self.next_shared = (self.next_shared + 1) % UIDS_PER_RUNNER
        return self.base + self.next_shared

    def give_back(self, uid: int) -> None:
        """Take ``uid`` back once its bot's processes are gone; without a system-call filter, the keys its bots
        left in its user keyrings are cleared first (with one, a bot cannot make a key)."""
        slot = uid - self.base
        if 0 <= slot < UIDS_PER_RUNNER and slot not in self.free:
            if seccomp.refusal() is not None:
                keyring.clear_user_keyrings(uid)
            self.free.append(slot)


def kill_user(uid: int) -> None:
    """SIGKILL every process of ``uid``: a forked helper takes that uid and calls ``kill(-1)``.

    The kernel does ``kill(-1)`` under its task list lock, so a fork bomb
    cannot outrun it; processes that left the bot's process group die too.
    """
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child only makes system calls, then exits
        try:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
            os.kill(-1, signal.SIGKILL)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
