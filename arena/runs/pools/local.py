"""The local pool: game specs played in ``-j N`` worker processes, results handed back chunk by chunk.

Each worker is a process forked from the main one (the ``fork`` start method,
set explicitly: the tournament log needs it) with a pipe of its own. The main
process hands every worker at most two chunks at a time (the one it plays and
the next; a chunk is about 40 ms of play), so it always knows which games a
worker holds; a worker sends back, per chunk, each spec's
:class:`~arena.runs.spec.Outcome` (a record packed for the store, or why the
game failed). A spec of the run's schedule travels as its place in it (the
workers inherit the schedule when they fork). So the main process handles
one message per chunk each way, whatever the number of games in it.

Stopping (:meth:`LocalPool.stop`, which the run loop calls on Ctrl-C or SIGTERM): the main process sends each
worker SIGINT and a ``None`` task. A worker in the middle of a game abandons
it (``StopRequested``); a worker between games just exits. Either way it
closes its bots (killing their processes) and leaves normally, which flushes
its log records: workers are stopped, never killed, since a process killed
while holding the log queue's lock would break logging for everyone.

A worker whose main process died (SIGKILL) is killed by the kernel at once
(``PR_SET_PDEATHSIG``), and its bots with it (they die with their parent too),
so nothing of a run outlives it.

Sandboxed, with no more workers than cores, each worker is pinned to a core
of its own, and its bot processes inherit that: a game's worker and bots then
take turns on one core, which makes a decision's round trip over the pipes
cheaper and keeps one worker from spreading over two cores, so ``-j 2`` gets
the second core to itself. Measured here with the demo tournament under the
process sandbox, on a machine others were using: -j 2 played 137 games/s
pinned, about 100 unpinned. Unsandboxed, there are no bot processes, and the
main process and the rating process together do about half a worker's work
for fast games: pinned workers kept them off their cores. 4,000 random Modern
Art games on two cores: ``-j 2`` 5.4-6.3 s pinned, 4.6-5.4 s unpinned; ``-j 1``
4.9-5.6 s pinned, 4.4-5.2 s unpinned. So unsandboxed workers are not pinned.
"""

from __future__ import annotations

import contextlib
import gc
import itertools
import logging
import mmap
import multiprocessing
import multiprocessing.connection
import os
import select
import signal
import socket
import time
from multiprocessing.reduction import ForkingPickler
from typing import Any, Callable, Iterable, Iterator, Sequence, cast

from arena.runs.process import RETRY_SIGNAL, cancel_retry, die_with_parent, interruptible, retry_soon, watch_forks
from arena.runs.deals import LazySpecs
from arena.runs.logs import abandon_log_queue, use_fork
from arena.runs.play import close_pools, play_spec
from arena.runs.spec import BriefChunk, BriefSink, FinishedGame, GameSpec, Outcome, PackedChunk, PackedSink, Sink
from arena.runs.store import game_rows
from arena.runs.timing import BatchSizer
from arena.runs import warmup

log = logging.getLogger("arena.runs")
#: chunks a worker holds at once: the one it plays and the next
CHUNKS_PER_WORKER = 2
#: how long a chunk should play, and the most games in one: the main process handles one message each way per
#: chunk (0.04 s and 32 games cost it twice the CPU a game of 0.1 s and 128); the last chunks of a run shrink so
#: that the workers finish together
CHUNK_SECONDS, CHUNK_GAMES = 0.1, 128
#: the most bytes of one pickled chunk: the chunks a worker holds stay within a pipe's 64 KiB buffer, so
#: the main process never blocks sending while the worker blocks sending results
CHUNK_BYTES = 24 * 1024
#: the bytes of results a worker may send ahead of the main process's reading
SEND_BUFFER = 2 * 1024 * 1024
STOP_WAIT_SECONDS = 30.0


class StopRequested(KeyboardInterrupt):
    """Raised in a worker playing a game when it is asked to stop.

    A ``KeyboardInterrupt``, as Ctrl-C's own exception is: neither the game loop's
    ``except Exception`` nor the logging handlers (which re-raise it) swallow it.
    """


_stopping = False
_playing = False
_interrupted = False


