"""Modules a command needs only after its games, imported in a thread of the main process while they are played.

A run's start and its end are serial: no worker plays then, at any ``-j``,
and at ``-j 2`` every millisecond of them counts against both cores. What
``arena run`` needs only at its end (the leaderboard: numpy, tabulate and
wcwidth, the bootstrap's random generator; about 80-100 ms) is named with
:func:`import_during_play` before the run, and the local pool, once its
workers are forked, starts a thread importing it (:func:`start`) while the
games are played: at ``-j 1`` on the core the single worker leaves free.

A process forked in the middle of an import would inherit a half-made module
and the import's locks, held by a thread it does not have: every fork of this
process waits for the thread first (``os.register_at_fork``), so a worker
started again after a crash or the store's writer never sees one. The pool
waits for it too before it returns (:func:`wait`), so nothing else imports
beside it once the games are over. A module the thread fails to import is
left to the command, which imports it again and reports the error as it would
have without this.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import threading

_pending: list[str] = []
_thread: threading.Thread | None = None
_hooked = False


def import_during_play(*modules: str) -> None:
    """Have ``modules`` imported beside the next games this process's local pool plays (in this order)."""
    _pending.extend(module for module in modules if module not in _pending)


def _import(modules: list[str]) -> None:
    for module in modules:
        with contextlib.suppress(Exception):  # the command imports it again, and says what went wrong
            importlib.import_module(module)


def start() -> None:
    """Import what :func:`import_during_play` named, in a daemon thread (nothing named: nothing to do)."""
    global _thread, _hooked
    if not _pending or _thread is not None:
        return
    if not _hooked:
        os.register_at_fork(before=wait, after_in_child=_forget)
        _hooked = True
    modules = list(_pending)
    _pending.clear()
    _thread = threading.Thread(target=_import, args=(modules,), name="arena-warmup", daemon=True)
    _thread.start()


def wait() -> None:
    """Return once the thread :func:`start` began has imported everything (at once when there is none)."""
    global _thread
    thread = _thread
    if thread is not None and thread is not threading.current_thread():
        thread.join()
        _thread = None


def _forget() -> None:
    """In a forked child: the thread is not there (it had finished: the fork waited for it)."""
    global _thread
    _thread = None
    _pending.clear()
