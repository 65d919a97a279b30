"""Formats for large fields, as pure table-drawing functions (no I/O, no clocks).

- :func:`arena.formats.sampled.sampled_tables`: ``format = "sampled"``, about
  ``tables_per_entry`` tables per entry, balanced pairs and seat positions;
- :func:`arena.formats.ladder.ladder_round` and :func:`arena.formats.ladder.settled`:
  ``format = "ladder"``, rounds drawn from the standings until the top is settled.

The schedule turns their tables into games (each table played in every seat
rotation of every deal, the duplicate format).
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.formats.ladder import Standing, ladder_round, order_probability, settled
    from arena.formats.sampled import sampled_tables

__all__ = ["Standing", "ladder_round", "order_probability", "sampled_tables", "settled"]


def __getattr__(name: str) -> Any:
    """The names of ``__all__``, imported at their first use: the formats need numpy, which a run of another
    format, or any other command, need not import (about 0.1 s of every start-up)."""
    import importlib

    home = {"sampled_tables": "arena.formats.sampled"}.get(name, "arena.formats.ladder")
    if name not in __all__:
        raise AttributeError(f"module 'arena.formats' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
