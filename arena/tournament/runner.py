"""Running a tournament (``arena run``): its schedule through the runs core, into its results folder.

The main process opens the store (which keeps the run's secret), builds the
schedule and every game's spec with the versions of the bots' code, says what
it will reuse and play, checks every bot that has games to play starts, and
hands the specs to :func:`arena.runs.loop.run_schedule` with the pool the
options chose. Only the main process writes the store; one run at a time may
use a results folder.
"""

from __future__ import annotations

import contextlib
import logging
import os
from typing import Callable, Iterator, TextIO

from arena.errors import SandboxError
from arena.plugins import Plugins
from arena.preflight import broken_entrants, check_entrants
from arena.runs.loop import Progress, RunOutcome, results_folder, run_schedule
from arena.runs.pools import Pool, open_pool
from arena.runs.reuse import keep_stale_games, plan_reuse
from arena.runs.store import Store, create_or_open
from arena.sandbox.probe import check_required, weaknesses
from arena.tournament.config import Tournament
from arena.runs.folders import check_results_folder
from arena.tournament.ladder import run_ladder
from arena.tournament.live_ratings import LiveRatings
from arena.runs.progress import Tally, make_progress
from arena.tournament.schedule import build_schedule
from arena.versions import entrant_versions, game_versions

log = logging.getLogger("arena.tournament")


def check_protections(tournament: Tournament, sandbox: str, announce: Callable[[str], None]) -> None:
    """Say which sandbox protections are off here, and refuse a run whose file requires one that is off.

    ``secret-seed`` is the tournament's own: it requires the file to leave out ``seed``.
    """
    required = list(tournament.require)
    if "secret-seed" in required and tournament.seed is not None:
        raise SandboxError(f"{tournament.path} requires a secret seed but sets seed = {tournament.seed}: "
                           "remove the seed line (a secret is then drawn and kept in the store)")
    required = [name for name in required if name != "secret-seed"]
    if sandbox != "process":
        if required:
            raise SandboxError(f"{tournament.path} requires sandbox protections ({', '.join(required)}); "
                               f"--sandbox {sandbox} turns them all off: use --sandbox process")
        announce("sandbox: none (bots run in the runner's processes, trusted code only)")
        return
    check_required(required)
    announce(weaknesses())


def seed_line(seed: int | None, folder: str) -> str:
    """One line saying where the deals come from (who can compute them)."""
    if seed is not None:
        return "deals follow from the public seed in the file: anyone holding it can compute them"
    return f"deals follow from a secret kept in {folder}/results.sqlite (never printed or sent to a bot)"


def run_tournament(tournament: Tournament, plugins: Plugins, *, root: str = "results", jobs: int | None = None,
                   scheduler: str | None = None, sandbox: str = "process", fresh: bool = False,
                   progress_stream: TextIO | None = None, progress_every: float = 30.0,
                   pool: Pool | None = None, announce: Callable[[str], None] = log.info,
                   keep_stale: bool = False) -> RunOutcome:
    """Play every game of ``tournament`` not yet stored in ``ROOT/NAME`` and store it.

    :param jobs: worker processes (``0``: in this process; with ``scheduler``: blocks of games at once).
    :param scheduler: a Dask scheduler's address, or ``local:N`` (:func:`arena.runs.pools.open_pool`).
    :param fresh: discard the folder's stored results first.
    :param progress_stream: where progress goes (default stderr; a bar if it is a terminal).
    :param pool: play through this pool instead of the one ``jobs`` and ``scheduler`` choose.
    :param announce: where the lines said before playing go (what is reused, what changed, where results go).
    :param keep_stale: reuse stored games that differ only by the game's version (an older engine) instead of
        playing them again (``--keep-stale``).
    """
    check_results_folder(root, tournament.name, "tournament", fresh)
    with _pool(pool, jobs, scheduler, plugins) as chosen:  # a bad --scheduler is refused before anything is made
        check_protections(tournament, sandbox, announce)
        # before the folder is made: a broken bot leaves nothing behind (or, disqualified, is left out)
        tournament, disqualified = _check_bots(tournament, plugins, sandbox, announce)
        with results_folder(root, tournament.name, fresh) as folder:
            store = create_or_open(folder, {"name": tournament.name, "kind": "tournament",
                                            "definition": tournament.definition()})
            try:
                store.set_meta({"disqualified": disqualified})  # the leaderboard and report list them
                return _run(tournament, plugins, store, folder, chosen, sandbox, announce,
                            lambda tally, label: make_progress(f"{tournament.name}{label}", tally,
                                                                  progress_stream, progress_every),
                            keep_stale)
            finally:
                store.close()


