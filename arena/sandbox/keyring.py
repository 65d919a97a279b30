"""Kernel keyrings and bots: a fresh, empty session keyring for each bot process, and pool uids' keys cleared.

Keyrings belong to no namespace the jail makes. A process inherits its
parent's session keyring and *possesses* it (and what it holds): a bot
started by a runner that runs in a login or service session holding a token
could read the token. Each bot process therefore joins a new anonymous
session keyring before its code runs (:func:`join_fresh_session`). The
system-call filter (:mod:`arena.sandbox.seccomp`) refuses bots every keyring
call besides; where it is off, the user keyrings of the user ids a root
runner's bots ran as are emptied when the id goes back to the pool
(:func:`clear_user_keyrings`), so keys do not pass from one game to the next
nor outlive the run.
"""

from __future__ import annotations

import ctypes
import errno
import os

from arena.sandbox.syscalls import libc

_SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine, -1)
KEYCTL_GET_KEYRING_ID, KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_CLEAR = 0, 1, 7
KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -3, -4, -5
#: what ``keyctl`` fails with where keyrings cannot be reached at all: none in the kernel, or a filter of the
#: runner's own (a container's) refusing them: then there is nothing of the runner's to protect either
UNREACHABLE = (errno.ENOSYS, errno.EPERM)


def keyctl(operation: int, *args: int | None) -> int:
    """``keyctl(2)``: its result, or ``OSError``."""
    if _SYS_KEYCTL < 0:
        raise OSError(errno.ENOSYS, "keyctl: unknown on this architecture")
    values = [ctypes.c_long(arg) if arg is not None else None for arg in args]
    result = int(libc.syscall(ctypes.c_long(_SYS_KEYCTL), ctypes.c_long(operation), *values))
    if result < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"keyctl: {os.strerror(number)}")
    return result


#: ``keyctl(KEYCTL_JOIN_SESSION_KEYRING, NULL)`` as ``syscall`` takes it, made once (each game's bot of a template
#: joins a fresh session: nothing made there, no page written for it)
_JOIN_FRESH = (ctypes.c_long(_SYS_KEYCTL), ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), None)
_syscall = libc.syscall


def join_fresh_session() -> None:
    """Make this process (and all it starts) hold a new, empty, anonymous session keyring: none of its
    parent's keyrings is possessed any longer. Nothing where keyrings cannot be reached (:data:`UNREACHABLE`)."""
    if _SYS_KEYCTL < 0 or _syscall(*_JOIN_FRESH) >= 0:
        return
    number = ctypes.get_errno()
    if number not in UNREACHABLE:
        raise OSError(number, f"cannot join a fresh session keyring: {os.strerror(number)}")


def clear_user_keyrings(uid: int) -> None:
    """Empty the user and user-session keyrings of ``uid`` (a root runner's pool id, its bots gone).

    A forked helper takes that uid (keyrings are looked up as their user) and
    clears both; best effort: a bot that took write permission away from its
    own keyring keeps it, which is why the system-call filter refuses bots every keyring call.
    """
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child only makes system calls, then exits
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            for keyring in (KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING):
                try:
                    keyctl(KEYCTL_CLEAR, keyring)
                except OSError:
                    pass
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def refusal() -> str | None:
    """Why bots cannot get a fresh session keyring here (None: they can, or keyrings are unreachable anyway),
    tried in a forked child (joining changes the caller's keyrings)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child, which only makes a system call
        code = 1
        try:
            keyctl(KEYCTL_JOIN_SESSION_KEYRING, None)
            code = 0
        except OSError as error:
            code = 0 if error.errno in UNREACHABLE else min(error.errno or 0, 120) + 2
        finally:
            os._exit(code)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return None if status == 0 else f"joining a new session keyring failed ({os.strerror(max(status - 2, 0))})"
