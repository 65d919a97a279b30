"""Formats for large fields, as pure table-drawing functions (no I/O, no clocks).

- :func:`arena.formats.sampled.sampled_tables`: ``format = "sampled"``, about
  ``tables_per_entry`` tables per entry, balanced pairs and seat positions;
- :func:`arena.formats.ladder.ladder_round` and :func:`arena.formats.ladder.settled`:
  ``format = "ladder"``, rounds drawn from the standings until the top is settled.

The schedule turns their tables into games (each table played in every seat
rotation of every deal, the duplicate format).
"""

from arena.formats.ladder import Standing, ladder_round, order_probability, settled
from arena.formats.sampled import sampled_tables

__all__ = ["Standing", "ladder_round", "order_probability", "sampled_tables", "settled"]
