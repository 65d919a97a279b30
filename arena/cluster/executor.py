"""From ``--scheduler ADDRESS`` to an executor whose workers have been checked.

``ADDRESS`` is a Dask scheduler's address (``tcp://host:8786``, or any
scheme Dask knows: ``tls://``, ``ws://``, ...), or ``local:N`` to start a
Dask cluster of N worker processes on this machine (one thread each) for the
length of the run (:mod:`arena.cluster.local`): for trying a cluster out, and for tests.

Dask is an optional extra: without it :func:`open_cluster` says what to install.
Its ``Client.get_executor()`` behaves like a standard-library executor, which
is what the tournament runner takes; :class:`ClusterExecutor` wraps it so that
losing the scheduler ends the run instead of stalling it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import re
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from arena.cluster.handshake import check_workers, installation
from arena.cluster.local import local_cluster, workers_running
from arena.errors import ClusterError
from arena.plugins import Plugins
from arena.runs.play import close_pools

if TYPE_CHECKING:  # distributed is an optional dependency (the dask extra)
    from distributed import Client

LOCAL = re.compile(r"local:(\d+)")
MAX_LOCAL_WORKERS = 256
#: seconds to reach the scheduler, and to wait for its first worker
CONNECT_SECONDS = 10
WORKERS_SECONDS = 60
#: how often a run checks that its client still has the scheduler
WATCH_SECONDS = 1.0
INSTALL_HINT = "pip install 'knizia-arena[dask]' (from a checkout: pip install -e '.[dask]')"


class ClusterExecutor(concurrent.futures.Executor):
    """A cluster's executor: Dask's own (``Client.get_executor()``), except when the cluster goes away.

    When the client loses the scheduler, Dask cancels its futures, or (when
    the scheduler closes) leaves them pending for ever. Here each future
    still waiting fails instead with one :class:`ClusterError` saying so,
    which stops the run: the games already stored stay, and a rerun resumes.
    A future is cancelled only by its caller (a stopped run).
    """

    def __init__(self, client: Client, address: str) -> None:
        self.client = client
        self.address = address
        self.dask = client.get_executor(pure=False)
        self.waiting: set[concurrent.futures.Future[Any]] = set()
        self.lock = threading.Lock()
        self.closed = threading.Event()
        threading.Thread(target=self._watch, name="arena-scheduler-watch", daemon=True).start()

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        if self.client.status in ("closing", "closed"):
            raise self._lost()
        ours: concurrent.futures.Future[Any] = concurrent.futures.Future()
        theirs = self.dask.submit(fn, *args, **kwargs)
        with self.lock:
            self.waiting.add(ours)
        ours.add_done_callback(lambda _: self._settled(ours, theirs))
        theirs.add_done_callback(lambda _: self._pass_on(theirs, ours))
        return ours

    def _settled(self, ours: concurrent.futures.Future[Any], theirs: concurrent.futures.Future[Any]) -> None:
        with self.lock:
            self.waiting.discard(ours)
        if ours.cancelled():
            theirs.cancel()

    def _pass_on(self, theirs: concurrent.futures.Future[Any], ours: concurrent.futures.Future[Any]) -> None:
        with contextlib.suppress(concurrent.futures.InvalidStateError):  # ours was cancelled meanwhile
            if theirs.cancelled():
                ours.set_exception(self._lost())
            elif theirs.exception() is not None:
                ours.set_exception(theirs.exception())
            else:
                ours.set_result(theirs.result())

    def _lost(self) -> ClusterError:
        if self.client.status == "running":
            return ClusterError(f"the Dask cluster at {self.address} cancelled a block of games (was it restarted?); "
                                f"the games finished so far are stored: run the same command again to resume")
        return ClusterError(f"lost the Dask scheduler at {self.address}; the games finished so far are stored: "
                            f"run the same command again to resume")

    def _watch(self) -> None:
        while not self.closed.wait(WATCH_SECONDS):
            if self.client.status in ("closing", "closed"):  # it gave up reconnecting
                with self.lock:
                    waiting = list(self.waiting)
                for future in waiting:
                    with contextlib.suppress(concurrent.futures.InvalidStateError):
                        future.set_exception(self._lost())
                return

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.closed.set()
        if self.client.status == "running":  # a client that lost its scheduler has nothing left to cancel
            self.dask.shutdown(wait=wait)


@dataclass
class Cluster:
    """A connected, checked cluster: its client and the executor to hand the runner."""

    address: str
    client: Client
    executor: ClusterExecutor

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
def open_cluster(address: str, plugins: Plugins) -> Iterator[Cluster]:
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
        if local:  # forked from this process before its client starts a thread: they run this very arena
            workers = int(local.group(1))
            client = distributed.Client(stack.enter_context(local_cluster(workers)), timeout=CONNECT_SECONDS,
                                        set_as_default=False, direct_to_workers=True)
            stack.callback(client.close)
            if not workers_running(client, workers, WORKERS_SECONDS):
                raise ClusterError(f"the {workers} workers of the local Dask cluster did not start within "
                                   f"{WORKERS_SECONDS} s")
        else:
            _probe(address)
            client = distributed.Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
            stack.callback(client.close)
            try:
                client.wait_for_workers(1, timeout=WORKERS_SECONDS)
            except TimeoutError:
                raise ClusterError(f"no worker joined the Dask scheduler at {address} within {WORKERS_SECONDS} "
                                   f"s; start some with: dask worker {address} --nthreads 1") from None
            check_workers(client, installation(plugins))
        executor = ClusterExecutor(client, address)
        stack.callback(executor.shutdown, wait=False)
        try:
            yield Cluster(address, client, executor)
        finally:
            if not local and client.status == "running":
                client.run(close_pools, on_error="ignore")


def _probe(address: str) -> None:
    """Reach the scheduler once, so that a wrong address is one clear line (and no half-made client)."""
    from distributed.comm.core import connect

    async def reach() -> None:
        comm = await connect(address, timeout=CONNECT_SECONDS)
        await comm.close()

    try:
        asyncio.run(reach())
    except (OSError, ValueError, TypeError) as error:
        raise ClusterError(f"--scheduler {address}: cannot reach a Dask scheduler there ({error})") from None