def _on_stop_signal(signum: int, frame: Any) -> None:
    """SIGINT in a worker: abandon the game being played, or stop before the next one.

    Where the exception would be printed and dropped (a fork handler, a
    ``__del__``: :func:`arena.runs.process.interruptible`), it is raised a
    moment later instead (the retry timer's signal comes back here).
    """
    global _stopping, _interrupted
    _stopping = True
    if _playing and not _interrupted:
        if not interruptible(frame):
            retry_soon()
            return
        _interrupted = True
        raise StopRequested


def _worker(conn: multiprocessing.connection.Connection, inherited: list[multiprocessing.connection.Connection],
            core: int | None, table: Sequence[GameSpec], playing: Any, packs: bool = False,
            brief: bool = False) -> None:
    """A worker's life: play the chunks that come down ``conn`` until ``None``, a stop or a closed pipe.

    A task is a spec, or its place in ``table`` (the run's specs, inherited
    at the fork). The outcomes of a chunk go back together when it is done (or
    when the worker stops): a message a game cost the main process more than
    the game's bookkeeping. ``playing`` (shared memory) holds the order of the
    game being played, -1 between games, so that the main process knows which
    game a worker died in. With ``packs`` (the sink takes packed chunks), a
    chunk's games go back as their store rows pickled in one piece and their
    log lines in one string (:func:`_packed_chunk`); with ``brief`` too (the
    sink needs no record), without an outcome a game (:func:`_brief_chunk`).
    """
    global _playing
    for other in inherited:  # the main process's ends of every pipe: only the main process may hold them
        other.close()
    die_with_parent()
    gc.freeze()  # what the worker inherited stays put: no collection walks it, no page of it is copied for that
    _widen_send_buffer(conn)
    if core is not None:
        os.sched_setaffinity(0, {core})
    watch_forks()
    signal.signal(signal.SIGINT, _on_stop_signal)
    signal.signal(signal.SIGTERM, _on_stop_signal)
    signal.signal(RETRY_SIGNAL, _on_stop_signal)
    name = multiprocessing.current_process().name
    outcomes: list[Outcome] = []
    played: list[GameSpec] | None = [] if packs else None  # the specs of ``outcomes``, when chunks are packed
    form = _brief_chunk if packs and brief else _packed_chunk
    try:
        while not _stopping:
            try:
                chunk = conn.recv()
            except (EOFError, OSError):
                abandon_log_queue()  # the main process is gone: nobody will read the log queue
                return
            if chunk is None:
                return
            for task in chunk:
                if _stopping:
                    return
                spec = table[task] if isinstance(task, int) else task
                playing.value = spec.order
                _playing = True
                try:
                    outcomes.append(play_spec(spec, name))
                finally:
                    _playing = False
                playing.value = -1
                if played is not None:
                    played.append(spec)
            if not _send_outcomes(conn, outcomes, played, form):
                return
    except StopRequested:
        log.info("stopped")
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        cancel_retry()
        _send_outcomes(conn, outcomes, played, form)  # what was finished before a stop is stored
        close_pools()


def _send_outcomes(conn: multiprocessing.connection.Connection, outcomes: list[Outcome],
                   played: list[GameSpec] | None = None,
                   form: Callable[[list[Outcome], list[GameSpec]], PackedChunk | BriefChunk] | None = None) -> bool:
    """Send the outcomes played since the last message (emptying the list; made a chunk by ``form`` when
    ``played`` holds their specs, emptied too); False when the main process is gone."""
    if not outcomes:
        return True
    try:
        message = outcomes[:] if played is None else (form or _packed_chunk)(outcomes, played)
        if isinstance(message, BriefChunk):  # its rows follow as a frame of their own (LocalPool._receive)
            conn.send(message._replace(rows=b""))
            conn.send_bytes(message.rows)
        else:
            conn.send(message)
    except OSError:
        abandon_log_queue()
        return False
    finally:
        outcomes.clear()
        if played is not None:
            played.clear()
    return True


