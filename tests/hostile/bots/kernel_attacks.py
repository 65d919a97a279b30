"""Attacks through the kernel's shared state: keyrings, file locks and watches (test_hostile_kernel.py).

Each is registered in ``attacks.ATTACKS`` (so both the external bot and the
Python one try it) and reports ``hostile: {json}`` lines on stderr, as the
other attacks do. The shared file is one every bot sees, of the runner's own
Python: a module nobody imports during a game.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import signal
import struct
import sys

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
SHARED = os.path.join(os.path.dirname(os.__file__), "antigravity.py")
SYS_ADD_KEY, SYS_KEYCTL, SYS_INOTIFY_INIT1, SYS_INOTIFY_ADD_WATCH = 248, 250, 294, 254  # x86-64
SYS_CLONE, SYS_UNSHARE, SYS_CLONE3 = 56, 272, 435
CLONE_NEWUSER = 0x10000000
KEYCTL_SETPERM, KEYCTL_LINK, KEYCTL_SEARCH, KEYCTL_READ = 5, 8, 10, 11
KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING = -3, -4
IN_OPEN, IN_NONBLOCK = 0x20, 0o4000
F_GETLK, F_NOTIFY, DN_ACCESS, DN_MULTISHOT = 5, 1026, 0x1, -0x80000000  # DN_MULTISHOT as a C int
F_WRLCK, F_UNLCK = 1, 2
KEY_NAME = "arena-hostile-key"
TOKEN_NAME = "arena-runner-token"  # the key the test's runner holds in its session keyring
STATE: dict = {}


def report(**values) -> None:
    print("hostile: " + json.dumps(values), file=sys.stderr, flush=True)


def _call(number: int, *args) -> int:
    result = libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code))
    return int(result)


def _outcome(function, *args) -> str:
    try:
        return str(function(*args))
    except OSError as error:
        return type(error).__name__


def add_key(description: str, payload: bytes, keyring: int) -> int:
    return _call(SYS_ADD_KEY, b"user", description.encode(), payload, ctypes.c_size_t(len(payload)),
                 ctypes.c_long(keyring))


def read_key(serial: int) -> str:
    buffer = ctypes.create_string_buffer(256)
    size = _call(SYS_KEYCTL, ctypes.c_long(KEYCTL_READ), ctypes.c_long(serial), buffer, ctypes.c_size_t(256))
    return buffer.raw[:min(size, 256)].decode(errors="replace")


def search_key(keyring: int, description: str) -> int:
    return _call(SYS_KEYCTL, ctypes.c_long(KEYCTL_SEARCH), ctypes.c_long(keyring), b"user", description.encode(),
                 ctypes.c_long(0))


def keys_listed(description: str) -> list[int]:
    """The serials of the keys named ``description`` that /proc/keys shows this process."""
    try:
        with open("/proc/keys") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return []
    return [int(line.split()[0], 16) for line in lines if f" {description}:" in line or line.endswith(description)]


def key_leave(args: list[str]) -> None:
    """Leave a secret in a key of its user keyring that everyone may read (found through /proc/keys)."""
    secret = f"hand-of-{args[0]}"
    done = {"add": "none", "setperm": "none"}
    try:
        serial = add_key(KEY_NAME, secret.encode(), KEY_SPEC_USER_KEYRING)
        done["add"] = "added"
        done["setperm"] = _outcome(open_to_all, serial)
    except OSError as error:
        done["add"] = type(error).__name__
    report(key_leave=done, secret=secret)


def key_find(args: list[str]) -> None:
    """Read every key named like :func:`key_leave`'s that /proc/keys lists, and search its keyrings for one."""
    found = {str(serial): _outcome(read_key, serial) for serial in keys_listed(KEY_NAME)}
    for name, keyring in (("session", KEY_SPEC_SESSION_KEYRING), ("user", KEY_SPEC_USER_KEYRING)):
        try:
            found[name] = read_key(search_key(keyring, KEY_NAME))
        except OSError as error:
            found[name] = type(error).__name__
    report(key_find=found)


def open_to_all(serial: int) -> int:
    """Give everyone every permission on the key ``serial`` (so that any process may find and read it); first
    link the user keyring into the session keyring, so that its keys are possessed (a fresh session keyring
    holds nothing)."""
    _outcome(_call, SYS_KEYCTL, ctypes.c_long(KEYCTL_LINK), ctypes.c_long(KEY_SPEC_USER_KEYRING),
             ctypes.c_long(KEY_SPEC_SESSION_KEYRING))
    _call(SYS_KEYCTL, ctypes.c_long(KEYCTL_SETPERM), ctypes.c_long(serial), ctypes.c_long(0x3F3F3F3F))
    return serial


def key_remember(args: list[str]) -> None:
    """Look for the key an earlier game left in its session and user keyrings, then leave one in both, open to
    everyone."""
    key_find(args)
    report(key_left={name: _outcome(lambda keyring: open_to_all(add_key(KEY_NAME, f"memory-{os.getpid()}".encode(),
                                                                        keyring)), keyring)
                     for name, keyring in (("session", KEY_SPEC_SESSION_KEYRING), ("user", KEY_SPEC_USER_KEYRING))})


