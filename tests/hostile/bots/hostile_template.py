"""A Python bot whose module code attacks through its template: ``py:hostile_template:Bot``.

Importing this module in a template (``arena.sandbox.host``, where
``ARENA_CONTROL_FD`` names the control socket) changes how the template
speaks to the runner, as any bot's import may: with the option ``kinds``, the
template's answer for game N is preceded, replaced or followed by garbage of
kind ``kinds[(N - 1) % len(kinds)]`` (see ``GARBAGE``), from game ``spare`` + 1
on (so that it passes the run's check of every bot); with ``losing``, the
game's bot exits with status 3 at a decision where it has less money than
another seat, and the template would then send garbage instead of that
status (if it heard it: it reaps no game since the reaper does). With ``notes``, the template maps
a page shared and read-only at import; each game's bot makes it writable
(``mprotect``), reads the notes of earlier games there and adds one, and
reports what it found (``hostile: {"notes": [...]}`` on stderr). With
``poke``, the template writes into the memory of each game's bot it forked
before through ``/proc/PID/mem``; the bot reports what its buffer holds
(``hostile: {"poked": ...}``). With ``burn`` (seconds), the template raises
its soft CPU limit at import and computes that long on each request for a game.
With ``helper`` ("thread" or "process"), the template starts a helper at
import that would compute between games ("orphan": a process in a session of
its own whose parent exited, so that the template's reaper is its parent). With ``patch`` (a list of
"unmap", "dumpable", "scratch", "descriptors", "proc", "session"), the template turns off
that part of its games' jail (the host's code is the template's, so the bot's):
it keeps its shared mappings, stays dumpable, keeps the template's /tmp (where
``tmp_notes`` keeps notes), keeps the template's open descriptors, or mounts a
full ``/proc`` where the template's shows processes only. With
``statuses``, the template keeps the exit status of each game it reaps, and
each game's bot reports those of the games before it (``hostile:
{"statuses": [...]}``) and exits after its game's end with a status it
chose from its game (the residual channel of docs/security.md, closed by
the reaper). With ``probes``, the template looks at each request at what it
could learn of the games it forked before (:func:`probe`: ``waitid``, its
children's CPU time, ``kill(pid, 0)``, their CPU clocks, their ``/proc``
entries and its reaper's, the pidfds it kept, and the id each new game's bot
gets), each game's bot reports what its template saw (``hostile:
{"probed": [...]}``), and after its game's end it leaves a mark of its game
to be seen: it burns CPU, starts threads and exits with a status chosen from
its seed. With ``keep``, the template keeps a copy of every descriptor a
request brings (the game's pipes, its cgroup slot's folder and
``cgroup.procs``) and at each later request reads through them what it can:
the slots' ``cpu.stat`` (its games' CPU time) and what is left in a game's
stdin (``hostile: {"kept": [...]}``); with ``peek`` it reads the same through
the request's own descriptors before it forks the game, keeping none. With
``mount_slot`` it reads the slot without its folder: at each request a helper
process moves into the game's slot (its ``cgroup.procs``, which the request
brings) and clones a child into new user, mount and cgroup namespaces (the
new cgroup namespace's root is the slot), which mounts cgroup2 and reads the
slot's ``cpu.stat``, its earlier games' CPU time (``clone``, else ``clone3``,
whose flags a filter cannot read), from its second request on (the first
comes with its ready, while the runner counts its processes); what it read is
reported as with ``keep``, and why it read nothing (``hostile: {"refused":
[...]}``). With ``watch_ids``, while it waits for each request (its game
being played) the template forks children every few ms and counts the ids
its game took meanwhile (each game's bot starts threads at its start, as many
as its seed says; ``hostile: {"watched": [...]}``); with ``wake`` too, each
game's bot first sends SIGCONT to its process group and to every process it
may signal (a template stopped without a freezer would run). With
``cpu_marks`` the template notes its CPU and wall time as each request comes,
and each game's bot reports both from each request to the next (``hostile:
{"marks": [[cpu_ms, wall_ms], ...]}``), each game lasting a fifth of a second at
least (with ``helper`` "thread" and ``[limits] threads`` above one, what its
thread computed meanwhile). With ``timer_wake`` the template handles SIGCONT
and arms a POSIX timer that sends it one every 2 ms (to wake itself if it is
stopped with SIGSTOP), armed again at each request: a SIGSTOP discards a SIGCONT
still pending, and the kernel re-arms a periodic timer only as its signal is
taken, so one SIGSTOP that lands while the timer's signal waits would end the
attack for good. With ``import_burn``
(seconds) the template computes that long at import, before it says ready;
with ``ready_burn`` right after it said ready, before it reads its first
request (its soft CPU limit raised for both, as with ``burn``). The bot
itself plays like ``random`` (the same moves for the same seed).
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import resource
import select
import signal
import threading
import time
import socket
import sys
from typing import Any, Callable

from arena_bots.random_bot import RandomBot


def _options() -> dict[str, Any]:
    """The bot's options, read at import from the host's command line (``python -m arena.sandbox.host SPEC``)."""
    try:
        return json.loads(sys.argv[1]).get("options") or {}
    except (IndexError, ValueError, AttributeError):
        return {}


OPTIONS = _options()
CONTROL = os.environ.get("ARENA_CONTROL_FD")  # only in a template
LOST = 3  # the exit status of a game's bot that lost
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
PAGE = mmap.PAGESIZE
#: the page of notes, mapped shared and read-only in the template (None: not asked for, or refused)
NOTES = libc.mmap(None, PAGE, mmap.PROT_READ, mmap.MAP_SHARED | mmap.MAP_ANONYMOUS, -1, 0) \
    if CONTROL is not None and OPTIONS.get("notes") else None


#: a buffer at the same address in the template and every game's bot: the template writes here through /proc
POKED = ctypes.create_string_buffer(16)
FORKED: list[int] = []  # the games' bots the template forked, by their ids in its namespace
if CONTROL is not None and (OPTIONS.get("burn") or OPTIONS.get("import_burn") or OPTIONS.get("ready_burn")):
    resource.setrlimit(resource.RLIMIT_CPU, (resource.getrlimit(resource.RLIMIT_CPU)[1],) * 2)


def poke(new: int) -> None:
    """In the template: write a mark into the buffer of every game's bot it forked before the one it just forked
    (``new``: whose id may be one of theirs, reused once they were reaped)."""
    for pid in FORKED:
        if pid == new:
            continue
        try:
            with open(f"/proc/{pid}/mem", "r+b", buffering=0) as memory:
                memory.seek(ctypes.addressof(POKED))
                memory.write(b"poked")
        except OSError:
            pass


def burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def notes() -> list[int] | str:
    """The seeds of earlier games found in the notes page, this game's added ("gone": the page was taken away)."""
    if NOTES is None or NOTES == ctypes.c_void_p(-1).value:
        return "none"
    if libc.mprotect(NOTES, PAGE, mmap.PROT_READ | mmap.PROT_WRITE) != 0:
        return "gone"
    page = (ctypes.c_uint64 * (PAGE // 8)).from_address(NOTES)
    count = page[0]
    found = list(page[1:1 + count])
    if count + 2 < len(page):
        page[1 + count] = len(found) + 1
        page[0] = count + 1
    return found
_send_fds = socket.send_fds


def _dumps(message: Any) -> bytes:
    return json.dumps(message).encode()


def _forked(sock: socket.socket, message: dict, fds: list[int]) -> None:
    _send_fds(sock, [_dumps(message)], fds)


def _before(garbage: bytes) -> Callable[[socket.socket, dict, list[int]], None]:
    """Garbage, then the true answer."""
    def send(sock: socket.socket, message: dict, fds: list[int]) -> None:
        sock.send(garbage)
        _forked(sock, message, fds)
    return send


def _after(garbage: Callable[[dict], bytes]) -> Callable[[socket.socket, dict, list[int]], None]:
    """The true answer, then garbage about the same game (an extra message)."""
    def send(sock: socket.socket, message: dict, fds: list[int]) -> None:
        _forked(sock, message, fds)
        sock.send(garbage(message))
    return send


def _twice(sock: socket.socket, message: dict, fds: list[int]) -> None:
    _forked(sock, message, fds)
    _forked(sock, message, [os.dup(fds[0])])


def _pipe_for_pidfd(sock: socket.socket, message: dict, fds: list[int]) -> None:
    read, _ = os.pipe()
    _forked(sock, message, [read])


def _closed(sock: socket.socket, message: dict, fds: list[int]) -> None:
    sock.shutdown(socket.SHUT_RDWR)


GARBAGE: dict[str, Callable[[socket.socket, dict, list[int]], None]] = {
    "clean": _forked,
    "not-json": _before(b"this is not JSON {"),
    "invalid-utf8": _before(b'{"game": 1, "error": "\xff\xfe\xfd"}'),
    "not-an-object": _before(b"[1, 2, 3]"),
    "huge": _before(b'{"game": 1, "error": "' + b"x" * 100_000 + b'"}'),
    "empty": _before(b""),
    "second-ready": _before(b'{"ready": true}'),
    "unhashable-game": _before(b'{"game": [1], "exited": 0}'),
    "game-as-text": lambda sock, message, fds: _forked(sock, {**message, "game": str(message["game"])}, fds),
    "unknown-game": lambda sock, message, fds: _forked(sock, {**message, "game": message["game"] + 1000}, fds),
    "exited-before-forked": lambda sock, message, fds: _before(
        _dumps({"game": message["game"], "exited": 0}))(sock, message, fds),
    "error-not-text": lambda sock, message, fds: _before(
        _dumps({"game": message["game"], "error": 12345}))(sock, message, fds),
    "no-descriptor": lambda sock, message, fds: _forked(sock, message, []),
    "pipe-for-pidfd": _pipe_for_pidfd,
    "closed": _closed,
    "twice": _twice,
    "status-as-text": _after(lambda message: _dumps({"game": message["game"], "exited": "zero"})),
    "status-out-of-range": _after(lambda message: _dumps({"game": message["game"], "exited": 1 << 40})),
}


#: with ``probes``: what the template saw of its earlier games at each request (each game's bot inherits the list
#: as it was when it was forked: the last entry is what its template saw just before forking it)
PROBED: list[dict[str, Any]] = []
KEPT: list[int] = []  # the pidfds of its games' bots the template kept (a copy of each it sent)


def probe() -> dict[str, Any]:
    """In the template: everything it can ask the kernel about the games' bots it forked before."""
    seen: dict[str, Any] = {}
    try:  # a child that ended (left to be reaped: WNOWAIT)
        ended = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        seen["waitid"] = None if ended is None else [ended.si_pid, ended.si_status]
    except ChildProcessError:
        seen["waitid"] = "no child"
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    seen["children_cpu_ms"] = round((usage.ru_utime + usage.ru_stime) * 1000)
    seen["kill"], seen["cpu_clock"] = [], []
    for pid in FORKED:
        try:
            os.kill(pid, 0)
            seen["kill"].append("alive")
        except ProcessLookupError:
            seen["kill"].append("gone")
        except PermissionError:
            seen["kill"].append("not allowed")
        try:  # its process CPU clock (CPUCLOCK_SCHED)
            seen["cpu_clock"].append(round(time.clock_gettime(((~pid) << 3) | 2) * 1000))
        except OSError:
            seen["cpu_clock"].append("refused")
    seen["proc"] = sorted(int(name) for name in os.listdir("/proc") if name.isdigit() and int(name) != os.getpid())
    try:
        with open("/proc/1/stat") as handle:  # its parent (the reaper): its children's CPU time, its state
            seen["reaper"] = handle.read().rsplit(")", 1)[1].split()[:15]
    except OSError:
        seen["reaper"] = "hidden"
    seen["pidfds"] = [bool(select.select([fd], [], [], 0)[0]) for fd in KEPT]
    seen["ids"] = list(FORKED)  # the id each game's bot got here (a game's threads and processes take ids too)
    return seen


def _hostile_send_fds(sock: socket.socket, buffers: list[bytes], fds: list[int], *args: Any) -> Any:
    message = json.loads(b"".join(buffers))
    if "forked" in message and OPTIONS.get("poke"):
        poke(message["forked"])
    if "forked" in message:
        FORKED.append(message["forked"])
        if OPTIONS.get("probes") and fds:
            KEPT.append(os.dup(fds[0]))
    kinds = OPTIONS.get("kinds") or []
    if "forked" not in message or not kinds or message["game"] <= OPTIONS.get("spare", 0):
        return _send_fds(sock, buffers, fds, *args)
    try:
        GARBAGE[kinds[(message["game"] - 1) % len(kinds)]](sock, message, fds)
    except OSError:
        pass  # the runner closed the channel on the first garbage
    return None


_exit_code = os.waitstatus_to_exitcode


#: with ``statuses``: the exit codes of the games this template reaped, in order (each game's bot inherits the
#: list as it was when it was forked)
SEEN: list[int] = []


def _hostile_exit_code(status: int) -> int:
    """In the template: a game's bot that lost gets garbage for its exit status; with ``statuses``, the status
    is kept for the games forked after."""
    code = _exit_code(status)
    if OPTIONS.get("statuses"):
        SEEN.append(code)
    if code == LOST and CONTROL is not None:
        try:
            os.write(int(CONTROL), b"\x00\xff not a status \xfe")
        except OSError:
            pass
    return code


def helper() -> None:
    while True:
        burn(0.01)
        time.sleep(0.01)


if CONTROL is not None and OPTIONS.get("helper") == "thread":
    threading.Thread(target=helper, daemon=True).start()
if CONTROL is not None and OPTIONS.get("helper") == "process" and os.fork() == 0:
    helper()
if CONTROL is not None and OPTIONS.get("helper") == "orphan":  # a session of its own, then given to the reaper
    _middle = os.fork()
    if _middle == 0:
        os.setsid()
        if os.fork() == 0:
            helper()
        os._exit(0)
    os.waitpid(_middle, 0)

def _patch(names: list[str]) -> None:
    from arena.sandbox import jail

    if "unmap" in names:
        jail.unmap_shared_memory = lambda: None
    if "dumpable" in names:
        from arena.sandbox import kernel

        kernel.not_dumpable = lambda: None
    if "scratch" in names:
        jail.fresh_scratch = lambda *args, **kwargs: None
    if "descriptors" in names:
        os.closerange = lambda *args: None
    if "proc" in names:  # its games mount a full /proc whatever its own shows
        jail.note_proc_view = lambda: None
    if "session" in names:  # its games stay in its session and process group
        os.setsid = lambda: None


def tmp_notes() -> list[str]:
    """The notes earlier games left in /tmp/hostile-notes, this game's added."""
    try:
        with open("/tmp/hostile-notes") as handle:
            found = handle.read().split()
    except OSError:
        found = []
    with open("/tmp/hostile-notes", "a") as handle:
        handle.write(f"{len(found) + 1}\n")
    return found


_recv_fds = socket.recv_fds


def _burning_recv_fds(*args: Any) -> Any:
    """In the template: compute a while on each request before forking its game."""
    received = _recv_fds(*args)
    burn(float(OPTIONS["burn"]))
    return received


_READY_BURNT: list[bool] = []  # with ``ready_burn``: whether its first request was read
MARKS: list[tuple[float, float]] = []  # with ``cpu_marks``: the template's CPU and wall time (s) at each request


_TIMER: list[Callable[[], None]] = []  # with ``timer_wake``: arms the template's SIGCONT timer (again)


def sigcont_timer(interval_ms: int) -> None:
    """In the template: a POSIX timer that sends it SIGCONT every ``interval_ms``, which would wake it were it
    stopped with SIGSTOP (a generated SIGCONT continues a stopped process, whoever sends it)."""
    signal.signal(signal.SIGCONT, lambda *args: None)  # handled, not ignored: the kernel does not drop it
    libc = ctypes.CDLL(None, use_errno=True)
    sigevent = (ctypes.c_int * 16)()  # sigev_value (8 bytes), sigev_signo, sigev_notify (SIGEV_SIGNAL, 0), ...
    sigevent[2] = signal.SIGCONT
    timer = ctypes.c_void_p()
    if libc.timer_create(1, ctypes.byref(sigevent), ctypes.byref(timer)) != 0:  # CLOCK_MONOTONIC
        raise OSError(ctypes.get_errno(), "timer_create")
    period = (ctypes.c_long * 4)(0, interval_ms * 1_000_000, 0, interval_ms * 1_000_000)

    def arm() -> None:
        if libc.timer_settime(timer, 0, ctypes.byref(period), None) != 0:
            raise OSError(ctypes.get_errno(), "timer_settime")

    arm()
    _TIMER.append(arm)


def _rearming_recv_fds(*args: Any) -> Any:
    """In the template: arm its SIGCONT timer again before each request (a SIGSTOP that found the timer's signal
    pending discarded it, and with it the timer's next periods), then read the request as it would."""
    _TIMER[0]()
    return _TIMED_RECV[0](*args)


_TIMED_RECV: list[Callable[..., Any]] = []  # with ``timer_wake``: how the template read a request before


def _marking_recv_fds(*args: Any) -> Any:
    """In the template: note its CPU time (every thread of it) and the wall time as each request comes."""
    received = _recv_fds(*args)
    MARKS.append((time.process_time(), time.monotonic()))
    return received


def cpu_marks() -> list[list[float]]:
    """In a game's bot: ``[CPU ms, wall ms]`` of its template from each request to the next, its games played
    in between."""
    return [[round((cpu - MARKS[at][0]) * 1000, 1), round((wall - MARKS[at][1]) * 1000, 1)]
            for at, (cpu, wall) in enumerate(MARKS[1:])]


def _late_recv_fds(*args: Any) -> Any:
    """In the template: its first call follows its ready at once; compute then, before reading its first
    request (for the runner, that ready may have been sent while importing)."""
    if not _READY_BURNT:
        _READY_BURNT.append(True)
        burn(float(OPTIONS["ready_burn"]))
    return _recv_fds(*args)


KEPT_FDS: list[int] = []  # with ``keep``: copies of the descriptors of every request
KEPT_READ: list[str] = []  # what the template read through them, at each request


def _keeping_recv_fds(*args: Any) -> Any:
    """In the template: read what the descriptors kept from earlier requests show (with ``peek``, this
    request's own), then keep this one's (with ``keep``)."""
    received = _recv_fds(*args)
    for fd in KEPT_FDS + (list(received[1]) if OPTIONS.get("peek") else []):
        for name in ("cpu.stat", "../slot0/cpu.stat", "../slot1/cpu.stat"):
            try:
                with open(os.open(name, os.O_RDONLY, dir_fd=fd), "rb") as handle:
                    KEPT_READ.append(handle.read(40).decode())
            except OSError:
                pass
        try:
            if select.select([fd], [], [], 0)[0]:  # what is left unread in a game's stdin
                KEPT_READ.append(os.read(fd, 200).decode())
        except (OSError, ValueError):
            pass
    if OPTIONS.get("keep"):
        KEPT_FDS.extend(os.dup(fd) for fd in received[1])
    return received


CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUSER = 0x20000, 0x02000000, 0x10000000
libc.syscall.restype = ctypes.c_long


def _clone_into_cgroup_namespace() -> int:
    """A fork into new user, mount and cgroup namespaces (0 in the child, -errno where refused): ``clone``, and
    where that is refused ``clone3`` (its flags lie in memory)."""
    flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWCGROUP
    pid = libc.syscall(56, ctypes.c_ulong(flags | 17), None, None, None, None)  # clone, SIGCHLD
    if pid >= 0:
        return pid
    first = ctypes.get_errno()
    arguments = (ctypes.c_uint64 * 11)(flags, 0, 0, 0, 17)  # struct clone_args: flags, ..., exit_signal
    pid = libc.syscall(435, ctypes.byref(arguments), ctypes.c_size_t(88))  # clone3
    return pid if pid >= 0 else -(first * 1000 + ctypes.get_errno())


def _read_slot_in_a_cgroup_namespace(procs: int) -> str:
    """In a helper (a fork of the template): move into the slot whose ``cgroup.procs`` is ``procs``, clone a child
    whose cgroup namespace's root is that slot, which mounts cgroup2 and reads its ``cpu.stat``; what it read (or
    what was refused)."""
    read, write = os.pipe()
    helper = os.fork()
    if helper == 0:
        os.close(read)
        said = "moved"
        try:
            uid, gid = os.getuid(), os.getgid()
            os.write(procs, b"0")
            child = _clone_into_cgroup_namespace()
            if child == 0:
                said = "mapped"
                for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"{uid} {uid} 1"),
                                   ("/proc/self/gid_map", f"{gid} {gid} 1")):
                    with open(path, "w") as handle:
                        handle.write(text)
                os.makedirs("/tmp/hostile-cgroup", exist_ok=True)
                if libc.mount(b"none", b"/tmp/hostile-cgroup", b"cgroup2", 0, None) != 0:
                    raise OSError(ctypes.get_errno(), "mount cgroup2")
                with open("/tmp/hostile-cgroup/cpu.stat") as handle:
                    said = handle.read(40)
            elif child < 0:
                said = f"clone refused ({-child // 1000}, clone3 {-child % 1000})"
            else:
                os.waitpid(child, 0)
                os._exit(0)
        except OSError as error:
            said = f"{said}: {error}"
        os.write(write, said.encode())
        os._exit(0)
    os.close(write)
    os.waitpid(helper, 0)
    with os.fdopen(read, "rb") as handle:
        return handle.read().decode()


