"""Engine speed: arena's games and decisions per second for `random` bots, against a plain baseline.

Each arena game is what `arena play GAME -b random ... --sandbox none` plays:
a setup shuffled from the seed, `arena.match.play_game` with `InProcessBot`
seats, views and events built lazily for whoever reads them. The baseline
(`baseline_engines.py`) plays the same rules as a straightforward state
machine, with random players choosing with the same odds, and no views, event
log or runner. Both are measured in this run, for the same CPU seconds, in
alternating slices so that other processes' load falls on both alike; the
ratio arena/baseline is the figure to watch. A game not registered (yet) is
skipped with a note; one without a baseline is measured alone.

Two more entries, taking turns with those two, split arena's time in two
(``--no-parts`` leaves them out):

- ``engine``: the engine alone: the setup shuffled, ``new_state``, and ``apply``
  of each move of a recorded arena game (no bot, no runner, no view, no record);
- ``runner``: the runner and the `random` bots alone: ``play_game`` as above,
  over a scripted state that does no rule work (it steps through a recorded
  game's seats, decisions, ``legal`` objects and views, ignoring the actions).

``runner`` is what the protocol costs with these bots before any rule is
applied (the stand-in's own stepping included): baseline/runner is about the
best ratio that any engine could reach here. The two parts overlap by that
stepping, and share memory and caches differently, so they do not add up to
arena's time exactly.

    python benchmarks/engine.py                      # modern-art x4, silk-road x3
    python benchmarks/engine.py modern-art:5 --seconds 5

``--end-to-end`` measures what a user runs instead: ``arena run FILE
--sandbox none -j 1`` of random self-play (a new process; the same command on
a one-deal file, its fixed cost, subtracted) against the baseline playing as
many games, alternating, best of ``--rounds``; ``--against REV`` runs a git
revision's arena beside it (its files exported and first on ``PYTHONPATH``):

    python benchmarks/engine.py --end-to-end --deals 300 --rounds 2 --against f810114

``--worker`` measures what one worker process of such a run spends a game
(issue 26's "worker's own time"): the schedule's specs played by
``arena.runs.play.play_spec`` (seat pool, ``play_game``, the record packed
for the store: JSON, zlib, rows, log line) and sent back in chunks of
:data:`WORKER_CHUNK` games as the local pool pickles them; CPU microseconds
a game in a fresh interpreter, best of ``--rounds``, against the baseline's
CPU a game in this process. With ``--against REV`` that revision's worker
runs too, alternating; the records (decompressed) must hash alike in both:

    python benchmarks/engine.py --worker --deals 500 --rounds 3 --against 9553ebf
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from dataclasses import dataclass
from typing import Any, Callable

from arena.errors import ArenaError, UnknownGame
from arena.games.base import GameResult, GameState
from arena.match import InProcessBot, derive_seed, play_game
from arena.plugins import get_plugins
from arena.runs import seeds
from arena.tournament.config import load_tournament
from arena.tournament.schedule import build_schedule

# a sibling module: the script's own folder is on sys.path when run as `python benchmarks/engine.py`
from baseline_engines import RandomModernArtPlayer, RandomSilkRoadPlayer, play_modern_art, play_silk_road
from runner import tournament_file

DEFAULT_TABLES = ("modern-art:4", "silk-road:3")
#: each game's baseline: its play function and its random player
BASELINES = {
    "modern-art": (play_modern_art, RandomModernArtPlayer),
    "silk-road": (play_silk_road, RandomSilkRoadPlayer),
}
#: games/s that issues 2 and 3 quoted for "a straightforward state-machine implementation of
#: these rules, with no views" on this kind of machine: ~900 and ~430. Not measured here, so
#: printed for context only; the ratio is taken against the baseline measured in this run.
ISSUE_QUOTES = {("modern-art", 4): 900, ("silk-road", 3): 430}
#: the engine's speed with views, events and records, as a share of the baseline's (issue 18)
TARGET_RATIO = 0.8
#: CPU seconds one engine plays before the other takes its turn
SLICE_SECONDS = 0.5
#: arena games recorded for the ``engine`` and ``runner`` entries (played over and over)
RECORDED_GAMES = 50
#: the recorded games' seeds start here, apart from the measured games' seeds
RECORDED_SEED = 10**9

#: games a worker sends back in one message (the local pool's chunks are about 40 ms of play)
WORKER_CHUNK = 64

#: plays the game of a seed and returns its number of decisions
PlayOne = Callable[[int], int]


@dataclass
class Tally:
    """Games played, decisions asked, and the CPU and wall seconds they took."""

    games: int = 0
    decisions: int = 0
    cpu: float = 0.0
    wall: float = 0.0

    def play_for(self, play_one: PlayOne, seconds: float) -> None:
        """Play games (seeds continuing from the last) for about ``seconds`` of this process's CPU time.

        CPU time rather than wall time: on a shared machine, other processes
        then slow the measurement down less.
        """
        began, cpu_began = time.perf_counter(), time.process_time()
        deadline = cpu_began + seconds
        while time.process_time() < deadline:
            self.decisions += play_one(self.games)
            self.games += 1
        self.cpu += time.process_time() - cpu_began
        self.wall += time.perf_counter() - began

    def games_per_second(self) -> float:
        return self.games / self.cpu

    def decisions_per_second(self) -> float:
        return self.decisions / self.cpu

    def line(self, label: str) -> str:
        return (f"  {label:<9}{self.games_per_second():>8,.0f} games/s {self.decisions_per_second():>10,.0f} "
                f"decisions/s {self.decisions / self.games:>7.1f} decisions/game "
                f"({self.games:,} games, {self.cpu:.1f} s CPU, {self.wall:.1f} s wall)")


def arena_player(game_name: str, players: int, plugins, played: Any = None) -> Callable[..., int]:
    """Play one arena game of ``seed`` with `random` bots through the real runner (of ``played``, a
    stand-in game object, for the ``runner`` entry); ``kept``, when given, gets the record."""
    game = plugins.game(game_name)
    factory = plugins.bot("random").factory
    options = game.check_options(players, {})
    names = ["random"] * players
    played = played or game

    def play_one(seed: int, kept: list[Any] | None = None, setup: dict[str, Any] | None = None) -> int:
        if setup is None:
            setup = game.random_setup(players, options, random.Random(seed))
        seats = [InProcessBot(factory) for _ in range(players)]
        record = play_game(played, options, setup, seats, names, game_id=f"bench/{seed}", seed=seed,
                           bot_seeds=[derive_seed(seed, "bot", seat) for seat in range(players)])
        if kept is not None:
            kept.append(record)
        return len(record["moves"])

    return play_one


#: what the runner reads of a state before a decision: ``(seat, decision, legal, log length, view of the seat)``
#: (all None but the log length once the game is over)
Stand = tuple[Any, Any, Any, int, Any]


@dataclass
class Recorded:
    """An arena game of `random` bots, kept to be played again by the ``engine`` and ``runner`` entries."""

    seed: int
    setup: dict[str, Any]
    actions: list[dict[str, Any]]
    #: where the state stood before each action, and at the end
    stands: list[Stand]
    result: GameResult


def record_games(game_name: str, players: int, plugins, count: int) -> list[Recorded]:
    """Play ``count`` arena games (seeds from :data:`RECORDED_SEED`) and note every decision of each."""
    game = plugins.game(game_name)
    options = game.check_options(players, {})
    play_one = arena_player(game_name, players, plugins)
    games = []
    for seed in range(RECORDED_SEED, RECORDED_SEED + count):
        kept: list[Any] = []
        play_one(seed, kept)
        record = kept[0]
        state = game.new_state(record["setup"], options)
        actions = [move["action"] for move in record["moves"]]
        stands: list[Stand] = []
        for action in actions:
            stands.append((state.seat, state.decision, state.legal, state.log_length(), state.view(state.seat)))
            state.apply(action)
        stands.append((None, None, None, state.log_length(), None))
        games.append(Recorded(seed, record["setup"], actions, stands, state.result()))
    return games


def engine_player(game_name: str, players: int, plugins, games: list[Recorded]) -> PlayOne:
    """The engine alone: shuffle a setup, then ``new_state`` and ``apply`` a recorded game's actions."""
    game = plugins.game(game_name)
    options = game.check_options(players, {})

    def play_one(seed: int) -> int:
        recorded = games[seed % len(games)]
        game.random_setup(players, options, random.Random(recorded.seed))  # as arena's games do
        state = game.new_state(recorded.setup, options)
        apply = state.apply
        for action in recorded.actions:
            apply(action)
        return len(recorded.actions)

    return play_one


