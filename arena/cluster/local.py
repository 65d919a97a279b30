"""``--scheduler local:N``: a Dask scheduler and N single-threaded workers forked from this process, no nanny.

Dask's own ``LocalCluster`` runs the scheduler and one nanny per worker in
the coordinator's event loop, and starts each worker as a new interpreter
(or, as arena did, from a fork server) that imports Dask and arena again:
0.6-0.9 s from the cluster's start to its first game on two cores, and while
the games are played the scheduler's and the nannies' work (about 100 µs a
game) shares the coordinator's process and its lock.

Here, before any thread of Dask starts, the coordinator forks one helper
process, the *keeper*; it has already imported Dask and arena, so what the
keeper forks starts at once with everything imported: the scheduler, in a
process of its own, and the workers. The keeper then does a nanny's one job
that a run needs: a worker that dies (a bot run in-process that kills it, the
kernel's out-of-memory killer) is replaced by a new fork, which the
coordinator logs, while Dask plays its blocks again on another worker. When the run ends (or is stopped) the
keeper ends the workers and the scheduler with SIGTERM, then SIGKILL after
:data:`STOP_SECONDS`; each of them, and the keeper, dies with its parent
(``PR_SET_PDEATHSIG``), so a coordinator killed outright leaves nothing
behind. They are a process group of their own: Ctrl-C, or a SIGTERM to the
run's process group, reaches only the coordinator, which stops the run and then them.

The workers are forks of the coordinator, so they run its arena, games and
bots: the handshake a remote cluster needs (:mod:`arena.cluster.handshake`)
is left to each block's own check.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from typing import Any, Iterator

from arena.errors import ClusterError
from arena.runs.play import close_pools
from arena.runs.process import die_with_parent

log = logging.getLogger("arena.cluster")
#: seconds the keeper waits for the scheduler's address, and for its processes to end once asked
START_SECONDS = 30.0
STOP_SECONDS = 5.0
#: how often the keeper looks for a process of its own that ended; a worker that ended sooner than
#: RESTART_SECONDS after it started is replaced only after that long
WATCH_SECONDS, RESTART_SECONDS = 0.05, 1.0
#: Dask's settings in the forked processes: no statistical profiler (it costs a pure-Python game about 7% of
#: its time); the event loop's tick (a check that the loop is not blocked) and the system monitor (the
#: dashboard's figures) less often: each wakes the worker's loop thread, which takes the interpreter's lock
#: from the game being played (with Dask's 20 ms and 0.5 s, 3% of a core in each worker and the scheduler)
CONFIG = {"distributed.worker.profile.enabled": False, "distributed.admin.tick.interval": "1s",
          "distributed.admin.tick.limit": "10s", "distributed.admin.system-monitor.interval": "5s",
          "distributed.admin.system-monitor.gil.enabled": False}
HOST = "127.0.0.1"


@contextlib.contextmanager
def local_cluster(workers: int) -> Iterator[str]:
    """Start a scheduler and ``workers`` workers on this machine; yield the scheduler's address; stop them after.

    Call it before this process starts a Dask client: the keeper is forked from
    this process, whose threads other than the caller's would not be in it.
    """
    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe()
    keeper = context.Process(target=_keep, args=(theirs, ours, workers, os.getpid()), name="dask-keeper",
                             daemon=False)
    keeper.start()
    theirs.close()
    relay: threading.Thread | None = None
    try:
        if not ours.poll(START_SECONDS):
            raise ClusterError(f"the local Dask scheduler did not start within {START_SECONDS:.0f} s")
        try:
            kind, value = ours.recv()
        except EOFError:
            raise ClusterError("the local Dask scheduler did not start (its process ended)") from None
        if kind != "address":
            raise ClusterError(f"the local Dask scheduler did not start: {value}")
        relay = threading.Thread(target=_relay, args=(ours,), name="arena-dask-keeper", daemon=True)
        relay.start()
        yield value
    finally:
        with contextlib.suppress(OSError):
            ours.send("stop")
        keeper.join(STOP_SECONDS * 2)
        if keeper.is_alive():
            keeper.kill()  # its processes die with it
            keeper.join()
        if relay is not None:
            relay.join(STOP_SECONDS)  # it ends once the keeper's end is closed
        ours.close()


def _relay(conn: multiprocessing.connection.Connection) -> None:
    """In the coordinator: log what the keeper tells (a worker that died), until it ends."""
    while True:
        try:
            kind, text = conn.recv()
        except (EOFError, OSError):
            return
        if kind == "warning":
            log.warning("%s", text)


def workers_running(client: Any, count: int, timeout: float) -> bool:
    """Whether ``count`` workers run on ``client``'s scheduler within ``timeout`` seconds.

    The scheduler itself waits (one round trip, looking every 5 ms): Dask's
    ``Client.wait_for_workers`` asks it again every 0.1 s, which kept a
    two-worker cluster's run waiting about 0.1 s for workers already there.
    """
    return bool(client.run_on_scheduler(_running, count, timeout))


async def _running(count: int, timeout: float, dask_scheduler: Any = None) -> bool:
    deadline = time.monotonic() + timeout
    while len(dask_scheduler.running) < count:
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.005)
    return True


def _keep(conn: multiprocessing.connection.Connection, coordinators: multiprocessing.connection.Connection,
          workers: int, coordinator: int) -> None:
    """The keeper: fork the scheduler and the workers, replace a worker that dies, end them all when told.

    ``coordinators`` is the coordinator's end of ``conn``, which only the coordinator may hold;
    ``coordinator`` its process id.
    """
    coordinators.close()
    die_with_parent()
    if os.getppid() != coordinator:  # it died before the line above: nothing would end this process
        return
    # a process group of its own: Ctrl-C at a terminal, or a SIGTERM to the run's group, reaches the coordinator
    # only, which stops the run and then the cluster (a worker ended by the signal would be replaced, and the
    # keeper itself would take its processes with it mid-run)
    os.setpgid(0, 0)
    gc.freeze()  # what the coordinator had stays put in every fork: no collection walks it (as a local worker)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # inherited by what it forks: Ctrl-C is the coordinator's
    import dask

    dask.config.set(CONFIG)
    scheduler_pipe, address_pipe = os.pipe()
    scheduler = _fork(_scheduler_main, address_pipe, conn, scheduler_pipe)
    os.close(address_pipe)
    address = _read_address(scheduler_pipe)
    if address is None:
        _end({scheduler})
        conn.send(("error", "its process ended before it listened"))
        return
    started = {_fork(_worker_main, address, conn): time.monotonic() for _ in range(workers)}
    conn.send(("address", address))
    replacing: list[float] = []  # when to fork each worker that replaces one that ended
    while not conn.poll(WATCH_SECONDS):  # until "stop", or the coordinator is gone
        now = time.monotonic()
        for pid, status in _ended():
            if pid == scheduler:
                _end(set(started))
                return
            if pid in started:
                # one that could not even start is not forked again and again
                replacing.append(now + (RESTART_SECONDS if now - started.pop(pid) < RESTART_SECONDS else 0))
                with contextlib.suppress(OSError):  # the coordinator logs it (this process has no log of its own)
                    conn.send(("warning", f"a worker of the local Dask cluster ended ({_how(status)}); "
                                          f"starting another"))
        for due in [due for due in replacing if due <= now]:
            replacing.remove(due)
            started[_fork(_worker_main, address, conn)] = time.monotonic()
    _end(set(started) | {scheduler})


def _fork(main: Any, argument: Any, conn: multiprocessing.connection.Connection, *fds: int) -> int:
    """Fork a process that runs ``main(argument)`` and exits (status 0 when it returns).

    It closes the keeper's ``conn`` and ``fds`` first: only the keeper may hold them.
    """
    keeper = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    code = 1
    try:
        conn.close()
        for fd in fds:
            os.close(fd)
        die_with_parent()
        if os.getppid() == keeper:  # else the keeper died before the line above: nothing would end this process
            main(argument)
        code = 0
    except BaseException:  # noqa: BLE001 (a forked child must never return into its parent's code)
        logging.getLogger("arena.cluster").exception("a process of the local Dask cluster failed")
    finally:
        os._exit(code)


def _read_address(pipe: int) -> str | None:
    """The scheduler's address, which it writes to ``pipe`` once it listens (None if it ends first)."""
    data = b""
    deadline = time.monotonic() + START_SECONDS
    with os.fdopen(pipe, "rb", buffering=0) as reading:
        while not data.endswith(b"\n") and time.monotonic() < deadline:
            chunk = reading.read(256)
            if not chunk:
                break
            data += chunk
    return data.decode().strip() if data.endswith(b"\n") else None


