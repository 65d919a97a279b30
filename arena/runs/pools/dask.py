"""The Dask pool: game specs played through any ``concurrent.futures`` executor, a Dask cluster's above all.

:class:`ExecutorPool` has the interface of the local pool
(:class:`arena.runs.pools.local.LocalPool`: ``run(specs, sink)``, ``stop()``),
so the run loop drives either the same way. It cuts the tasks into
:mod:`blocks <arena.cluster.blocks>`, keeps two blocks per slot in flight (one
playing, one waiting, so no worker idles while a result travels back), and
hands each game's outcome over as its block comes back: to a sink that takes
them packed (:class:`~arena.runs.spec.PackedSink`, the run loop's), a block's
games in one call with their store rows pickled in one piece by the worker,
as the local pool hands over a chunk.

A game's outcome is handed over once, however many times its block was played
(Dask plays a block again when the worker playing it is lost). A block that
fails as a whole (every worker that tried it died: Dask's ``KilledWorker``)
fails each of its games; rerunning the tournament retries them. A worker that
does not match the coordinator's installation, or a lost scheduler, stops the
run (:class:`ClusterError`).

Stopping (:meth:`ExecutorPool.stop`, which the run loop calls on Ctrl-C or SIGTERM): the blocks not yet returned
are cancelled and their games left for the next run.
"""

from __future__ import annotations

import concurrent.futures
import logging
from typing import Iterable, Sequence

from arena.cluster.blocks import Block, BlockCutter, BlockResult, pickled_tasks, play_pickled_block
from arena.cluster.handshake import installation
from arena.cluster.worker_logs import replay_logs
from arena.errors import ClusterError
from arena.runs.spec import FinishedGame, GameSpec, Outcome, PackedSink, Sink

log = logging.getLogger("arena.runs")
BLOCKS_PER_SLOT = 2


class ExecutorPool:
    """Plays specs in blocks on ``executor``, ``slots`` blocks at a time plus as many waiting.

    :param tick: the sink's ``idle()`` is called about this often while waiting (progress display).
    """

    def __init__(self, executor: concurrent.futures.Executor, slots: int, tick: float = 0.2) -> None:
        self.executor = executor
        self.slots = slots
        self.jobs = slots
        self.tick = tick
        self.sink: Sink | None = None
        self.packed_sink: PackedSink | None = None  # the sink, when it takes a block's games packed in one piece
        self.coordinator = installation()
        self.handed_over: set[int] = set()
        self.stop_requested = False

    def stop(self) -> None:
        """Ask the run to stop soon (Ctrl-C, SIGTERM): blocks not yet returned are cancelled."""
        self.stop_requested = True

    def run(self, specs: Iterable[GameSpec], sink: Sink, expected: int | None = None,
            table: Sequence[GameSpec] = ()) -> bool:
        """Play every spec; True when stopped early, False when all were played (or failed).

        ``expected`` (how many specs come) lets the last blocks shrink so that the workers finish together;
        ``table`` changes nothing here (specs travel to another machine as they are).
        """
        self.sink = sink  # a stop asked before this began (Ctrl-C as the run's handler came in) holds
        self.packed_sink = sink if isinstance(sink, PackedSink) else None
        self.handed_over.clear()
        cutter = BlockCutter(iter(specs), expected, BLOCKS_PER_SLOT * self.slots)
        in_flight: dict[concurrent.futures.Future[BlockResult], Block] = {}
        try:
            if not self.stop_requested:
                self._top_up(in_flight, cutter)
            while in_flight and not self.stop_requested:
                finished, _ = concurrent.futures.wait(in_flight, timeout=self.tick,
                                                      return_when=concurrent.futures.FIRST_COMPLETED)
                if not finished:
                    sink.idle()
                for future in finished:
                    self._settle(in_flight.pop(future), future, cutter)
                if not self.stop_requested:
                    self._top_up(in_flight, cutter)
        finally:
            for future in in_flight:
                future.cancel()
        stopped, self.stop_requested = self.stop_requested, False  # the next run starts afresh
        return stopped

    def _top_up(self, in_flight: dict[concurrent.futures.Future[BlockResult], Block], cutter: BlockCutter) -> None:
        while len(in_flight) < BLOCKS_PER_SLOT * self.slots:
            block = cutter.next_block()
            if block is None:
                return
            in_flight[self.executor.submit(play_pickled_block, pickled_tasks(block), self.coordinator,
                                           self.packed_sink is not None)] = block

    def _settle(self, block: Block, future: concurrent.futures.Future[BlockResult], cutter: BlockCutter) -> None:
        """Hand over the outcome of every game of a returned block."""
        error = None if future.cancelled() else future.exception()
        if future.cancelled() or error is not None:
            if isinstance(error, ClusterError):
                raise error
            reason = _block_failure(error)
            log.error("a block of %d games (%s to %s) failed: %s", len(block.tasks), block.tasks[0].id,
                      block.tasks[-1].id, reason)
            for spec in block.tasks:
                self._hand_over(spec, Outcome(spec.order, None, reason))
            return
        result: BlockResult = future.result()
        replay_logs(result.log_records)
        cutter.measured(result)
        tasks = block.by_order()
        if result.rows is not None and self.packed_sink is not None:
            self._hand_over_packed(result, tasks)
            return
        for outcome in result.outcomes:
            self._hand_over(tasks[outcome.order], outcome)

    def _hand_over_packed(self, result: BlockResult, tasks: dict[int, GameSpec]) -> None:
        """A packed block's games in one call (its rows as the worker pickled them), its failures one by one.

        A block is handed over once: Dask returns one result per task, and a
        block played again (its worker lost) is the same task.
        """
        assert self.packed_sink is not None and result.rows is not None
        finished: list[FinishedGame] = []
        for outcome in result.outcomes:
            spec = tasks[outcome.order]
            if outcome.record is None:
                self._hand_over(spec, outcome)
            elif spec.order not in self.handed_over:
                self.handed_over.add(spec.order)
                finished.append(outcome.finished(spec))
        if finished:
            self.packed_sink.done_packed(finished, result.rows, result.lines)

    def _hand_over(self, spec: GameSpec, outcome: Outcome) -> None:
        if spec.order in self.handed_over:
            return
        self.handed_over.add(spec.order)
        assert self.sink is not None
        if outcome.record is not None:
            self.sink.done(outcome.finished(spec))
        else:
            self.sink.failed(spec, outcome.failure)


def _block_failure(error: BaseException | None) -> str:
    """Why a whole block failed, in one line."""
    if error is None:
        return "its block was cancelled by the cluster"
    if type(error).__name__ == "KilledWorker":
        return "every worker that played its block died (Dask gave up: KilledWorker)"
    text = str(error).strip()
    return f"{type(error).__name__}: {text.splitlines()[0]}" if text else type(error).__name__