class ScriptedState(GameState):
    """A state that does no rule work: it steps through a recorded game, whatever the bots answer."""

    def __init__(self, recorded: Recorded, players: int) -> None:
        self.players = players
        self.recorded = recorded
        self.stands = recorded.stands
        self.index = 0
        self.log = []
        self.seat, self.decision, self.legal, self.length, self.seen = self.stands[0]

    def apply(self, action: dict[str, Any]) -> None:
        self.index += 1
        self.seat, self.decision, self.legal, self.length, self.seen = self.stands[self.index]

    def log_length(self) -> int:
        return self.length

    def view(self, seat: int) -> dict[str, Any]:
        return self.seen  # the recorded view, not a fresh copy: building views is the engine's work

    def money(self) -> list[int]:
        return list(self.recorded.result["money"])

    def result(self) -> GameResult:
        return self.recorded.result


class ScriptedGame:
    """The game object of the ``runner`` entry: each new state replays the recorded game set in ``next``."""

    def __init__(self, name: str, players: int) -> None:
        self.name = name
        self.players = players
        self.next: Recorded | None = None

    def new_state(self, setup: dict[str, Any], options: dict[str, Any]) -> ScriptedState:
        assert self.next is not None
        return ScriptedState(self.next, self.players)


def runner_player(game_name: str, players: int, plugins, games: list[Recorded]) -> PlayOne:
    """The runner and the `random` bots alone: ``play_game`` over a :class:`ScriptedState`."""
    scripted = ScriptedGame(game_name, players)
    play_one = arena_player(game_name, players, plugins, scripted)

    def play_scripted(seed: int) -> int:
        recorded = scripted.next = games[seed % len(games)]
        play_one(seed, setup=recorded.setup)  # no shuffle: setups are the engine's work
        return len(recorded.actions)

    return play_scripted