def key_token(args: list[str]) -> None:
    """Read the runner's token: searched for in its session keyring, and by serial from /proc/keys."""
    found = {}
    try:
        found["session"] = read_key(search_key(KEY_SPEC_SESSION_KEYRING, TOKEN_NAME))
    except OSError as error:
        found["session"] = type(error).__name__
    found["listed"] = {str(serial): _outcome(read_key, serial) for serial in keys_listed(TOKEN_NAME)}
    report(token=found)


def lock_hold(args: list[str]) -> None:
    """Hold a shared lock on the shared file: ``flock`` (``args[0] == "flock"``) or an fcntl record lock."""
    fd = os.open(SHARED, os.O_RDONLY)
    STATE["held"] = fd
    try:
        if args[0] == "flock":
            fcntl.flock(fd, fcntl.LOCK_SH)
        else:
            fcntl.lockf(fd, fcntl.LOCK_SH)
        report(lock="held")
    except OSError as error:
        report(lock=type(error).__name__)


def lock_probe(args: list[str]) -> None:
    """Ask whether someone holds a lock on the shared file: ``flock(LOCK_EX|LOCK_NB)`` or ``F_GETLK``."""
    fd = os.open(SHARED, os.O_RDONLY)
    try:
        if args[0] == "flock":
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(fd, fcntl.LOCK_UN)
            seen = "free"
        else:
            query = struct.pack("hhqqi4x", F_WRLCK, os.SEEK_SET, 0, 0, 0)
            kind, _, _, _, pid = struct.unpack("hhqqi4x", fcntl.fcntl(fd, F_GETLK, query))
            seen = "free" if kind == F_UNLCK else f"locked by {pid}"
    except OSError as error:
        seen = type(error).__name__
    finally:
        os.close(fd)
    report(probe=seen)


def touch_shared(args: list[str]) -> None:
    """Open and read the shared file (what a watch of another bot's would see)."""
    with open(SHARED, "rb") as handle:
        handle.read(1)


def watch(args: list[str]) -> None:
    """Watch the shared file for opens (inotify ``IN_OPEN``, ``args[0] == "inotify"``) or its folder for reads
    (dnotify ``F_NOTIFY``); set up at the first decision, then report the events seen so far at each."""
    if "watch" not in STATE:
        STATE["events"] = 0
        try:
            if args[0] == "inotify":
                fd = _call(SYS_INOTIFY_INIT1, ctypes.c_int(IN_NONBLOCK))
                STATE["inotify"] = fd
                _call(SYS_INOTIFY_ADD_WATCH, ctypes.c_int(fd), SHARED.encode(), ctypes.c_uint32(IN_OPEN))
            else:
                signal.signal(signal.SIGIO, lambda number, frame: STATE.__setitem__("events", STATE["events"] + 1))
                fd = os.open(os.path.dirname(SHARED), os.O_RDONLY | os.O_DIRECTORY)
                fcntl.fcntl(fd, F_NOTIFY, DN_ACCESS | DN_MULTISHOT)
            STATE["watch"] = "watching"
        except OSError as error:
            STATE["watch"] = type(error).__name__
    if "inotify" in STATE:
        try:
            while True:
                data = os.read(STATE["inotify"], 4096)
                STATE["events"] += len(data) // 16 if data else 0
                if not data:
                    break
        except BlockingIOError:
            pass
    report(watch=STATE["watch"], events=STATE["events"])


def new_user_namespace(args: list[str]) -> None:
    """Try for a user namespace of its own (capabilities over mounts and more kernel code): ``unshare``, a raw
    ``clone`` (the child exits at once) and ``clone3``; report each call's errno name, or ``made``."""
    found = {}
    for name, call in (("unshare", lambda: libc.syscall(ctypes.c_long(SYS_UNSHARE), ctypes.c_long(CLONE_NEWUSER))),
                       ("clone", lambda: libc.syscall(ctypes.c_long(SYS_CLONE),
                                                      ctypes.c_long(CLONE_NEWUSER | signal.SIGCHLD), None, None,
                                                      None, None)),
                       ("clone3", lambda: libc.syscall(ctypes.c_long(SYS_CLONE3), None, ctypes.c_long(0)))):
        result = call()
        if result == 0 and name == "clone":
            os._exit(0)  # the child, in its new namespace
        if result > 0:
            os.waitpid(result, 0)
        found[name] = "made" if result >= 0 else errno.errorcode[ctypes.get_errno()]
    report(userns=found)


#: attack name -> (phase, function), merged into attacks.ATTACKS
KERNEL_ATTACKS = {
    "key_leave": ("start", key_leave),
    "key_find": ("decide", key_find),
    "key_remember": ("start", key_remember),
    "key_token": ("start", key_token),
    "lock_hold": ("start", lock_hold),
    "lock_probe": ("decide", lock_probe),
    "touch_shared": ("decide", touch_shared),
    "watch": ("decide", watch),
    "userns": ("start", new_user_namespace),
}