def _run(tournament: Tournament, plugins: Plugins, store: Store, folder: str, pool: Pool, sandbox: str,
         announce: Callable[[str], None], progress: Callable[[Tally, str], Progress], keep_stale: bool = False
         ) -> RunOutcome:
    """The run inside its folder: the schedule under the run's secret, what is reused, the check, the play."""
    secret = store.run_secret(tournament.seed)
    schedule = build_schedule(tournament, plugins, secret)
    versions = dict(zip([e.name for e in tournament.entrants], entrant_versions(tournament.entrants, plugins)))
    versions.update(game_versions([entry.name for entry in tournament.games], plugins))  # the games' engines too
    announce(seed_line(tournament.seed, folder))
    if tournament.format == "ladder":
        store.set_meta({"plan": schedule.summary(), "versions": versions})
        return run_ladder(tournament, plugins, schedule, store, secret, versions, sandbox, pool, folder,
                          lambda label, tally: progress(tally, f" {label}"), announce)
    specs = schedule.specs(sandbox, plugins, secret, versions)
    store.set_meta({"plan": schedule.summary(), "total": len(specs), "versions": versions})
    stored = store.stored_games()
    stale_kept: dict[str, int] = {}
    if keep_stale:
        specs, stale_kept = keep_stale_games(specs, stored)
    reuse = plan_reuse(specs, stored, stale_kept)
    for line in reuse.lines(folder):
        announce(line)
    totals = store.bot_totals()
    tally = Tally(len(specs), 0, {row.bot: row.firsts for row in totals}, {row.bot: row.seats for row in totals},
                  reused=reuse.reused)
    live = LiveRatings(specs, store, tournament.rating, stored)  # rated while the workers play
    try:
        return run_schedule(specs, pool, store, progress(tally, ""), folder=folder, on_game=live.game_done,
                            stored=stored)
    finally:
        live.finish()


@contextlib.contextmanager
def _pool(given: Pool | None, jobs: int | None, scheduler: str | None, plugins: Plugins) -> Iterator[Pool]:
    """The pool given by the caller, or the one the options choose (opened for the block)."""
    if given is not None:
        yield given
        return
    with open_pool(jobs, scheduler, plugins) as chosen:
        yield chosen


def _check_bots(tournament: Tournament, plugins: Plugins, sandbox: str, announce: Callable[[str], None]
                ) -> tuple[Tournament, dict[str, str]]:
    """Start every entry once as its games will (:func:`arena.preflight.check_entrants`), before any game.

    One that cannot play refuses the run, or, with ``on_broken_entry = "disqualify"``, is left out: the
    tournament without it, and the entries left out (name -> why).
    """
    base_dir = os.path.dirname(os.path.abspath(tournament.path))
    if tournament.on_broken_entry != "disqualify":
        check_entrants(tournament.entrants, list(tournament.games), plugins, sandbox, tournament.limits, base_dir)
        return tournament, {}
    broken = broken_entrants(tournament.entrants, list(tournament.games), plugins, sandbox, tournament.limits,
                             base_dir)
    for name, cause in broken.items():
        announce(f"disqualified: bot {name} cannot play, the others play on: {cause}")
    return tournament.without(broken, plugins), broken