def baseline_player(game_name: str, players: int) -> PlayOne:
    """Play one baseline game of ``seed`` with its random players."""
    play, player_class = BASELINES[game_name]

    def play_one(seed: int) -> int:
        seats = [player_class(random.Random(seed * 10 + seat)) for seat in range(players)]
        return play(seats, random.Random(seed))

    return play_one


def measure(engines: dict[str, PlayOne], seconds: float) -> dict[str, Tally]:
    """Give every engine ``seconds`` of CPU time, taking turns in slices of :data:`SLICE_SECONDS`."""
    tallies = {label: Tally() for label in engines}
    while any(tally.cpu < seconds for tally in tallies.values()):
        for label, play_one in engines.items():
            tally = tallies[label]
            if tally.cpu < seconds:
                tally.play_for(play_one, min(SLICE_SECONDS, seconds - tally.cpu))
    return tallies


def report(game_name: str, players: int, seconds: float, tallies: dict[str, Tally]) -> None:
    print(f"{game_name} x{players}, random players, {seconds:g} s CPU each:")
    for label, tally in tallies.items():
        print(tally.line(label))
    arena = tallies["arena"]
    if "baseline" in tallies:
        baseline = tallies["baseline"]
        ratio = arena.games_per_second() / baseline.games_per_second()
        print(f"  arena/baseline: {ratio:.2f}x games/s, "
              f"{arena.decisions_per_second() / baseline.decisions_per_second():.2f}x decisions/s "
              f"(issue 18's target: {TARGET_RATIO:.1f}x or more: {'met' if ratio >= TARGET_RATIO else 'not met'})")
        if "engine" in tallies:
            # time per decision, as a share of the baseline's (decisions per game differ a little between entries)
            share = {label: baseline.decisions_per_second() / tally.decisions_per_second()
                     for label, tally in tallies.items()}
            print(f"  time per decision, baseline = 1: arena {share['arena']:.2f} = engine alone {share['engine']:.2f}"
                  f" + runner and bots alone {share['runner']:.2f} (sum {share['engine'] + share['runner']:.2f});"
                  f" an engine as cheap as the stand-in would reach {1 / share['runner']:.2f}x")
    else:
        print(f"  no baseline engine for {game_name}: arena measured alone")
    quoted = ISSUE_QUOTES.get((game_name, players))
    if quoted:
        print(f"  for context, the issue quoted ~{quoted} games/s for a plain engine on this machine kind "
              f"(not measured): arena {arena.games_per_second() / quoted:.2f}x that")


