"""What the hostile bots try, each attack a function of the phase it runs in; results go to stderr.

Every report is one line ``hostile: {json}`` on stderr, which the tests read
back from the seat. Shared by the external bot (``hostile.py``) and the
Python one (``hostile_py.Hostile``), so that both kinds try the same things.
"""

from __future__ import annotations

import base64
import ctypes
import json
import mmap
import os
import resource
import socket
import sys
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
MARK = b"arena-hostile-mark"
IPC_CREAT, IPC_PRIVATE = 0o1000, 0
SYSV_KEY = 0x41524E41
CLONE_NEWUSER = 0x10000000


def encode(args: list[str]) -> str:
    """Arguments as one word that names no path (the sandbox shows a bot the files its command names)."""
    return "b64:" + base64.b64encode(json.dumps(args).encode()).decode()


def decode(args: list[str]) -> list[str]:
    """The arguments :func:`encode` made; words after them are only for the sandbox to see (files named)."""
    if args and args[0].startswith("b64:"):
        return json.loads(base64.b64decode(args[0][4:]))
    return args


def report(**values) -> None:
    print("hostile: " + json.dumps(values), file=sys.stderr, flush=True)


def try_read(path: str) -> str:
    try:
        if os.path.isdir(path):
            return "listed: " + ",".join(sorted(os.listdir(path))[:5])
        with open(path, "rb") as handle:
            handle.read(16)
        return "read"
    except OSError as error:
        return type(error).__name__


LEAKED: list = []


def read(args: list[str]) -> None:
    """Try to read each path named (what it could read is also kept in ``LEAKED``)."""
    seen = {path: try_read(path) for path in args}
    LEAKED.extend(path for path, result in seen.items() if result == "read")
    report(read=seen)


def leave(args: list[str]) -> dict:
    """Leave marks where another bot (or a later game) could find them: /tmp, /dev/shm, sockets, SysV shm."""
    done = {}
    for path in ("/tmp/hostile-mark", "/dev/shm/hostile-mark"):
        try:
            with open(path, "wb") as handle:
                handle.write(MARK)
            done[path] = "written"
        except OSError as error:
            done[path] = type(error).__name__
    kept = []
    for address in ("/tmp/hostile.sock", "\0hostile-abstract"):
        try:
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            server.bind(address)
            server.listen(4)
            kept.append(server)
            done[repr(address)] = "listening"
        except OSError as error:
            done[repr(address)] = type(error).__name__
    segment = libc.shmget(SYSV_KEY, 4096, IPC_CREAT | 0o666)
    if segment >= 0:
        address = libc.shmat(segment, None, 0)
        ctypes.memmove(address, MARK, len(MARK))
        done["sysv"] = "written"
    else:
        done["sysv"] = f"errno {ctypes.get_errno()}"
    report(leave=done)
    return {"sockets": kept}


def find(args: list[str]) -> None:
    """Look for the marks :func:`leave` leaves (another seat's, or an earlier game's)."""
    found = {}
    for path in ("/tmp/hostile-mark", "/dev/shm/hostile-mark"):
        found[path] = try_read(path)
    for address in ("/tmp/hostile.sock", "\0hostile-abstract"):
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.connect(address)
            found[repr(address)] = "connected"
        except OSError as error:
            found[repr(address)] = type(error).__name__
    segment = libc.shmget(SYSV_KEY, 4096, 0)
    found["sysv"] = "found" if segment >= 0 else "absent"
    found["memory"] = "remembered" if REMEMBERED else "fresh"
    report(find=found)


REMEMBERED: list = []


def remember(args: list[str]) -> dict:
    """Look for what an earlier game left (files, sockets, shm, this process's memory), then leave it again."""
    find(args)
    REMEMBERED.append(time.time())
    return leave(args)


