"""The results folder ``ROOT/NAME`` a run writes into, checked before any bot is started.

``arena run`` and ``arena compare`` call :func:`check_results_folder` first, so
a ``--results`` that names a file, a folder arena cannot write in, or a
``--fresh`` that would discard a store of another kind is one line (exit 2),
and nothing is made or removed.
"""

from __future__ import annotations

import os

from arena.errors import OutputPathError, StoreError
from arena.runs.store import open_store, store_path

__all__ = ["check_results_folder"]


def check_results_folder(root: str, name: str, kind: str, fresh: bool) -> None:
    """Refuse ``ROOT/NAME`` for the ``kind`` (``tournament`` or ``compare``) of run called ``name`` when unusable.

    ``ROOT`` (``--results``) and ``ROOT/NAME`` are folders, or not there yet
    (they are made); what exists on the way there must be a folder, writable
    where something is still to be made in it. With ``fresh``, a readable store
    there must hold this run: --fresh discards a run's own results, never
    another tournament's or comparison's (an unreadable store is discarded).
    """
    target = os.path.join(root, name)
    existing = target
    while existing and not os.path.exists(existing):
        existing = os.path.dirname(existing.rstrip(os.sep))
    existing = existing or os.curdir
    if not os.path.isdir(existing):
        if os.path.abspath(existing) == os.path.abspath(target):
            raise OutputPathError(f"{target} is not a folder (the results of {name} go into it): move it aside, "
                                  "or give another --results folder")
        where = "" if os.path.abspath(existing) == os.path.abspath(root) else f"{existing} is "
        raise OutputPathError(f"--results {root}: {where}not a folder; give a folder (made if missing)")
    if existing != target and not os.access(existing, os.W_OK | os.X_OK):
        raise OutputPathError(f"--results {root}: cannot make folders in {existing} (permission denied); "
                              "give another --results folder")
    if fresh and os.path.isfile(store_path(target)) and os.path.getsize(store_path(target)):
        _check_fresh(target, kind, name)


def _check_fresh(folder: str, kind: str, name: str) -> None:
    """Refuse --fresh on a readable store that holds another run than this one."""
    try:
        store = open_store(folder)
    except StoreError:
        return  # unreadable: --fresh is how it is discarded
    try:
        held = store.meta("kind", "tournament"), store.meta("name")
    finally:
        store.close()
    if held != (kind, name):
        raise StoreError(f"{folder} holds the {held[0]} {held[1]}, not the {kind} {name}: --fresh discards only "
                         f"this {kind}'s own results; give this one another name or another --results folder")