def schedule_specs(path: str) -> list[Any]:
    """The game specs the tournament file at ``path`` schedules (``--sandbox none``)."""
    plugins = get_plugins()
    tournament = load_tournament(path, plugins)
    secret = seeds.public_secret(tournament.seed or 0)
    return list(build_schedule(tournament, plugins, secret).specs(
        "none", plugins, secret, {entrant.name: "v" for entrant in tournament.entrants}))


def schedule_size(path: str) -> int:
    """How many games the tournament file at ``path`` schedules."""
    return len(schedule_specs(path))


def exported(revision: str, folder: str) -> str:
    """A ``PYTHONPATH`` that runs git ``revision``'s arena and bots (exported under ``folder``)."""
    archive = subprocess.run(["git", "archive", revision, "arena", "bots"], capture_output=True, check=True,
                             cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = os.path.join(folder, f"code-{revision}")
    with tarfile.open(fileobj=BytesIO(archive.stdout)) as tar:
        tar.extractall(code)
    return os.pathsep.join([code, os.path.join(code, "bots")])


def arena_run_seconds(path: str, pythonpath: str | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (every process of the run) of ``arena run PATH --sandbox none -j 1 --fresh``,
    started as a user starts it; ``pythonpath`` first on ``PYTHONPATH`` runs another checkout's code."""
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [pythonpath, env.get("PYTHONPATH")]))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    subprocess.run([sys.executable, "-m", "arena", "run", path, "--sandbox", "none", "-j", "1", "--fresh"],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=os.path.dirname(path),
                   env=env)
    wall = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def end_to_end(tables: list[tuple[str, int]], deals: int, rounds: int, against: str | None) -> None:
    """``arena run --sandbox none -j 1`` of random self-play against the baseline engine, in one run.

    Per table, alternating in each round: the baseline plays the schedule's
    number of games in this process (wall time); ``arena run`` plays the
    schedule end to end (a new process: start-up, plugins, schedule, worker,
    store, rating, leaderboard); the same command on a one-deal file gives the
    fixed cost, subtracted. Best of ``rounds`` for each (the least disturbed by
    other processes). With ``against``, that git revision's arena runs too.
    """
    with tempfile.TemporaryDirectory(prefix="arena-e2e-") as folder:
        before_path = exported(against, folder) if against else None
        print(f"arena run --sandbox none -j 1, random self-play, {deals} deals a table, best of {rounds} rounds; "
              f"load average {' '.join(f'{load:.1f}' for load in os.getloadavg())} at the start")
        for game_name, players in tables:
            path = tournament_file(folder, game_name, players, deals)
            one = tournament_file(folder, game_name, players, 1, label="-one")
            games, one_games = schedule_size(path), schedule_size(one)
            base_play = baseline_player(game_name, players)
            codes = {"arena": None, **({f"arena {against}": before_path} if against else {})}
            best_wall = {label: float("inf") for label in codes}
            best_cpu = {label: float("inf") for label in codes}
            baseline_wall = baseline_cpu = float("inf")
            for _ in range(rounds):
                began, cpu_began = time.perf_counter(), time.process_time()
                for seed in range(games):
                    base_play(seed)
                baseline_wall = min(baseline_wall, time.perf_counter() - began)
                baseline_cpu = min(baseline_cpu, time.process_time() - cpu_began)
                for label, code in codes.items():
                    wall, cpu = arena_run_seconds(path, code)
                    fixed_wall, fixed_cpu = arena_run_seconds(one, code)
                    # the one-deal run's games are played too: count them as played at the full run's rate
                    per_game = (wall - fixed_wall) / (games - one_games)
                    best_wall[label] = min(best_wall[label], per_game)
                    best_cpu[label] = min(best_cpu[label], (cpu - fixed_cpu) / (games - one_games))
            baseline_rate = games / baseline_wall
            print(f"{game_name} x{players}: {games} games; baseline engine {baseline_rate:,.0f} games/s "
                  f"({baseline_cpu / games * 1000:.2f} ms CPU a game)")
            for label in codes:
                rate = 1 / best_wall[label]
                print(f"  {label:<22} {rate:>7,.0f} games/s end to end, start-up subtracted: "
                      f"{rate / baseline_rate:.2f}x the baseline's; {best_cpu[label] * 1000:.2f} ms CPU a game, "
                      f"all processes: {baseline_cpu / games / best_cpu[label]:.2f}x the baseline's CPU rate")
            if against:
                now, then = best_wall["arena"], best_wall[f"arena {against}"]
                print(f"  this checkout / {against}: {then / now:.2f}x games/s end to end, "
                      f"{best_cpu[f'arena {against}'] / best_cpu['arena']:.2f}x in CPU a game")
        print(f"load average {' '.join(f'{load:.1f}' for load in os.getloadavg())} at the end")


