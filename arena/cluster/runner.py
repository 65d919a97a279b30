"""``arena run FILE --scheduler ADDRESS``: the tournament runner, fed a checked cluster's executor."""

from __future__ import annotations

from typing import Any

from arena.cluster.executor import open_cluster
from arena.tournament.config import Tournament
from arena.tournament.runner import RunOutcome, run_tournament


def run_on_cluster(address: str, tournament: Tournament, plugins: Any, *, jobs: int | None = None,
                   **options: Any) -> RunOutcome:
    """Run ``tournament`` on the Dask cluster at ``address`` (``local:N`` starts one here).

    ``jobs`` is how many blocks of games play at once (default: the workers'
    threads when the run starts); ``options`` are :func:`run_tournament`'s.
    """
    with open_cluster(address, plugins) as cluster:
        return run_tournament(tournament, plugins, jobs=jobs or cluster.slots(), executor=cluster.executor,
                              **options)
