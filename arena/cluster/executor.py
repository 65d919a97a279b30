"""From ``--scheduler ADDRESS`` to an executor whose workers have been checked.

``ADDRESS`` is a Dask scheduler's address (``tcp://host:8786``, or any
scheme Dask knows: ``tls://``, ``ws://``, ...), or ``local:N`` to start a
Dask cluster of N worker processes on this machine (one thread each) for the
length of the run: for trying a cluster out, and for tests.

Dask is an optional extra: without it :func:`open_cluster` says what to install.
Its ``Client.get_executor()`` behaves like a standard-library executor, which
is what the tournament runner takes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
import threading
from dataclasses import dataclass
from typing import Any, Iterator

from arena.cluster.handshake import check_workers, installation
from arena.errors import ClusterError
from arena.tournament.tasks import close_pools

LOCAL = re.compile(r"local:(\d+)")
MAX_LOCAL_WORKERS = 256
#: seconds to reach the scheduler, and to wait for its first worker
CONNECT_SECONDS = 10
WORKERS_SECONDS = 60
INSTALL_HINT = "pip install 'arena[dask]' (from a checkout: pip install -e '.[dask]')"


@dataclass
class Cluster:
    """A connected, checked cluster: its client, the executor to hand the runner, and its capacity."""

    address: str
    client: Any

    @property
    def executor(self) -> Any:
        return self.client.get_executor(pure=False)

    def slots(self) -> int:
        """Games the cluster plays at once: its workers' threads."""
        return sum(self.client.nthreads().values())


def import_distributed() -> Any:
    """The ``distributed`` package, or a one-line :class:`ClusterError` saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--scheduler needs Dask, which is not installed: {INSTALL_HINT}") from None
    return distributed


@contextlib.contextmanager
def open_cluster(address: str, plugins: Any) -> Iterator[Cluster]:
    """Connect to (or start) the cluster at ``address`` and check its workers against ``plugins``.

    Raises :class:`ClusterError` (one line) for a bad address, an unreachable
    scheduler, a cluster without workers, or a worker unlike this machine.
    On leaving, a started cluster is shut down; on a cluster that stays up,
    the workers stop the bot processes they kept for the run.
    """
    distributed = import_distributed()
    local = LOCAL.fullmatch(address)
    if address.startswith("local:") and not (local and 1 <= int(local.group(1)) <= MAX_LOCAL_WORKERS):
        raise ClusterError(f"--scheduler {address}: expected local:N with N from 1 to {MAX_LOCAL_WORKERS} "
                           f"(worker processes on this machine), or a scheduler's address like tcp://host:8786")
    with contextlib.ExitStack() as stack:
        if local:
            with _sigint_ignored():  # the worker processes inherit it: Ctrl-C is the coordinator's to handle
                started = distributed.LocalCluster(n_workers=int(local.group(1)), threads_per_worker=1,
                                                   processes=True, dashboard_address=None,
                                                   silence_logs=logging.ERROR)
            _warnings_shown_here()
            stack.callback(started.close)
            client = distributed.Client(started, set_as_default=False)
        else:
            _probe(address)
            client = distributed.Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
        stack.callback(client.close)
        try:
            client.wait_for_workers(1, timeout=WORKERS_SECONDS)
        except TimeoutError:
            raise ClusterError(f"no worker joined the Dask scheduler at {address} within {WORKERS_SECONDS} s; "
                               f"start some with: dask worker {address} --nthreads 1") from None
        check_workers(client, installation(plugins))
        try:
            yield Cluster(address, client)
        finally:
            if not local:
                client.run(close_pools, on_error="ignore")


def _probe(address: str) -> None:
    """Reach the scheduler once, so that a wrong address is one clear line (and no half-made client)."""
    from distributed.comm import connect

    async def reach() -> None:
        comm = await connect(address, timeout=CONNECT_SECONDS)
        await comm.close()

    try:
        asyncio.run(reach())
    except (OSError, ValueError, TypeError) as error:
        raise ClusterError(f"--scheduler {address}: cannot reach a Dask scheduler there ({error})") from None


def _warnings_shown_here() -> None:
    """Show Dask's warnings of this process again (a worker lost and restarted), which the local cluster hid.

    The local cluster hides its workers' warnings, so that stopping a run with
    Ctrl-C does not print one line per cancelled block, but its way of doing
    so also lowers this process's Dask log handlers to errors only.
    """
    for handler in logging.getLogger("distributed").handlers:
        handler.setLevel(logging.WARNING)


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