def _packed_chunk(outcomes: list[Outcome], specs: list[GameSpec]) -> PackedChunk:
    """A chunk's outcomes without their packed games, which go as the store's rows pickled in one piece.

    The main process hands the rows to the store's writer as they are
    (unpickled once, by the writer) and the log lines to the log in one
    write: it no longer unpickles each game's packed record and rows only to
    pickle them again for the writer.
    """
    finished = [outcome.finished(spec) for outcome, spec in zip(outcomes, specs) if outcome.packed is not None]
    lines = "".join(game.packed.line for game in finished if game.packed is not None)
    light = [Outcome(outcome.order, outcome.record, outcome.failure, outcome.seconds, outcome.worker)
             for outcome in outcomes]
    return PackedChunk(light, bytes(ForkingPickler.dumps(game_rows(finished))), lines)


def _brief_chunk(outcomes: list[Outcome], specs: list[GameSpec]) -> BriefChunk:
    """A chunk for a brief sink: which games were played or failed, their time, a tally, rows and lines."""
    finished = [outcome.finished(spec) for outcome, spec in zip(outcomes, specs) if outcome.packed is not None]
    lines = "".join(game.packed.line for game in finished if game.packed is not None)
    tally: dict[str, tuple[int, int]] = {}
    orders, failures = [], []
    for outcome in outcomes:
        if outcome.record is None:
            failures.append((outcome.order, outcome.failure))
            continue
        orders.append(outcome.order)
        for bot, rank in zip(outcome.record["players"], outcome.record["result"]["ranks"]):
            seats, firsts = tally.get(bot, (0, 0))
            tally[bot] = (seats + 1, firsts + (rank == 1))
    return BriefChunk(orders, failures, sum(outcome.seconds for outcome in outcomes), tally,
                      bytes(ForkingPickler.dumps(game_rows(finished))), lines)




