"""Process helpers shared by the pools: dying with the parent, and stopping a worker where it is safe.

A worker asked to stop in the middle of a game raises an exception from its
signal handler (``StopRequested``), so that a game waiting on a slow bot is
abandoned at once. Python runs a signal handler between any two bytecodes of
the main thread, and in a few places an exception raised there is printed as
``Exception ignored in: ...`` with its traceback and then dropped: a fork
handler (``os.register_at_fork``: logging's ``_releaseLock`` runs after every
fork, and a sandboxed worker forks for every bot it starts), a ``__del__``, a
finalizer. :func:`interruptible` tells those places apart, and a stop that
comes there is tried again a moment later (:func:`retry_soon`), once the
worker is back in code where the exception propagates.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing.util
import os
import signal
import weakref
from types import CodeType, FrameType

_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)
#: seconds before a stop that came at a moment it could not be raised is tried again
RETRY_SECONDS = 0.005
#: the signal that brings a postponed stop back (its handler is the stop's own)
RETRY_SIGNAL = signal.SIGALRM


def die_with_parent(signum: int = signal.SIGKILL) -> None:
    """Have the kernel send ``signum`` to this process when its parent dies (Linux; elsewhere nothing)."""
    prctl = getattr(_libc, "prctl", None)
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signum)


_forking = False
_watching = False


def _fork_begins() -> None:
    global _forking
    _forking = True


def _fork_ends() -> None:
    global _forking
    _forking = False


def watch_forks() -> None:
    """Mark the time this process spends in fork handlers (once per process; a fork inherits it).

    Registered after logging's handlers, ours run first before a fork and last
    after it, so the mark covers logging's lock taken and released around it.
    """
    global _watching
    if not _watching:
        os.register_at_fork(before=_fork_begins, after_in_parent=_fork_ends, after_in_child=_fork_ends)
        _watching = True


def _code_of(function: object) -> CodeType | None:
    return getattr(function, "__code__", None)


#: functions in which an exception from a signal handler is dropped, or leaves a lock of logging held
_UNSAFE: frozenset[CodeType] = frozenset(code for code in map(_code_of, (
    getattr(logging, "_acquireLock", None), getattr(logging, "_releaseLock", None),
    getattr(logging, "_after_at_fork_child_reinit_locks", None),
    logging.Handler.acquire, logging.Handler.release,
    weakref.finalize.__call__, multiprocessing.util.Finalize.__call__,
    _fork_begins, _fork_ends)) if code is not None)


def interruptible(frame: FrameType | None) -> bool:
    """Whether an exception raised by a signal handler that interrupted ``frame`` reaches the code running.

    Not while forking (:func:`watch_forks`), nor inside a ``__del__``, a
    finalizer or logging's lock handling: there Python prints the exception as
    "Exception ignored" and drops it.
    """
    if _forking:
        return False
    while frame is not None:
        code = frame.f_code
        if code in _UNSAFE or code.co_name == "__del__":
            return False
        frame = frame.f_back
    return True


def retry_soon() -> None:
    """Send this process :data:`RETRY_SIGNAL` in :data:`RETRY_SECONDS` (a one-shot timer; no thread)."""
    signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS)


def disarm_retry() -> None:
    """Disarm :func:`retry_soon`'s timer (a stop it would have brought back is taken care of now)."""
    signal.setitimer(signal.ITIMER_REAL, 0)


def cancel_retry() -> None:
    """Disarm :func:`retry_soon`'s timer and ignore its signal from now on."""
    disarm_retry()
    signal.signal(RETRY_SIGNAL, signal.SIG_IGN)
