"""Sandboxed bots: every seat's bot in a process of its own, held to time and memory limits.

``open_process_bot(entrant, limits, plugins)`` gives the seat adapter for any
entrant: an external program (``cmd:``) runs as given; a Python bot (a plugin's
or ``py:``) runs inside :mod:`arena.sandbox.host`, which imports only that bot.
What the sandbox promises, and what it falls back to on a machine lacking a
feature, is in docs/sandbox.md; ``arena sandbox`` shows what is in force here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names below, as the type checker sees them (re-exported: ``X as X``)
    from arena.sandbox.probe import check_required as check_required
    from arena.sandbox.probe import protections as protections
    from arena.sandbox.probe import weaknesses as weaknesses
    from arena.sandbox.process import ProcessBot as ProcessBot
    from arena.sandbox.seat import open_process_bot as open_process_bot

#: Public names and the modules defining them, imported on first use so that
#: the bot host (``python -m arena.sandbox.host``) starts without them.
_EXPORTS = {
    "open_process_bot": "arena.sandbox.seat",
    "ProcessBot": "arena.sandbox.process",
    "check_required": "arena.sandbox.probe",
    "weaknesses": "arena.sandbox.probe",
    "protections": "arena.sandbox.probe",
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'arena.sandbox' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