def _ended() -> Iterator[tuple[int, int]]:
    """The processes of the keeper that ended since the last look, with their wait status."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if not pid:
            return
        yield pid, status


def _how(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by {signal.Signals(os.WTERMSIG(status)).name}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _end(pids: set[int]) -> None:
    """SIGTERM to each of ``pids``, SIGKILL to those still there after :data:`STOP_SECONDS`; reap them all."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    left = set(pids)
    deadline = time.monotonic() + STOP_SECONDS
    while left and time.monotonic() < deadline:
        left -= {pid for pid, _ in _ended()}
        if left:
            time.sleep(0.01)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def _quiet_dask() -> None:
    """Dask's own log lines at errors only (a worker's warnings as a run is stopped are noise)."""
    logging.getLogger("distributed").setLevel(logging.ERROR)


def _scheduler_main(address_pipe: int) -> None:
    """The scheduler's process: listen on this machine, write the address to ``address_pipe``, serve until ended."""
    from distributed import Scheduler

    _quiet_dask()
    signal.signal(signal.SIGTERM, lambda signum, frame: os._exit(0))

    async def serve() -> None:
        async with Scheduler(host=HOST, port=0, dashboard=False, dashboard_address=None) as scheduler:
            os.write(address_pipe, f"{scheduler.address}\n".encode())
            os.close(address_pipe)
            await scheduler.finished()

    asyncio.run(serve())


def _worker_main(address: str) -> None:
    """A worker's process: one thread of games for the scheduler at ``address``; on SIGTERM, its bots end too."""
    from distributed import Worker

    _quiet_dask()

    def end(signum: int, frame: object) -> None:
        with contextlib.suppress(Exception):
            close_pools()
        os._exit(0)

    signal.signal(signal.SIGTERM, end)

    async def serve() -> None:
        # no memory limit to watch: each bot's memory is the sandbox's to limit
        async with Worker(address, nthreads=1, host=HOST, dashboard=False, memory_limit=0) as worker:
            await worker.finished()

    asyncio.run(serve())