class LocalPool:
    """``jobs`` worker processes playing specs; what they play reaches the sink in the main process.

    :param tick: the sink's ``idle()`` is called about this often while waiting (progress display).
    """

    def __init__(self, jobs: int, tick: float = 0.2) -> None:
        use_fork()
        self.context = multiprocessing.get_context("fork")
        self.jobs = jobs
        self.tick = tick
        self.sink: Sink | None = None
        self.packed_sink: PackedSink | None = None  # the sink, when it takes a chunk's games packed in one piece
        self.brief_sink: BriefSink | None = None  # the sink, when it needs no record (BriefChunk)
        self.links: dict[multiprocessing.connection.Connection, Any] = {}  # main's end -> process
        self.held: dict[Any, dict[int, GameSpec | int]] = {}  # process -> specs (or places) it holds, in order
        self.chunks: dict[Any, list[int]] = {}  # process -> games left in each chunk it holds, oldest first
        self.timing = BatchSizer(CHUNK_SECONDS, CHUNK_GAMES)
        self.returned: list[GameSpec | int] = []  # specs (or places) a dead worker held but had not started
        self.spawned = 0
        self.cores = sorted(os.sched_getaffinity(0))
        self.core_of: dict[Any, int | None] = {}  # process -> the core it is pinned to
        self.pinned = False  # whether workers are pinned to cores (run() decides)
        self.stop_requested = False
        self.table: Sequence[GameSpec] = ()  # the run's specs, which workers inherit: a task goes as its place
        self.places: dict[int, int] = {}  # id of a spec of the table -> its place in it
        self.playing: dict[Any, Any] = {}  # process -> the shared order of the game it plays (-1: none)
        self.left: int | None = None  # games not handed out yet, when known (returned ones counted again)
        self.watched = _Watched()  # every worker's pipe and exit sentinel, waited on together

    def _spawn(self) -> None:
        mine, theirs = self.context.Pipe()
        self.spawned += 1
        core = self._free_core()
        playing = SharedOrder()
        process = self.context.Process(target=_worker, args=(theirs, [mine, *self.links], core, self.table, playing,
                                                             self.packed_sink is not None,
                                                             self.brief_sink is not None),
                                       name=f"worker-{self.spawned}")
        self.core_of[process] = core
        self.playing[process] = playing
        process.start()
        theirs.close()
        self.links[mine] = process
        self.watched.add(mine, mine.fileno())
        self.watched.add(process, process.sentinel)
        self.held[process] = {}
        self.chunks[process] = []

    def _free_core(self) -> int | None:
        """The core for a new worker: one no other worker holds, or None when workers are not pinned."""
        if not self.pinned:
            return None
        taken = {self.core_of[process] for process in self.links.values()}
        return next(core for core in self.cores if core not in taken)

    def _spec(self, task: GameSpec | int) -> GameSpec:
        """The spec of a task: itself, or the spec at its place in the table (made now if the table is lazy)."""
        return self.table[task] if isinstance(task, int) else task

    def _give(self, conn: Any, tasks: Iterator[GameSpec | int]) -> None:
        """Top up one worker to its share of chunks, or tell it to finish when no task is left."""
        process = self.links[conn]
        held, chunks = self.held[process], self.chunks[process]
        while len(chunks) < CHUNKS_PER_WORKER:
            chunk: list[GameSpec | int] = []
            wanted = self.timing.games_wanted()
            if self.left is not None:  # near the end, a chunk holds at most its share of what is left
                wanted = min(wanted, max(1, self.left // (CHUNKS_PER_WORKER * len(self.links))))
            returned = self.returned
            chunk = returned[:wanted]  # games a dead worker held go first
            del returned[:len(chunk)]
            if len(chunk) < wanted:
                chunk += itertools.islice(tasks, wanted - len(chunk))
            if not chunk:
                if not held:
                    self._send(conn, None)
                return
            cut: list[Any] = []
            refs: list[Any] = [self.places.get(id(task), task) for task in chunk] if self.places else list(chunk)
            message = _pickled(refs, cut)
            if cut:  # too many bytes: the specs cut from its end go first next time
                self.returned[:0] = chunk[len(refs):]
                del chunk[len(refs):]
            if self.left is not None:
                self.left -= len(chunk)
            if isinstance(self.table, LazySpecs):  # every task a place in it, which is its order
                held.update(zip(cast(list[int], chunk), chunk))
            else:
                for task in chunk:
                    held[task if isinstance(task, int) else task.order] = task
            chunks.append(len(chunk))
            self._send(conn, message)

    @staticmethod
    def _send(conn: Any, message: Any) -> None:
        """Send ``message`` (bytes go as they are: a pickled chunk), unless the worker is gone."""
        try:
            conn.send_bytes(message) if isinstance(message, bytes) else conn.send(message)
        except OSError:
            pass  # the worker died; its sentinel tells the loop

    def run(self, specs: Iterable[GameSpec | int], sink: Sink, expected: int | None = None,
            table: Sequence[GameSpec] = ()) -> bool:
        """Play every spec; True when stopped early (:meth:`stop`), False when all were played.

        ``expected`` (how many specs will come, when known) keeps the pool from
        starting more workers than games. ``table``, when given, holds the
        specs that will come (the run's schedule): the workers inherit it when
        they fork, and a spec of it goes to a worker as its place in it, not
        pickled (pickling every spec cost the main process more than a fast
        game's bookkeeping). A table that makes its specs when asked
        (:class:`~arena.runs.deals.LazySpecs`) comes with places in it for
        ``specs``, not specs: the workers make what they play, and this
        process makes a spec only to name a game that failed. Whatever happens (an error in the sink
        included), the workers are stopped before it returns.
        """
        self.table = table
        self.places = {} if isinstance(table, LazySpecs) else {id(spec): place for place, spec in enumerate(table)}
        self.left = expected
        tasks = iter(specs)
        first = next(tasks, None)
        if first is None:
            return False
        tasks = itertools.chain([first], tasks)
        self.pinned = self._spec(first).sandbox != "none" and self.jobs <= len(self.cores)
        self.sink = sink
        self.packed_sink = sink if isinstance(sink, PackedSink) else None
        self.brief_sink = sink if self.packed_sink is not None and isinstance(sink, BriefSink) and sink.brief \
            else None
        workers = self.jobs if expected is None else min(self.jobs, expected)
        if workers < 1 or self.stop_requested:  # a stop asked before this began (Ctrl-C as the run's handler
            stopped, self.stop_requested = self.stop_requested, False  # came in) holds: no worker starts
            return stopped
        try:
            for _ in range(workers):
                self._spawn()
            for conn in list(self.links):
                self._give(conn, tasks)
            warmup.start()  # the workers are forked: what the command needs after the games is imported meanwhile
            while self.links and not self.stop_requested:
                self._wait_once(tasks)
        finally:
            try:
                if self.links:
                    stopped = self.stop_requested
                    self.stop_requested = True
                    self._stop_workers()
                    self.stop_requested = stopped
            finally:
                warmup.wait()  # nothing imports beside it once the games are over
        stopped, self.stop_requested = self.stop_requested, False  # the next run starts afresh
        return stopped

    def stop(self) -> None:
        """Ask the run to stop soon (Ctrl-C, SIGTERM): games being played are abandoned."""
        self.stop_requested = True

    def _wait_once(self, tasks: Iterator[GameSpec | int] | None) -> None:
        ready = self.watched.wait(self.tick)
        if not ready:
            self._sink.idle()
            return
        for item in ready:
            if item in self.links:
                self._receive(item, tasks)
        for item in ready:
            if item not in self.links and item in self.playing:  # a worker's sentinel: it exited
                self._bury(item, tasks)

    @property
    def _sink(self) -> Sink:
        assert self.sink is not None, "run() sets the sink"
        return self.sink

    def _receive(self, conn: Any, tasks: Iterator[GameSpec | int] | None) -> bool:
        """Handle one message from a worker (a chunk's outcomes); False when its pipe is closed (the worker is gone)."""
        try:
            message: list[Outcome] | PackedChunk | BriefChunk = conn.recv()
        except (EOFError, OSError):
            return False
        process = self.links[conn]
        held, chunks, sink, timing = self.held[process], self.chunks[process], self._sink, self.timing
        if isinstance(message, BriefChunk):
            try:  # its rows come after it as they were pickled: passed on to the writer unread and uncopied
                message = message._replace(rows=conn.recv_bytes())
            except (EOFError, OSError):
                return False
            self._brief(message, held, chunks)
            if tasks is not None and not self.stop_requested:
                self._give(conn, tasks)
            return True
        packed: PackedChunk | None = None
        if isinstance(message, PackedChunk):
            packed, outcomes = message, message.outcomes
        else:
            outcomes = message
        finished: list[FinishedGame] = []
        for outcome in outcomes:
            spec = self._spec(held.pop(outcome.order))
            chunks[0] -= 1
            if not chunks[0]:
                chunks.pop(0)
            timing.played(outcome.seconds)
            if outcome.record is None:
                sink.failed(spec, outcome.failure)
            elif packed is None:
                sink.done(outcome.finished(spec))
            else:
                finished.append(outcome.finished(spec))
        if packed is not None and finished and self.packed_sink is not None:
            self.packed_sink.done_packed(finished, packed.rows, packed.lines)
        if tasks is not None and not self.stop_requested:
            self._give(conn, tasks)
        return True

    def _brief(self, message: BriefChunk, held: dict[int, GameSpec | int], chunks: list[int]) -> None:
        """A brief chunk: its games no longer held by the worker, its failures told, the rest handed on whole."""
        for order in message.orders:
            del held[order]
        for order, failure in message.failures:
            self._sink.failed(self._spec(held.pop(order)), failure)
        left = len(message.orders) + len(message.failures)
        while left and chunks:
            taken = min(left, chunks[0])
            chunks[0] -= taken
            left -= taken
            if not chunks[0]:
                chunks.pop(0)
        self.timing.played(message.seconds, len(message.orders) + len(message.failures))
        if message.orders and self.brief_sink is not None:
            self.brief_sink.done_brief(len(message.orders), message.tally, message.rows, message.lines)

    def _bury(self, process: Any, tasks: Iterator[GameSpec | int] | None) -> None:
        """A worker exited: drain what it sent, fail the game it was playing, replace it.

        The game it died in is the one its shared ``playing`` value names; the
        others it held (played but not yet sent with their chunk, or never
        started) go to another worker.
        """
        conn = next(conn for conn, owner in self.links.items() if owner is process)
        while select.select([conn], [], [], 0)[0] and self._receive(conn, None):  # not conn.poll(): a selector a call
            pass
        process.join()
        self.watched.remove(conn.fileno())
        self.watched.remove(process.sentinel)
        del self.links[conn]
        conn.close()
        held = self.held.pop(process)
        order = self.playing.pop(process).value
        del self.chunks[process]
        del self.core_of[process]
        if self.stop_requested:
            return
        if held:
            # the game it was playing, else (it died between games) the first it held; the others, played but
            # not sent or never started, are played again (a game is a function of its spec)
            playing = self._spec(held.pop(order) if order in held else held.pop(next(iter(held))))
            unstarted = list(held.values())
            log.error("worker %s died (exit code %s) while playing game %s", process.name, process.exitcode,
                      playing.id)
            self._sink.failed(playing, f"its worker process died (exit code {process.exitcode})")
            self.returned.extend(unstarted)
            if self.left is not None:
                self.left += len(unstarted)
        if process.exitcode != 0 and tasks is not None:
            self._spawn()
            self._give(next(reversed(self.links)), tasks)

    def _stop_workers(self) -> None:
        """Ask every worker to stop, keep the results they still send, and wait for them to exit."""
        for conn, process in self.links.items():
            if process.is_alive():
                try:
                    os.kill(process.pid, signal.SIGINT)
                except ProcessLookupError:
                    pass
            self._send(conn, None)
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        while self.links and time.monotonic() < deadline:
            self._wait_once(None)
        for process in list(self.links.values()):  # last resort: a worker stuck in a bot's native code
            log.error("worker %s did not stop within %.0f s; terminating it", process.name, STOP_WAIT_SECONDS)
            process.terminate()
            process.join()
        self.links.clear()
        self.watched = _Watched()



class SharedOrder:
    """One integer in memory shared with the worker forked after it: the order of the game it plays, -1 between
    games.

    An anonymous shared page rather than ``multiprocessing``'s ``RawValue``,
    whose first use imports its shared-memory modules and maps a shared heap:
    2-4 ms of the main process before the first worker starts, at any ``-j``.
    """

    def __init__(self) -> None:
        self._page = mmap.mmap(-1, 8)  # MAP_SHARED: a forked worker writes the same page
        self._cell = memoryview(self._page).cast("q")
        self._cell[0] = -1

    @property
    def value(self) -> int:
        return int(self._cell[0])

    @value.setter
    def value(self, order: int) -> None:
        self._cell[0] = order


class _Watched:
    """The workers' pipes and exit sentinels the main process waits on, registered once in one ``poll`` object.

    ``multiprocessing.connection.wait`` makes a selector, registers every
    object given and drops it again on each call: 50-60 us of the main
    process's CPU a call, some hundred calls in 4,000 random games (1.5-2 us
    a game of its ~10 while playing). Here a pipe or sentinel is registered
    when its worker starts and removed when it is buried.
    """

    def __init__(self) -> None:
        self.poller = select.poll()
        self.items: dict[int, Any] = {}  # descriptor -> the pipe or the process whose sentinel it is

    def add(self, item: Any, descriptor: int) -> None:
        self.poller.register(descriptor, select.POLLIN)
        self.items[descriptor] = item

    def remove(self, descriptor: int) -> None:
        if self.items.pop(descriptor, None) is not None:
            self.poller.unregister(descriptor)

    def wait(self, timeout: float) -> list[Any]:
        """What is ready (readable, at its end, or an exited worker's sentinel) within ``timeout`` seconds."""
        return [self.items[descriptor] for descriptor, _ in self.poller.poll(timeout * 1000)
                if descriptor in self.items]


def _widen_send_buffer(conn: multiprocessing.connection.Connection) -> None:
    """Let a worker leave about :data:`SEND_BUFFER` bytes of results unread before it waits.

    The main process reads no result while it writes a batch to the store (20-50
    ms); with the default buffer (about 18 records of fast games) the worker
    then stopped playing. The kernel caps the size (``net.core.wmem_max``).
    """
    with contextlib.suppress(OSError):
        with socket.socket(fileno=os.dup(conn.fileno())) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)


def _pickled(chunk: list[GameSpec], returned: list[GameSpec]) -> bytes:
    """``chunk`` pickled within :data:`CHUNK_BYTES`: games cut from its end go back to the front of ``returned``."""
    while True:
        message = bytes(ForkingPickler.dumps(chunk))
        if len(message) <= CHUNK_BYTES or len(chunk) == 1:
            return message
        half = len(chunk) // 2
        returned[:0] = chunk[half:]
        del chunk[half:]

