"""Running a tournament (``arena run``): its schedule through the runs core, into its results folder.

The steps every run shares (the folder, the pool, the bots' check, the store,
the secret, the versions, what is reused, the progress, the play) are
:func:`arena.runs.run.open_run` and :meth:`~arena.runs.run.Run.play`; what is
a tournament's own is here: its sandbox requirements, disqualifying a broken
entry (``on_broken_entry``), its schedule (or ladder), what it says it
reuses, and its ratings, rated while the games are played
(:class:`~arena.standings.live_ratings.LiveRatings`). Only the main process
writes the store; one run at a time may use a results folder.
"""

from __future__ import annotations

import logging
import os
from typing import Callable, Sequence, TextIO

from arena.errors import SandboxError
from arena.plugins import Plugins
from arena.preflight import broken_entrants, check_entrants
from arena.runs.loop import RunOutcome
from arena.runs.pools import Pool
from arena.runs.reuse import keep_stale_games, plan_reuse
from arena.runs.run import Entries, Run, open_run
from arena.runs.spec import GameSpec
from arena.runs.store import StoredGame
from arena.sandbox.probe import check_required, weaknesses
from arena.tournament.config import Tournament
from arena.tournament.ladder import run_ladder
from arena.standings.live_ratings import LiveRatings
from arena.tournament.schedule import build_schedule

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
    playing = tournament

    def check() -> Entries:
        """The sandbox's protections, then every bot started once; a disqualified one is left out."""
        nonlocal playing
        check_protections(tournament, sandbox, announce)
        playing, disqualified = _check_bots(tournament, plugins, sandbox, announce)
        return Entries(playing.entrants, [entry.name for entry in playing.games], disqualified)

    with open_run("tournament", tournament.name, plugins, check, seed=tournament.seed,
                  meta={"definition": tournament.definition()}, root=root, fresh=fresh, jobs=jobs,
                  scheduler=scheduler, pool=pool, progress_stream=progress_stream,
                  progress_every=progress_every) as run:
        return _run(playing, plugins, run, sandbox, announce, keep_stale)


def _run(tournament: Tournament, plugins: Plugins, run: Run, sandbox: str, announce: Callable[[str], None],
         keep_stale: bool = False) -> RunOutcome:
    """The run inside its folder: the schedule under the run's secret, what is reused, the live ratings, the play."""
    schedule = build_schedule(tournament, plugins, run.secret)
    announce(seed_line(tournament.seed, run.folder))
    if tournament.format == "ladder":
        run.store.set_meta({"plan": schedule.summary(), "versions": run.versions})
        return run_ladder(tournament, plugins, schedule, run.store, run.secret, run.versions, sandbox, run.pool,
                          run.folder, lambda label, tally: run.progress(tally, f" {label}"), announce)

    def reuse(specs: Sequence[GameSpec], stored: dict[str, StoredGame]) -> Sequence[GameSpec]:
        """Keep games of an older engine (``--keep-stale``), then say what is reused and what changed."""
        stale_kept: dict[str, int] = {}
        if keep_stale:
            specs, stale_kept = keep_stale_games(specs, stored)
        for line in plan_reuse(specs, stored, stale_kept).lines(run.folder):
            announce(line)
        return specs

    specs = schedule.lazy_specs(sandbox, plugins, run.secret, run.versions)  # made by the workers that play them
    return run.play(specs, meta={"plan": schedule.summary()}, reuse=reuse,
                    observe=lambda specs, stored: LiveRatings(specs, run.store, tournament.rating, stored))


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
