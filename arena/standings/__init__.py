"""Standings people can read: ratings with intervals, rank ranges, head-to-head records.

- :mod:`arena.standings.raters`: TrueSkill (default) or OpenSkill, one pass in schedule order;
- :mod:`arena.standings.seats`: one game's stored seats as columns, with their deal blocks;
- :mod:`arena.standings.figures`: totals, head-to-head and the bootstrap over deal blocks (numpy);
- :mod:`arena.standings.board`: the sections of a leaderboard as plain data;
- :mod:`arena.standings.ratings`: a game's stored games rated in schedule order, cached in the store;
- :mod:`arena.standings.live_ratings`: the same ratings made while a run plays, by the run's store writer.

:mod:`arena.standings.leaderboard` reads the store and renders the sections.
"""

#: the forms a leaderboard is printed in (here, not beside the renderer: the CLI reads it at start-up,
#: before numpy is imported)
FORMATS = ("table", "markdown", "csv", "json", "html")
