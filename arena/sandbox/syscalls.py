"""The few Linux system calls the sandbox makes that Python's ``os`` lacks, through libc."""

from __future__ import annotations

import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)


def check(result: int, what: str) -> None:
    """Raise ``OSError`` naming ``what`` when a libc call returned non-zero."""
    if result != 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    """``mount(2)``."""
    check(libc.mount(_encoded(source), _encoded(target), _encoded(fstype), flags, _encoded(data)), f"mount {target}")


def _encoded(text: str | None) -> bytes | None:
    return None if text is None else os.fsencode(text)
