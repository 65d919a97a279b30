"""The runs core: what every command that plays many games goes through.

- :mod:`arena.runs.spec`: a :class:`GameSpec` says what to play, a
  :class:`FinishedGame` what came of it;
- :mod:`arena.runs.seeds`: a run's secret and the keyed derivation of deal and bot seeds;
- :mod:`arena.runs.deals`: a deal's setup and seeds, and its game at a table in each seat rotation;
- :mod:`arena.runs.play`: plays one spec in whatever process holds it;
- :mod:`arena.runs.packed`: a finished game packed where it was played (the
  record compressed, the store's rows, the log line), so the main process
  only inserts, counts and writes;
- :mod:`arena.runs.pools`: in-process, local worker processes (``-j N``) and
  Dask (``--scheduler``) behind one interface;
- :mod:`arena.runs.store`: the results store (``results.sqlite``) and its typed API;
- :mod:`arena.runs.writer`: a run's games stored by a process of its own, so
  the main process hands over rows and goes back to its workers;
- :mod:`arena.runs.loop`: :func:`run_schedule`, which skips what is stored,
  plays the rest through a pool and stores each game as it ends;
- :mod:`arena.runs.run`: the twelve steps of a run, the same for a tournament
  and a comparison (:func:`~arena.runs.run.open_run`, :meth:`~arena.runs.run.Run.play`);
- :mod:`arena.runs.options`: the command-line options every such command shares;
- :mod:`arena.runs.folders`: the results folder checked before any bot starts;
- :mod:`arena.runs.progress`: how a run shows its progress (a bar, or periodic lines).

A schedule (the games to play) comes from a tournament format
(:mod:`arena.tournament.schedule`) or a comparison design
(:mod:`arena.compare.design`); docs/architecture.md draws the layers.
"""