def _slot_reading_recv_fds(*args: Any) -> Any:
    """In the template: read the slot each request brings through a cgroup namespace of a helper's own."""
    received = _recv_fds(*args)
    fds = list(received[1])
    REQUESTS.append(len(fds))
    if len(fds) > 3 and len(REQUESTS) > 1:  # the first comes with its ready, while the runner counts its processes
        said = _read_slot_in_a_cgroup_namespace(fds[3])
        if said.startswith("usage_usec"):
            KEPT_READ.append(said)
        else:
            REFUSED.append(said)
    return received


WATCHED: list[int] = []  # with ``watch_ids``: the ids the games took while the template waited for each request


def _watching_recv_fds(sock: socket.socket, *args: Any) -> Any:
    """In the template, from its second request on: while it waits for the next request (its game being played),
    fork a child that exits at once every few ms and see which id it gets: the ids beyond those of the last
    game's bot and its own children are what that game took (its threads and processes take ids in the
    template's namespace). A template that is frozen while its games play (a cgroup freezer) sees none."""
    if REQUESTS:
        forks, highest = 0, 0
        select.select([sock], [], [], 0.05)  # not before the runner held it after its answer, if it does
        while not select.select([sock], [], [], 0.003)[0]:
            child = os.fork()
            if child == 0:
                os._exit(0)
            os.waitpid(child, 0)
            forks += 1
            highest = max(highest, child)
        WATCHED.append(max(highest - (FORKED[-1] if FORKED else 0) - forks, 0) if forks else 0)
    REQUESTS.append(0)
    return _recv_fds(sock, *args)