def hold_memory(args: list[str]) -> dict:
    """Hold ``args[1]`` MiB through ``args[0]``: memfd, shm (/dev/shm), tmp (/tmp), sysv, shared (anonymous shared
    mapping) or heap; report each 8 MiB held."""
    kind, total = args[0], int(args[1])
    step = 8 << 20
    kept: list = []
    held = 0
    try:
        if kind in ("memfd", "shm", "tmp"):
            if kind == "memfd":
                fd = os.memfd_create("hostile")
            else:
                fd = os.open(("/dev/shm" if kind == "shm" else "/tmp") + "/hostile-big", os.O_CREAT | os.O_RDWR, 0o600)
            chunk = b"x" * step
            while held < total << 20:
                os.write(fd, chunk)
                held += step
                report(held_mb=held >> 20)
            kept.append(fd)
        elif kind == "sysv":
            while held < total << 20:
                segment = libc.shmget(IPC_PRIVATE, step, IPC_CREAT | 0o600)
                if segment < 0:
                    raise OSError(ctypes.get_errno(), "shmget")
                address = libc.shmat(segment, None, 0)
                if address in (None, ctypes.c_void_p(-1).value):
                    raise OSError(ctypes.get_errno(), "shmat")
                ctypes.memset(address, 1, step)
                held += step
                report(held_mb=held >> 20)
        else:
            while held < total << 20:
                if kind == "shared":
                    area = mmap.mmap(-1, step, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
                    area.write(b"x" * step)
                else:
                    area = bytearray(b"x" * step)
                kept.append(area)
                held += step
                report(held_mb=held >> 20)
    except (OSError, MemoryError, ValueError) as error:
        report(refused=f"{type(error).__name__} after {held >> 20} MiB")
    return {"kept": kept}


def fill_disk(args: list[str]) -> None:
    """Write ``args[0]`` MiB into its working folder, in files of 4 MiB (under any per-file size limit); report
    where it writes and each 4 MiB written."""
    total, step = int(args[0]) << 20, 4 << 20
    report(cwd=os.getcwd())
    chunk = b"x" * step
    written = 0
    try:
        while written < total:
            with open(f"fill-{written >> 22}", "wb") as handle:
                handle.write(chunk)
            written += step
            report(written_mb=written >> 20)
    except OSError as error:
        report(refused=f"{type(error).__name__} after {written >> 20} MiB")


def burn(seconds: float) -> None:
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def cpu_children(args: list[str]) -> None:
    """Think in two children (``args[0]`` ms of CPU each) while this process only waits: its own clock stays still."""
    seconds = int(args[0]) / 1000
    children = []
    for _ in range(2):
        pid = os.fork()
        if pid == 0:
            burn(seconds)
            os._exit(0)
        children.append(pid)
    for pid in children:
        os.waitpid(pid, 0)


def raise_cpu_limit(args: list[str]) -> None:
    """Try to lift RLIMIT_CPU (soft to hard, hard to unlimited)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    results = {"hard": "unlimited" if hard == resource.RLIM_INFINITY else hard}
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
        results["unlimited"] = "raised"
    except (OSError, ValueError) as error:
        results["unlimited"] = type(error).__name__
    report(rlimit=results)


def background(args: list[str]) -> dict:
    """Think on the others' time: a child burns CPU all game, its CPU seconds shared with the bot to report."""
    shared = mmap.mmap(-1, 64, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    if os.fork() == 0:
        while True:
            burn(0.01)
            shared.seek(0)
            shared.write(json.dumps(time.process_time()).encode().ljust(32))
    return {"shared": shared}


def background_report(args: list[str]) -> None:
    for kept in KEEP:
        if isinstance(kept, dict) and "shared" in kept:
            kept["shared"].seek(0)
            text = kept["shared"].read(32).strip(b"\0 ")
            report(child_cpu=float(text) if text else 0.0, wall=time.time())


def linger(args: list[str]) -> None:
    """Start processes meant to outlive the runner: a double-forked daemon, one in a user namespace of its own."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                time.sleep(1)
        os._exit(0)
    if os.fork() == 0:
        libc.unshare(CLONE_NEWUSER)
        if os.fork() == 0:
            while True:
                time.sleep(1)
        while True:
            time.sleep(1)
    report(linger="started")


def flood(args: list[str]) -> None:
    """Write ``args[1]`` MiB to stderr: text lines (``args[0] == "text"``) or newlines only."""
    chunk = (b"flood " * 10 + b"\n") * 1024 if args[0] == "text" else b"\n" * 65536
    left = int(args[1]) << 20
    while left > 0:
        written = os.write(2, chunk)
        left -= written


ESCAPES = "\x1b[2J\x1b[31mRED\x1b]0;owned\x07\r\u202eevil"


def escape(args: list[str]) -> None:
    """Write terminal escape sequences to stderr, and end with them as its last words."""
    print("escape: " + ESCAPES, file=sys.stderr, flush=True)
    sys.stderr.write("last words " + ESCAPES + "\n")
    sys.stderr.flush()
    os._exit(7)


def stall(args: list[str]) -> None:
    time.sleep(float(args[0]))


#: places on a bot's root's own tmpfs (its top, an empty mount point's parent, /dev), none on its scratch
ROOT_PLACES = ("/root-note", "/home/root-note", "/dev/root-note")


def root_note(args: list[str]) -> None:
    """Read what an earlier game left on the root itself (a Python bot's games share their template's root),
    then leave a note there: test_hostile_root.py."""
    seen = {}
    for path in ROOT_PLACES:
        found = try_read(path)
        if found == "read":
            with open(path) as handle:
                found = "read: " + handle.read()
        try:
            with open(path, "a") as handle:
                handle.write(f"game of {os.getpid()}\n")
            wrote = "written"
        except OSError as error:
            wrote = type(error).__name__
        seen[path] = {"found": found, "wrote": wrote}
    report(root=seen)


#: per-network-namespace settings a game tries to change for the next (each value differs from the kernel's default)
NET_SETTINGS = {
    "/proc/sys/net/ipv4/ip_default_ttl": "77",
    "/proc/sys/net/core/somaxconn": "1000",
    "/proc/sys/net/ipv4/ping_group_range": "1\t1",
}


def net_settings_seen() -> dict:
    """Each of :data:`NET_SETTINGS` as read, then ``written`` or the error the write met, and the network
    namespace (a Python bot's games share their template's)."""
    seen: dict = {"namespace": os.readlink("/proc/self/ns/net")}
    for path, mark in NET_SETTINGS.items():
        try:
            with open(path) as handle:
                read = handle.read().strip()
        except OSError as error:
            read = type(error).__name__
        try:
            with open(path, "w") as handle:
                handle.write(mark + "\n")
            written = "written"
        except OSError as error:
            written = type(error).__name__
        seen[path] = [read, written]
    return seen


def net_settings(args: list[str]) -> None:
    """Leave a mark in the network namespace's settings: test_hostile_network_settings.py."""
    report(sysctl={"game": net_settings_seen()})


#: attack name -> (phase it runs in, function)
ATTACKS = {
    "none": (None, None),
    "read": ("start", read),
    "leave": ("start", leave),
    "find": ("start", find),
    "remember": ("start", remember),
    "memory": ("start", hold_memory),
    "fill_disk": ("start", fill_disk),
    "cpu_children": ("decide", cpu_children),
    "rlimit": ("start", raise_cpu_limit),
    "linger": ("start", linger),
    "background": ("start", background),
    "slow": ("decide", lambda args: stall(["0.05"])),
    "flood": ("decide", flood),
    "escape": ("decide", escape),
    "exit_at_start": ("start", lambda args: os._exit(3)),
    "root_note": ("start", root_note),
    "net_settings": ("start", net_settings),
}
from kernel_attacks import KERNEL_ATTACKS  # noqa: E402  (keyrings, locks, watches: test_hostile_kernel.py)

ATTACKS.update(KERNEL_ATTACKS)
from shared_attacks import SHARED_ATTACKS  # noqa: E402  (what no namespace separates: test_hostile_shared_kernel.py)

ATTACKS.update(SHARED_ATTACKS)
KEEP: list = []


def attack(name: str, phase: str, args: list[str]) -> None:
    """Run attack ``name`` if it belongs to ``phase``; whatever it returns is kept alive until the process ends."""
    when, function = ATTACKS[name]
    if name == "background" and phase == "decide":
        background_report(args)
    if when == phase:
        KEEP.append(function(args))
        if name == "linger":
            stall(["3600"])
