"""Playing game tasks through any ``concurrent.futures`` executor, a Dask cluster's above all.

:class:`ExecutorPool` has the interface of the local
:class:`arena.tournament.workers.WorkerPool` (``run(tasks)``, ``stop()``,
results reaching ``on_done`` / ``on_failed`` in the main process), so the
tournament runner drives either the same way. It cuts the tasks into
:mod:`blocks <arena.cluster.blocks>`, keeps two blocks per slot in flight (one
playing, one waiting, so no worker idles while a result travels back), and
hands each game's outcome over as its block comes back.

A game's outcome is handed over once, however many times its block was played
(Dask plays a block again when the worker playing it is lost). A block that
fails as a whole (every worker that tried it died: Dask's ``KilledWorker``)
fails each of its games; rerunning the tournament retries them. A worker that
does not match the coordinator's installation, or a lost scheduler, stops the
run (:class:`ClusterError`).

Stopping (Ctrl-C, or :meth:`ExecutorPool.stop`): the blocks not yet returned
are cancelled and their games left for the next run.
"""

from __future__ import annotations

import concurrent.futures
import logging
import signal
import threading
from typing import Any, Callable, Iterator

from arena.cluster.blocks import Block, BlockCutter, BlockResult, play_block
from arena.cluster.handshake import installation
from arena.cluster.worker_logs import replay_logs
from arena.errors import ClusterError
from arena.tournament.tasks import GameTask

log = logging.getLogger("arena.tournament")
BLOCKS_PER_SLOT = 2


class ExecutorPool:
    """Plays tasks in blocks on ``executor``, ``slots`` blocks at a time plus as many waiting.

    :param on_done: ``on_done(task, finished)`` with the rows of :func:`arena.tournament.store.finished_game`.
    :param on_failed: ``on_failed(task, reason)`` for a game that raised or whose block could not be played.
    :param on_idle: called about every ``tick`` seconds while waiting (progress display).
    """

    def __init__(self, executor: concurrent.futures.Executor, slots: int, on_done: Callable, on_failed: Callable,
                 on_idle: Callable = lambda: None, tick: float = 0.2) -> None:
        self.executor = executor
        self.slots = slots
        self.on_done = on_done
        self.on_failed = on_failed
        self.on_idle = on_idle
        self.tick = tick
        self.coordinator = installation()
        self.handed_over: set[int] = set()
        self.stop_requested = False

    def stop(self) -> None:
        """Ask the run to stop soon (what Ctrl-C does): blocks not yet returned are cancelled."""
        self.stop_requested = True

    def run(self, tasks: Iterator[GameTask]) -> bool:
        """Play every task; True when stopped early, False when all were played (or failed)."""
        cutter = BlockCutter(tasks)
        in_flight: dict[concurrent.futures.Future, Block] = {}
        previous = _catch_sigint(self)
        try:
            self._top_up(in_flight, cutter)
            while in_flight and not self.stop_requested:
                finished, _ = concurrent.futures.wait(in_flight, timeout=self.tick,
                                                      return_when=concurrent.futures.FIRST_COMPLETED)
                if not finished:
                    self.on_idle()
                for future in finished:
                    self._settle(in_flight.pop(future), future, cutter)
                if not self.stop_requested:
                    self._top_up(in_flight, cutter)
        finally:
            for future in in_flight:
                future.cancel()
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        return self.stop_requested

    def _top_up(self, in_flight: dict, cutter: BlockCutter) -> None:
        while len(in_flight) < BLOCKS_PER_SLOT * self.slots:
            block = cutter.next_block()
            if block is None:
                return
            in_flight[self.executor.submit(play_block, block, self.coordinator)] = block

    def _settle(self, block: Block, future: concurrent.futures.Future, cutter: BlockCutter) -> None:
        """Hand over the outcome of every game of a returned block."""
        error = None if future.cancelled() else future.exception()
        if future.cancelled() or error is not None:
            if isinstance(error, ClusterError):
                raise error
            reason = _block_failure(error)
            log.error("a block of %d games (%s to %s) failed: %s", len(block.tasks), block.tasks[0].game_id,
                      block.tasks[-1].game_id, reason)
            for task in block.tasks:
                self._hand_over(task, "failed", reason)
            return
        result: BlockResult = future.result()
        replay_logs(result.log_records)
        cutter.measured(result)
        for kind, order, payload in result.outcomes:
            self._hand_over(block.task(order), kind, payload)

    def _hand_over(self, task: GameTask, kind: str, payload: Any) -> None:
        if task.order in self.handed_over:
            return
        self.handed_over.add(task.order)
        if kind == "done":
            self.on_done(task, payload)
        else:
            self.on_failed(task, payload)


def _block_failure(error: BaseException | None) -> str:
    """Why a whole block failed, in one line."""
    if error is None:
        return "its block was cancelled by the cluster"
    if type(error).__name__ == "KilledWorker":
        return "every worker that played its block died (Dask gave up: KilledWorker)"
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0]}" if text else type(error).__name__


def _catch_sigint(pool: ExecutorPool) -> Any:
    """Turn SIGINT into :meth:`ExecutorPool.stop`; the previous handler (None off the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGINT, lambda signum, frame: pool.stop())