HELPER_SAW: list[int] = []  # with ``slot_helper``: the ids its helper saw the games take, as the template last heard
_HELPER_PIPE: list[int] = []  # the template's end of its helper's pipe (made at import, so its own)


def _helper_watches(procs: int, write: int) -> None:
    """The helper, a child of the template: moves into a game's slot (its ``cgroup.procs``, which the request
    brought), out of the template's frozen cell, and forever forks a child every few ms to see which id it gets,
    writing to the template how many ids others (the games) took since it started."""
    os.write(procs, b"0")
    os.write(write, b"0\n")  # moved: the template may answer (the runner then finds nothing beside it in its cell)
    taken, last = 0, 0
    while True:
        time.sleep(0.003)
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
        if last and child > last + 1:
            taken += child - last - 1
            os.write(write, b"%d\n" % taken)
        last = child


def _helping_recv_fds(sock: socket.socket, *args: Any) -> Any:
    """In the template: at its second request, fork a helper into the slot it brings (:func:`_helper_watches`);
    at each request, take what the helper wrote (its games' bots inherit it)."""
    received = _recv_fds(sock, *args)
    fds = list(received[1])
    REQUESTS.append(len(fds))
    if _HELPER_PIPE:
        try:
            lines = os.read(_HELPER_PIPE[0], 65536).split()
            if lines:
                HELPER_SAW.append(int(lines[-1]))
        except BlockingIOError:
            pass
    if len(REQUESTS) == 2 and len(fds) > 3:
        if os.fork() == 0:
            _helper_watches(fds[3], _HELPER_PIPE[1])
        os.set_blocking(_HELPER_PIPE[0], True)
        os.read(_HELPER_PIPE[0], 2)  # once it left the template's cell
        os.set_blocking(_HELPER_PIPE[0], False)
    return received


