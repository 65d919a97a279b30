"""Process helpers shared by the pools: dying with the parent."""

from __future__ import annotations

import ctypes
import signal

_PR_SET_PDEATHSIG = 1
_libc = ctypes.CDLL(None, use_errno=True)


def die_with_parent(signum: int = signal.SIGKILL) -> None:
    """Have the kernel send ``signum`` to this process when its parent dies (Linux; elsewhere nothing)."""
    prctl = getattr(_libc, "prctl", None)
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, signum)