def worker_child(game_name: str, players: int, deals: int, repeats: int) -> dict[str, Any]:
    """In a fresh interpreter (its ``PYTHONPATH`` picks the code): CPU microseconds a game of one worker
    playing a random self-play schedule (best of ``repeats`` passes), and a digest of the records it stored."""
    import hashlib
    import pickle
    import zlib

    from arena.runs.play import play_spec

    try:
        from arena.runs.pools.local import _packed_chunk as packed_chunk
    except ImportError:  # an older arena sent its outcomes as they were
        packed_chunk = None
    with tempfile.TemporaryDirectory(prefix="arena-worker-") as folder:
        specs = list(schedule_specs(tournament_file(folder, game_name, players, deals)))

    def send(outcomes: list[Any], played: list[Any]) -> None:
        pickle.dumps(packed_chunk(outcomes, played) if packed_chunk is not None else outcomes, protocol=5)

    digest = hashlib.sha256()
    for spec in specs[:20]:  # warm: the pool's bots, the plugins, the caches
        play_spec(spec, "worker")
    best = float("inf")
    for number in range(repeats):
        outcomes: list[Any] = []
        played: list[Any] = []
        began = time.process_time()
        for spec in specs:
            outcomes.append(play_spec(spec, "worker"))
            played.append(spec)
            if len(outcomes) == WORKER_CHUNK:
                send(outcomes, played)
                if not number:
                    digest.update(b"".join(zlib.decompress(outcome.packed.record) for outcome in outcomes))
                outcomes, played = [], []
        if outcomes:
            send(outcomes, played)
        best = min(best, time.process_time() - began)
    return {"us": best / len(specs) * 1e6, "games": len(specs), "digest": digest.hexdigest()[:16]}