REFUSED: list[str] = []  # with ``mount_slot``: why each try read nothing
REQUESTS: list[int] = []  # with ``mount_slot``: how many descriptors each request brought


def _probing_recv_fds(*args: Any) -> Any:
    """In the template: on each request, look at the games forked before (:func:`probe`) before forking."""
    received = _recv_fds(*args)
    PROBED.append(probe())
    return received


if CONTROL is not None:
    _patch(OPTIONS.get("patch") or [])
    if OPTIONS.get("burn"):
        socket.recv_fds = _burning_recv_fds
    if OPTIONS.get("probes"):
        socket.recv_fds = _probing_recv_fds
    if OPTIONS.get("keep") or OPTIONS.get("peek"):
        socket.recv_fds = _keeping_recv_fds
    if OPTIONS.get("mount_slot"):
        socket.recv_fds = _slot_reading_recv_fds
    if OPTIONS.get("watch_ids"):
        socket.recv_fds = _watching_recv_fds
    if OPTIONS.get("ready_burn"):
        socket.recv_fds = _late_recv_fds
    if OPTIONS.get("cpu_marks"):
        socket.recv_fds = _marking_recv_fds
    if OPTIONS.get("timer_wake"):
        sigcont_timer(2)
        _TIMED_RECV.append(socket.recv_fds)
        socket.recv_fds = _rearming_recv_fds
    if OPTIONS.get("slot_helper"):
        socket.recv_fds = _helping_recv_fds
        _HELPER_PIPE.extend(os.pipe())  # at import: a descriptor of its own, not one it was sent
        os.set_blocking(_HELPER_PIPE[0], False)
    POKED.value = b"untouched"
    socket.send_fds = _hostile_send_fds
    os.waitstatus_to_exitcode = _hostile_exit_code
    if OPTIONS.get("import_burn"):
        burn(float(OPTIONS["import_burn"]))  # the last of its import: then the host says ready


