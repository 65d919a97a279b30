"""Pools play game specs and hand each finished game to a sink: in-process, local processes, or Dask.

Every pool has ``run(specs, sink) -> stopped`` and ``stop()``, and ``jobs``
(how many games or blocks it plays at once). :func:`open_pool` chooses one
from the shared command-line options (``-j N``, ``--scheduler ADDRESS``).
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterable, Iterator, Protocol, Sequence

from arena.errors import WorkersError
from arena.plugins import Plugins
from arena.runs.pools.inline import InlinePool
from arena.runs.pools.local import LocalPool
from arena.runs.spec import GameSpec, Sink


class Pool(Protocol):
    """What the run loop needs of a pool."""

    jobs: int

    def run(self, specs: Iterable[GameSpec], sink: Sink, expected: int | None = None,
            table: Sequence[GameSpec] = ()) -> bool: ...

    def stop(self) -> None: ...


@contextlib.contextmanager
def open_pool(jobs: int | None, scheduler: str | None, plugins: Plugins) -> Iterator[Pool]:
    """The pool for ``-j JOBS`` / ``--scheduler ADDRESS``.

    ``-j 0`` plays in this process. A scheduler's pool holds its cluster open
    until the block ends (``local:N`` starts one here and stops it after); a
    bad address or an unreachable scheduler is refused here, before a run makes anything.
    """
    if scheduler is not None:
        from arena.cluster.executor import open_cluster  # Dask is an optional extra: imported only when asked for
        from arena.runs.pools.dask import ExecutorPool

        with open_cluster(scheduler, plugins) as cluster:
            yield ExecutorPool(cluster.executor, jobs or cluster.slots())
        return
    if jobs == 0:
        yield InlinePool()
        return
    cores = os.cpu_count() or 1
    most = most_local_workers(cores)
    if jobs is not None and jobs > most:
        raise WorkersError(f"-j {jobs}: at most {most} worker processes on this machine "
                         f"({cores} cores); -j {cores} plays as fast, and --scheduler spreads games over machines")
    yield LocalPool(jobs or cores)


def most_local_workers(cores: int) -> int:
    """The most worker processes ``-j`` may start here: beyond a few per core they only take memory and turns."""
    return max(64, 8 * cores)