def worker_figures(tables: list[tuple[str, int]], deals: int, rounds: int, against: str | None) -> None:
    """One worker's CPU a game (:func:`worker_child`, this checkout and ``against``) against the baseline's."""
    with tempfile.TemporaryDirectory(prefix="arena-worker-") as folder:
        codes = {"arena": None, **({f"arena {against}": exported(against, folder)} if against else {})}
        print(f"one worker's CPU a game (play_spec, packing, chunks pickled), {deals} deals a table, best of "
              f"{rounds} rounds; load average {' '.join(f'{load:.1f}' for load in os.getloadavg())} at the start")
        for game_name, players in tables:
            base_play = baseline_player(game_name, players)
            best = {label: float("inf") for label in codes}
            baseline_cpu = float("inf")
            digests: dict[str, str] = {}
            games = 0
            for _ in range(rounds):
                for label, code in codes.items():
                    env = dict(os.environ)
                    if code:
                        env["PYTHONPATH"] = os.pathsep.join(filter(None, [code, env.get("PYTHONPATH")]))
                    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker-child", game_name,
                                           str(players), str(deals)], env=env, check=True, capture_output=True,
                                          text=True)
                    found = json.loads(done.stdout.splitlines()[-1])
                    best[label] = min(best[label], found["us"])
                    digests[label], games = found["digest"], found["games"]
                began = time.process_time()
                for seed in range(games):
                    base_play(seed)
                baseline_cpu = min(baseline_cpu, (time.process_time() - began) / games * 1e6)
            print(f"{game_name} x{players}: {games} games; baseline engine {baseline_cpu:.0f} us CPU a game")
            for label in codes:
                print(f"  {label:<22} {best[label]:7.0f} us CPU a game in the worker: "
                      f"{baseline_cpu / best[label]:.2f}x the baseline's rate")
            if against:
                same = "the same" if len(set(digests.values())) == 1 else "DIFFERENT"
                print(f"  this checkout / {against}: {best[f'arena {against}'] / best['arena']:.2f}x; records "
                      f"{same} ({', '.join(digests.values())})")
        print(f"load average {' '.join(f'{load:.1f}' for load in os.getloadavg())} at the end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tables", nargs="*", default=DEFAULT_TABLES, metavar="GAME:PLAYERS")
    parser.add_argument("--seconds", type=float, default=10.0,
                        help="CPU seconds per engine and game (default 10)")
    parser.add_argument("--no-parts", action="store_true",
                        help="measure arena and the baseline only, not the engine alone and the runner alone")
    parser.add_argument("--end-to-end", action="store_true",
                        help="arena run --sandbox none -j 1 (a new process, start-up subtracted) against the baseline")
    parser.add_argument("--deals", type=int, default=300,
                        help="deals a table for --end-to-end and --worker (default 300)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="rounds of --end-to-end and --worker, best kept (default 2)")
    parser.add_argument("--against", metavar="REV",
                        help="with --end-to-end or --worker: a git revision's arena measured too")
    parser.add_argument("--worker", action="store_true",
                        help="one worker's CPU a game (play_spec, packing, chunks), in a fresh interpreter")
    parser.add_argument("--worker-child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker_child:
        game_name, players, deals = args.worker_child
        print(json.dumps(worker_child(game_name, int(players), int(deals), args.rounds)))
        return
    if args.end_to_end or args.worker:
        tables = []
        for table in args.tables:
            game_name, _, players = table.partition(":")
            if not players.isdigit() or game_name not in BASELINES:
                parser.error(f"expected GAME:PLAYERS of {', '.join(BASELINES)}, got {table!r}")
            tables.append((game_name, int(players)))
        if args.worker:
            worker_figures(tables, args.deals, args.rounds, args.against)
        else:
            end_to_end(tables, args.deals, args.rounds, args.against)
        return
    plugins = get_plugins()
    for table in args.tables:
        game_name, _, players = table.partition(":")
        if not players.isdigit():
            parser.error(f"expected GAME:PLAYERS, got {table!r}")
        players = int(players)
        try:
            plugins.game(game_name)
        except UnknownGame:
            print(f"{game_name}: not registered yet, skipped")
            continue
        try:
            engines = {"arena": arena_player(game_name, players, plugins)}
        except ArenaError as error:
            parser.exit(2, f"engine.py: error: {error}\n")
        if game_name in BASELINES:
            engines["baseline"] = baseline_player(game_name, players)
            if not args.no_parts:
                games = record_games(game_name, players, plugins, RECORDED_GAMES)
                engines["engine"] = engine_player(game_name, players, plugins, games)
                engines["runner"] = runner_player(game_name, players, plugins, games)
        report(game_name, players, args.seconds, measure(engines, args.seconds))


if __name__ == "__main__":
    main()