class Bot:
    """Plays like ``random``; with ``losing``, a game's bot that is behind exits with status 3."""

    def __init__(self, kinds: list[str] = (), losing: bool = False, spare: int = 0,  # type: ignore
                 notes: bool = False, poke: bool = False, burn: float = 0, helper: str = "",
                 patch: list[str] = (), tmp_notes: bool = False, statuses: bool = False,
                 probes: bool = False, keep: bool = False, peek: bool = False, mount_slot: bool = False,
                 watch_ids: bool = False, slot_helper: bool = False, import_burn: float = 0,
                 ready_burn: float = 0, wake: bool = False, cpu_marks: bool = False,
                 timer_wake: bool = False) -> None:
        self.losing = losing
        self.seat = 0
        self.status = 0
        self.marks = 0
        self.bot = RandomBot()

    def start(self, info: dict) -> None:
        self.seat = info["seat"]
        if OPTIONS.get("notes"):
            print("hostile: " + json.dumps({"notes": notes()}), file=sys.stderr, flush=True)
        if OPTIONS.get("tmp_notes"):
            print("hostile: " + json.dumps({"notes": tmp_notes()}), file=sys.stderr, flush=True)
        if OPTIONS.get("statuses") or OPTIONS.get("probes"):
            self.status = 40 + info["seed"] % 50  # what this game tells the games after it, if the template hears
        if OPTIONS.get("statuses"):
            print("hostile: " + json.dumps({"statuses": SEEN}), file=sys.stderr, flush=True)
        if OPTIONS.get("keep") or OPTIONS.get("peek") or OPTIONS.get("mount_slot"):
            print("hostile: " + json.dumps({"kept": KEPT_READ}), file=sys.stderr, flush=True)
        if OPTIONS.get("mount_slot"):
            print("hostile: " + json.dumps({"refused": REFUSED}), file=sys.stderr, flush=True)
        if OPTIONS.get("watch_ids") or OPTIONS.get("slot_helper"):  # what its template saw, then its own mark
            watched = HELPER_SAW if OPTIONS.get("slot_helper") else WATCHED
            print("hostile: " + json.dumps({"watched": watched}), file=sys.stderr, flush=True)
            if OPTIONS.get("wake"):  # wake its template, stopped without a freezer: its group, its namespace
                for target in (0, -1):
                    try:
                        os.kill(target, signal.SIGCONT)
                    except OSError:
                        pass
            for _ in range(5 * (info["seed"] % 4)):  # one after the other (each takes an id; few in memory)
                helper = threading.Thread(target=time.sleep, args=(0.001,))
                helper.start()
                helper.join()
            time.sleep(0.2)  # a game long enough to be watched (on the wall clock: its CPU time stays small)
        if OPTIONS.get("cpu_marks"):
            print("hostile: " + json.dumps({"marks": cpu_marks()}), file=sys.stderr, flush=True)
            time.sleep(0.2)  # a game of a fifth of a second at least, on the wall clock
        if OPTIONS.get("probes"):
            print("hostile: " + json.dumps({"probed": PROBED}), file=sys.stderr, flush=True)
            self.marks = info["seed"] % 4  # threads started, and tens of ms of CPU burned, after the game
        self.bot.start(info)

    def end(self, info: dict) -> None:
        """With ``statuses``: the game is over (no fault), and the bot exits with the status it chose; with
        ``probes`` it first burns CPU and starts threads, as many as its seed says."""
        if OPTIONS.get("probes"):
            burn(0.03 * self.marks)
            for _ in range(self.marks):
                threading.Thread(target=time.sleep, args=(0.001,)).start()
        if OPTIONS.get("statuses") or OPTIONS.get("probes"):
            sys.stderr.flush()
            os._exit(self.status)

    def decide(self, request: dict) -> dict:
        money = [player.get("money", 0) for player in request.get("view", {}).get("players", [])]
        if self.losing and len(money) > self.seat and money[self.seat] < max(money):
            sys.stderr.flush()
            os._exit(LOST)
        if OPTIONS.get("poke"):
            print("hostile: " + json.dumps({"poked": POKED.value.decode()}), file=sys.stderr, flush=True)
        return self.bot.decide(request)

