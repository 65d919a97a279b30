"""A run of many games: the same twelve steps for ``arena run`` and ``arena compare`` (open_run, Run.play).

:func:`open_run` does the first seven, before a schedule can be drawn:

1. check the results folder (:func:`arena.runs.folders.check_results_folder`: a bad ``--results`` makes nothing);
2. open the pool (the one given, or the one ``-j`` and ``--scheduler`` choose: a bad scheduler is refused here);
3. check the entrants (the caller's ``check``: every bot started once, before the folder is made, so a broken
   one leaves nothing behind; a tournament may instead leave it out, and the store lists it);
4. make and hold the folder (:func:`arena.runs.loop.results_folder`);
5. open the store (made, or reopened when it holds this run);
6. the run's secret (the public seed, or the one drawn and kept in the store);
7. the versions of the entrants' code and of the games (:mod:`arena.versions`).

The caller then draws its specs with the secret and the versions, and
:meth:`Run.play` does the other five:

8. the meta (the total and the versions, with the caller's own: a plan, an SPRT's bounds);
9. the stored games (what is reused: the caller's ``reuse`` says so and may keep games of an older engine);
10. the tally (the current games' first places and seats, the games reused);
11. the progress display (with the caller's observer, the tournament's live ratings or the comparison's SPRT feed);
12. the schedule, played through the pool (:func:`arena.runs.loop.run_schedule`).

What differs stays with the caller: a tournament's schedule, ladder and
standings; a comparison's design, its stop once the SPRT decides and its verdict.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Protocol, Sequence, TextIO

from arena.entrants import Entrant
from arena.plugins import Plugins
from arena.runs.deals import LazySpecs
from arena.runs.folders import check_results_folder
from arena.runs.loop import Progress, RunOutcome, results_folder, run_schedule
from arena.runs.pools import Pool, open_pool
from arena.runs.progress import Tally, make_progress
from arena.runs.spec import FinishedGame, GameSpec
from arena.runs.store import Store, StoredGame, create_or_open
from arena.versions import entrant_versions, game_versions

log = logging.getLogger("arena.runs")


@dataclass(frozen=True)
class Entries:
    """Who plays a run, once checked (step 3): its entrants, the names of its games, and those left out.

    ``disqualified`` (name -> why) is kept in the store's meta for every run, empty when none were, so a run
    after a fix no longer lists them; the leaderboard and report read it.
    """

    entrants: Sequence[Entrant]
    games: Sequence[str]
    disqualified: Mapping[str, str] = field(default_factory=dict)


class Observer(Protocol):
    """Sees every game played now as it arrives (:func:`run_schedule`'s ``on_game``), and the run's end.

    One with a ``writer_task`` (:class:`arena.runs.writer.WriterTask`) has the run's store writer do it with
    each batch of games it stores (the tournament's live ratings). One with ``seats`` (game -> its seats, once
    it has finished) hands them to the run's outcome (:attr:`arena.runs.loop.RunOutcome.seats`). One whose
    ``sees_games`` is False is not shown each game (its ``game_done`` is never called): the run's main process
    then gets no game's record from a local worker, only counts (:class:`arena.runs.spec.BriefChunk`).
    """

    def game_done(self, finished: FinishedGame) -> None: ...

    def finish(self) -> None: ...


#: step 9's hook: given the specs and the stored games, say what is reused; the specs to play (changed or not)
Reuse = Callable[[Sequence[GameSpec], dict[str, StoredGame]], Sequence[GameSpec]]
#: step 11's hook: the observer of the specs to play, given the stored games
Observe = Callable[[Sequence[GameSpec], dict[str, StoredGame]], Observer]


@dataclass
class Run:
    """A run inside its held folder, its store open, its secret and versions known (what :func:`open_run` yields)."""

    name: str
    folder: str
    pool: Pool
    store: Store
    secret: bytes
    versions: dict[str, str]  # entrant name or game key -> version (arena.versions)
    entries: Entries
    progress_stream: TextIO | None = None
    progress_every: float = 30.0

    def progress(self, tally: Tally, label: str = "") -> Progress:
        """The run's display, named after it (``label`` added: a ladder's game and round)."""
        return make_progress(f"{self.name}{label}", tally, self.progress_stream, self.progress_every)

    def play(self, specs: Sequence[GameSpec], *, meta: Mapping[str, Any] | None = None, reuse: Reuse | None = None,
             observe: Observe | None = None, keep_going: Callable[[], bool] = lambda: True,
             stop_on_failure: bool = False) -> RunOutcome:
        """Steps 8-12: keep the meta, read what is stored, tally it, show progress, play what is not stored.

        :param meta: the caller's meta, kept with ``total`` (the specs) and ``versions``.
        :param reuse: says what is reused before play (and may change the specs, ``--keep-stale``).
        :param observe: makes the observer of the games played now (its ``finish`` runs even on failure).
        :param keep_going: asked before each new game; false before any is played, nothing is played or
            displayed (a comparison whose stored games already decide it).
        :param stop_on_failure: no new game after one failed.
        """
        self.store.set_meta({**(meta or {}), "total": len(specs), "versions": self.versions})
        stored = self.store.stored_games()
        if stored and isinstance(specs, LazySpecs):  # every spec's key is read, several times: made once, here
            specs = list(specs)
        if reuse is not None:
            specs = reuse(specs, stored)
        reused = sum(spec.key in stored for spec in specs) if stored else 0  # keys: see run_schedule
        if not keep_going():
            return RunOutcome(self.folder, len(specs), reused=reused)
        totals = self.store.bot_totals()
        tally = Tally(len(specs), 0, {row.bot: row.firsts for row in totals}, {row.bot: row.seats for row in totals},
                      reused=reused)
        observer = None if observe is None else observe(specs, stored)
        on_game = observer.game_done if observer is not None and getattr(observer, "sees_games", True) else None
        try:
            outcome = run_schedule(specs, self.pool, self.store, self.progress(tally), folder=self.folder,
                                   on_game=on_game, keep_going=keep_going,
                                   stop_on_failure=stop_on_failure, stored=stored,
                                   writer_task=getattr(observer, "writer_task", None))
        finally:
            if observer is not None:
                observer.finish()
        outcome.seats = dict(getattr(observer, "seats", {}))
        return outcome


@contextlib.contextmanager
def open_run(kind: str, name: str, plugins: Plugins, check: Callable[[], Entries], *, seed: int | None,
             meta: Mapping[str, Any], root: str = "results", fresh: bool = False, jobs: int | None = None,
             scheduler: str | None = None, pool: Pool | None = None, progress_stream: TextIO | None = None,
             progress_every: float = 30.0) -> Iterator[Run]:
    """Steps 1-7 of the run ``kind`` (``tournament`` or ``compare``) called ``name``, in ``ROOT/NAME``; the
    :class:`Run`, its folder held and its store open for the block (both closed after it, the pool too).

    :param check: starts the entrants (step 3) once the pool is open, before the folder is made; raises to
        refuse the run, or returns who plays.
    :param seed: the run's public seed, or None for a secret drawn once and kept in the store.
    :param meta: the store's header besides ``name`` and ``kind`` (the definition; a comparison's plan).
    :param fresh: discard the folder's stored results first.
    :param jobs: worker processes (``0``: in this process; with ``scheduler``: blocks of games at once).
    :param scheduler: a Dask scheduler's address, or ``local:N`` (:func:`arena.runs.pools.open_pool`).
    :param pool: play through this pool instead of the one ``jobs`` and ``scheduler`` choose.
    :param progress_stream: where progress goes (default stderr; a bar if it is a terminal).
    """
    check_results_folder(root, name, kind, fresh)
    with _pool(pool, jobs, scheduler, plugins) as chosen:
        entries = check()
        with results_folder(root, name, fresh) as folder:
            store = create_or_open(folder, {"name": name, "kind": kind, **meta})
            try:
                store.set_meta({"disqualified": dict(entries.disqualified)})
                secret = store.run_secret(seed)
                versions = dict(zip([entrant.name for entrant in entries.entrants],
                                    entrant_versions(entries.entrants, plugins)))
                versions.update(game_versions(list(entries.games), plugins))
                yield Run(name, folder, chosen, store, secret, versions, entries, progress_stream, progress_every)
            finally:
                store.close()


@contextlib.contextmanager
def _pool(given: Pool | None, jobs: int | None, scheduler: str | None, plugins: Plugins) -> Iterator[Pool]:
    """The pool given by the caller, or the one the options choose (opened for the block)."""
    if given is not None:
        yield given
        return
    with open_pool(jobs, scheduler, plugins) as chosen:
        yield chosen
