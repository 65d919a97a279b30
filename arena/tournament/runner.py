"""Running a tournament (``arena run``): its schedule through the runs core, into its results folder.

The main process builds the schedule, opens the store, and hands both to
:func:`arena.runs.loop.run_schedule` with the pool the options chose; only the
main process writes the store, and one run at a time may use a results folder.
"""

from __future__ import annotations

import logging
from typing import Any, TextIO

from arena.runs.loop import RunOutcome, results_folder, run_schedule
from arena.runs.pools import Pool, open_pool
from arena.runs.store import create_or_open
from arena.tournament.config import Tournament
from arena.tournament.progress import Tally, make_progress
from arena.tournament.schedule import build_schedule

log = logging.getLogger("arena.tournament")


def run_tournament(tournament: Tournament, plugins: Any, *, root: str = "results", jobs: int | None = None,
                   scheduler: str | None = None, sandbox: str = "process", fresh: bool = False,
                   progress_stream: TextIO | None = None, progress_every: float = 10.0,
                   pool: Pool | None = None) -> RunOutcome:
    """Play every game of ``tournament`` not yet stored in ``ROOT/NAME`` and store it.

    :param jobs: worker processes (``0``: in this process; with ``scheduler``: blocks of games at once).
    :param scheduler: a Dask scheduler's address, or ``local:N`` (:func:`arena.runs.pools.open_pool`).
    :param fresh: discard the folder's stored results first.
    :param progress_stream: where progress goes (default stderr; a bar if it is a terminal).
    :param pool: play through this pool instead of the one ``jobs`` and ``scheduler`` choose.
    """
    with results_folder(root, tournament.name, fresh) as folder:
        schedule = build_schedule(tournament, plugins)
        specs = schedule.specs(sandbox, plugins)
        store = create_or_open(folder, {"name": tournament.name, "kind": "tournament",
                                        "definition": tournament.definition(), "plan": schedule.summary(),
                                        "total": len(specs)})
        try:
            stored_keys = set(store.stored_games())
            pending = sum(spec.key not in stored_keys for spec in specs)
            totals = store.bot_totals()
            tally = Tally(len(specs), len(specs) - pending, {row.bot: row.firsts for row in totals},
                          {row.bot: row.seats for row in totals})
            progress = make_progress(tournament.name, tally, progress_stream, progress_every)
            if pool is not None:
                return run_schedule(specs, pool, store, progress, folder=folder)
            with open_pool(jobs, scheduler, plugins, pending) as chosen:
                return run_schedule(specs, chosen, store, progress, folder=folder)
        finally:
            store.close()
