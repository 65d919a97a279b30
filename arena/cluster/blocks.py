"""Blocks: the unit of work sent to a cluster, several games played by one task.

A Dask task costs about 2-3 ms of scheduling against 0.1-0.15 ms for a local
process pool, more than a fast game takes (an in-process Modern Art game takes
1.5 to 3 ms). So a task plays a block of games and returns all their records:
whole deals (a deal in all its seat rotations), as many consecutive ones as
fit in about :data:`TARGET_SECONDS` of play, judged from the blocks already
played. The first blocks are one deal each; a block never splits a deal.
Towards the end of the schedule blocks get smaller (at most the games left
shared among the blocks in flight), so that the workers finish together
rather than one playing a last long block while the others idle.

A worker sends a block's games back as the local pool's workers send a
chunk's (:class:`~arena.runs.spec.PackedChunk`): the store's rows of every
game pickled in one piece and the log lines in one string, which the
coordinator hands to the store's writer and the log unread; it only counts
the games and shows them. Sent as one object per game (its outcome with its
packed record), a block cost the coordinator about 60 µs a game to receive
and to make the rows of; in one piece, a few.

A block is a pure function of its game specs (:func:`~arena.runs.play.play_spec`), so Dask may
play it again on another worker when its worker is lost; the coordinator
keeps the first record of each game it receives.
"""

from __future__ import annotations

import pickle
import time
from dataclasses import dataclass, field
from typing import Any, Iterator

from arena.cluster.handshake import Installation, check_this_worker, worker_name
from arena.cluster.worker_logs import collected_logs
from arena.runs.play import play_spec
from arena.runs.spec import GameSpec, Outcome
from arena.runs.store import game_rows
from arena.runs.timing import BatchSizer

#: how long a block should play: about two hundred times Dask's cost per task. Part of that cost falls on
#: the coordinator's client thread (2-3 ms a block), which at sixteen workers caps the run before the
#: workers do; blocks of 0.6 s rather than 0.25 s took its CPU for 20,000 random games from 0.85 to 0.47 s
#: and the scheduler's from 0.68 to 0.39 s (two cores, load 5)
TARGET_SECONDS = 0.5
#: games in one block at most, however fast the games (a block of 64 fast games still cost the coordinator
#: and each worker 10% more CPU than blocks of 256: 4.6-4.7 s against 4.1-4.4 s for 2,000 random games)
MAX_GAMES = 1024


@dataclass(frozen=True)
class Block:
    """Consecutive game tasks of the schedule, whole deals only."""

    tasks: tuple[GameSpec, ...]

    def by_order(self) -> dict[int, GameSpec]:
        """The block's tasks by their place in the schedule."""
        return {task.order: task for task in self.tasks}


@dataclass(frozen=True)
class BlockResult:
    """What a worker sends back for a block: per game the rows to store or why it failed, and its log lines.

    ``outcomes`` holds one :class:`~arena.runs.spec.Outcome` per game, as the local workers send them;
    ``seconds`` is the time the worker spent playing (it sizes the next blocks). A packed block
    (:attr:`packed`) has outcomes without their packed records: ``rows`` holds the store's rows of its
    finished games (:func:`~arena.runs.store.game_rows`) pickled in one piece, ``lines`` their log lines.
    """

    worker: str
    seconds: float
    outcomes: list[Outcome] = field(default_factory=list)
    log_records: list[dict[str, Any]] = field(default_factory=list)
    rows: bytes | None = None
    lines: str = ""

    @property
    def packed(self) -> bool:
        return self.rows is not None


def play_block(block: Block, coordinator: Installation, packs: bool = False) -> BlockResult:
    """Play every game of ``block`` on this worker, after checking it matches the ``coordinator``'s installation.

    With ``packs``, the games come back packed in one piece (:class:`BlockResult`'s ``rows`` and ``lines``).
    """
    check_this_worker(coordinator)
    worker = worker_name()
    with collected_logs(worker) as log_records:
        began = time.perf_counter()
        outcomes = [play_spec(spec, worker) for spec in block.tasks]
        seconds = time.perf_counter() - began
    if not packs:
        return BlockResult(worker, seconds, outcomes, log_records)
    finished = [outcome.finished(spec) for outcome, spec in zip(outcomes, block.tasks) if outcome.packed is not None]
    return BlockResult(worker, seconds, [_light(outcome) for outcome in outcomes], log_records,
                       rows=pickle.dumps(game_rows(finished), pickle.HIGHEST_PROTOCOL),
                       lines="".join(game.packed.line for game in finished if game.packed is not None))


def play_pickled_block(tasks: bytes, coordinator: Installation, packs: bool = False) -> BlockResult:
    """:func:`play_block` of the block whose tasks come pickled in ``tasks``.

    A Dask scheduler unpickles a task's arguments and pickles them again for
    the worker: a block of 150 game specs cost it about 3 ms each way. As
    bytes, the specs pass through it unread.
    """
    return play_block(Block(pickle.loads(tasks)), coordinator, packs)


def pickled_tasks(block: Block) -> bytes:
    """The tasks of ``block`` as :func:`play_pickled_block` takes them."""
    return pickle.dumps(block.tasks, pickle.HIGHEST_PROTOCOL)


def _light(outcome: Outcome) -> Outcome:
    """``outcome`` without its packed record (which travels in the block's rows)."""
    return Outcome(outcome.order, outcome.record, outcome.failure, outcome.seconds, outcome.worker)



def deal_of(task: GameSpec) -> tuple[str, str, int]:
    return task.game, task.table, task.deal


class BlockCutter:
    """Cuts the schedule's pending tasks into blocks of whole deals, sized by the play time measured so far.

    :param expected: how many tasks there are (None: unknown, blocks are not shrunk at the end).
    :param in_flight: how many blocks are played or waiting at once (the end's blocks share what is left).
    """

    def __init__(self, tasks: Iterator[GameSpec], expected: int | None = None, in_flight: int = 1) -> None:
        self.tasks = iter(tasks)
        self.waiting: GameSpec | None = next(self.tasks, None)
        self.sizer = BatchSizer(TARGET_SECONDS, MAX_GAMES)
        self.left = expected
        self.in_flight = in_flight

    def measured(self, result: BlockResult) -> None:
        """Learn from a played block how long a game takes."""
        self.sizer.played(result.seconds, len(result.outcomes))

    def games_wanted(self) -> int:
        wanted = self.sizer.games_wanted()
        if self.left is not None:
            wanted = min(wanted, max(1, -(-self.left // self.in_flight)))
        return wanted

    def next_block(self) -> Block | None:
        """The next block, or None when every task has been cut."""
        if self.waiting is None:
            return None
        wanted = self.games_wanted()
        tasks: list[GameSpec] = []
        while self.waiting is not None and len(tasks) < wanted:
            deal = deal_of(self.waiting)
            while self.waiting is not None and deal_of(self.waiting) == deal:
                tasks.append(self.waiting)
                self.waiting = next(self.tasks, None)
        if self.left is not None:
            self.left -= len(tasks)
        return Block(tuple(tasks))
