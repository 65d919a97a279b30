"""The rules and the game loop compiled with mypyc, against pure Python, in one run (issue 26's experiment).

Nothing in the checkout is compiled or changed. The script copies the
checkout's ``arena`` package twice into a temporary folder, applies to both
copies the few source changes mypyc needs (:data:`PATCHES`, each with why),
compiles one copy's rules modules and ``arena/match.py`` (:data:`COMPILED`)
with mypyc, and then, in fresh interpreters alternating round by round:

- checks the compiled copy: every module of :data:`COMPILED` loaded from its
  extension, the golden games (``tests/golden_games.py``) hash to the stored
  digests, and a game written in plain Python (``tests/bots/tally_game.py``,
  subclassing ``Game`` and ``GameState``) still plays;
- **worker**: random self-play through ``arena.match.play_game`` in one
  process (the worker's own work: setup, loop, `random` bots, record), CPU
  microseconds a game; the records of every variant must hash alike;
- **engine**: the engine alone, ``new_state`` and ``apply`` of recorded games;
- **search**: ``benchmarks/search.py``'s determinizations, clones and `mcts`
  iterations per CPU second (its moves' digest must match).

Three variants: ``checkout`` (the code as it is), ``pure`` (the patched copy,
not compiled: what the patches cost in pure Python) and ``compiled``. The
bots (``arena_bots``, `mcts` included) stay pure Python in all three.
``--instructions`` also counts each variant's instructions per game with
``valgrind --tool=cachegrind`` (no load disturbs them; slow).

    python benchmarks/compiled.py                      # build (about 30 s), check, two rounds
    python benchmarks/compiled.py --keep /tmp/arena-mypyc --rounds 3 --instructions

Needs mypyc (it ships with mypy, in the dev extra) and a C compiler.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: the modules compiled: the two games' rules (not their plugins and accounts) and the game loop
COMPILED = ("arena/match.py", "arena/games/base.py",
            *(f"arena/games/modern_art/{name}.py"
              for name in ("cards", "determinize", "events", "game", "setup", "state", "views")),
            *(f"arena/games/silk_road/{name}.py"
              for name in ("actions", "cards", "determinize", "events", "game", "setup", "state", "views")))
#: (file, text, replacement, why): what mypyc needs changed; every text must be found exactly once
PATCHES = (
    ("arena/games/base.py", "from arena.errors import OptionError, PlayerCountError\n",
     "from arena.errors import OptionError, PlayerCountError\nfrom mypy_extensions import mypyc_attr\n",
     "compiled classes refuse subclasses written in Python unless marked: third-party games subclass these"),
    ("arena/games/base.py", "\nclass GameState:", "\n@mypyc_attr(allow_interpreted_subclasses=True)\nclass GameState:",
     "as above"),
    ("arena/games/base.py", "\nclass CompactLogState(GameState):",
     "\n@mypyc_attr(allow_interpreted_subclasses=True)\nclass CompactLogState(GameState):", "as above"),
    ("arena/games/base.py", "\nclass Game:", "\n@mypyc_attr(native_class=False)\nclass Game:",
     "a game's name, title and player counts are class attributes of its Game subclass, which compiled code"
     " would read from its own (empty) slots: the game objects stay Python classes (they are not hot)"),
    ("arena/games/base.py", """        determinize = self.determinize

        def sample(rng: random.Random) -> GameState:
            return determinize(view, options, rng)

        return sample
""", """        return partial(self.determinize, view, options)
""", "mypyc fails (an internal error) on a closure in a method of a Python class: the same call, made by partial"),
    ("arena/games/base.py", "from dataclasses import dataclass, field\n",
     "from dataclasses import dataclass, field\nfrom functools import partial\n", "as above"),
    ("arena/games/modern_art/game.py", "\nclass ModernArt(Game):",
     "\nfrom mypy_extensions import mypyc_attr\n\n\n@mypyc_attr(native_class=False)\nclass ModernArt(Game):",
     "a compiled subclass of the Python class Game must be one too (mypyc's C calls its methods by the wrong name)"),
    ("arena/games/silk_road/game.py", "\nclass SilkRoad(Game):",
     "\nfrom mypy_extensions import mypyc_attr\n\n\n@mypyc_attr(native_class=False)\nclass SilkRoad(Game):",
     "as above"),
    ("arena/games/modern_art/state.py",
     "    def __init__(self, setup: dict[str, Any], options: dict[str, Any]) -> None:\n",
     "    def __init__(self, setup: dict[str, Any] | None = None, options: dict[str, Any] | None = None) -> None:\n"
     "        if setup is None or options is None:\n            return\n",
     "object.__new__ refuses a compiled class: clones and determinizations make a bare state by a call"),
    ("arena/games/modern_art/state.py", "other = _new(ModernArtState)", "other = ModernArtState()", "as above"),
    ("arena/games/modern_art/state.py", "        self.log = []\n",
     "        self._entries = []\n        self._log = []\n",
     "GameState declares `log` as an attribute: compiled, it is a slot that hides CompactLogState's property"),
    ("arena/games/modern_art/determinize.py", "template = _new(ModernArtState)", "template = ModernArtState()",
     "object.__new__, as above"),
    ("arena/games/modern_art/determinize.py", "    template.log = []\n",
     "    template._entries = []\n    template._log = []\n", "the `log` slot, as above"),
    ("arena/games/silk_road/state.py", "    def __init__(self, setup: dict[str, Any], start_money: int) -> None:\n"
     '        """The state at the first real decision of the (checked) ``setup``."""\n',
     "    def __init__(self, setup: dict[str, Any] | None = None, start_money: int = 0) -> None:\n"
     '        """The state at the first real decision of the (checked) ``setup``."""\n'
     "        if setup is None:\n            return\n", "object.__new__, as above"),
    ("arena/games/silk_road/state.py", "other = _new(SilkRoadState)", "other = SilkRoadState()", "as above"),
    ("arena/games/silk_road/state.py", "        self.log = []\n",
     "        self._entries = []\n        self._log = []\n", "the `log` slot, as above"),
    ("arena/games/silk_road/determinize.py", "template = _new(SilkRoadState)", "template = SilkRoadState()",
     "object.__new__, as above"),
    ("arena/match.py", "from typing import Any, Callable, Protocol, Sequence",
     "from typing import Any, Callable, ClassVar, Protocol, Sequence",
     "a class attribute read through `self` is an instance slot in a compiled class unless a ClassVar"),
    ("arena/match.py", '    LAZY: tuple[str, ...] = ("view", "events")',
     '    LAZY: ClassVar[tuple[str, ...]] = ("view", "events")', "as above"),
    ("arena/match.py", "    _state: GameState\n", "    _state: Any\n",
     "typed GameState, compiled code reads `log` from the slot, and refuses a duck-typed state"),
    ("arena/match.py", "    game: Game,\n", "    game: Any,\n",
     "compiled, the loop refuses a game whose class subclasses the Python class Game in plain Python"),
    ("arena/match.py", "    state = game.new_state(setup, options)\n",
     "    state: Any = game.new_state(setup, options)\n", "as above"),
)
#: mypy's settings for the build (the checkout's are in pyproject.toml, which an older setuptools, run by
#: mypyc's generated setup.py, may refuse to read: it is not copied)
MYPY_INI = """[mypy]
python_version = 3.11
mypy_path = typings
strict = True

[mypy-trueskill.*]
ignore_missing_imports = True
"""
TABLES = (("modern-art", 4), ("silk-road", 3))
#: set in a child: only this game's table (``--instructions`` counts each table alone)
ONLY = os.environ.get("COMPILED_BENCH_GAME")
VARIANTS = ("checkout", "pure", "compiled")


def prepare(folder: Path) -> dict[str, Path]:
    """Each variant's code folder (first on ``PYTHONPATH``) under ``folder``; the patched copies made."""
    paths = {"checkout": ROOT}
    for variant in ("pure", "compiled"):
        target = folder / variant
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(ROOT / "arena", target / "arena", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
        shutil.copytree(ROOT / "typings", target / "typings")
        for path, text, replacement, _ in PATCHES:
            source = (target / path).read_text(encoding="utf-8")
            if source.count(text) != 1:
                sys.exit(f"compiled.py: {path} no longer holds {text.strip()!r} exactly once: update PATCHES")
            (target / path).write_text(source.replace(text, replacement), encoding="utf-8")
        paths[variant] = target
    (paths["compiled"] / "mypy.ini").write_text(MYPY_INI, encoding="utf-8")
    return paths


def build(folder: Path) -> float:
    """Compile :data:`COMPILED` in place under ``folder`` with mypyc (one compiler at a time); seconds taken."""
    began = time.perf_counter()
    mypyc = shutil.which("mypyc")
    command = [mypyc] if mypyc else [sys.executable, "-m", "mypyc"]
    done = subprocess.run(["nice", "-n", "10", *command, *COMPILED], cwd=folder, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"compiled.py: mypyc failed:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
    return time.perf_counter() - began


def child(variant_path: str, task: str, argument: int) -> Any:
    """Run ``task`` in a fresh interpreter with ``variant_path`` first on the path; its JSON answer."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([variant_path, str(ROOT / "tests"), str(ROOT / "tests" / "bots"),
                                                        str(ROOT / "benchmarks")]))
    done = subprocess.run([sys.executable, __file__, "--child", task, str(argument)], env=env, capture_output=True,
                          text=True)
    if done.returncode:
        sys.exit(f"compiled.py: {task} failed in {variant_path}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def instructions(variant_path: str, task: str, argument: int, game: str) -> int:
    """Instructions (cachegrind's ``I refs``) of ``task`` with ``argument`` for ``game`` in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([variant_path, str(ROOT / "tests"), str(ROOT / "benchmarks")]),
               COMPILED_BENCH_GAME=game)
    done = subprocess.run(["nice", "valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                           os.path.realpath(sys.executable), __file__, "--child", task, str(argument)],
                          env=env, capture_output=True, text=True)
    for line in done.stderr.splitlines():
        if "I   refs:" in line or "I refs:" in line:
            return int(line.split(":")[-1].replace(",", "").strip())
    sys.exit(f"compiled.py: no instruction count from valgrind:\n{done.stderr[-2000:]}")


# -- what runs in the child interpreters --


def _random_games(name: str, players: int, games: int, first: int = 0) -> list[dict[str, Any]]:
    from arena.match import InProcessBot, derive_seed, play_game
    from arena.plugins import get_plugins

    plugins = get_plugins()
    game = plugins.game(name)
    factory = plugins.bot("random").factory
    options = game.check_options(players, {})
    names = ["random"] * players
    records = []
    for seed in range(first, first + games):
        setup = game.random_setup(players, options, random.Random(seed))
        seats = [InProcessBot(factory) for _ in range(players)]
        records.append(play_game(game, options, setup, seats, names, game_id=f"bench/{seed}", seed=seed,
                                 bot_seeds=[derive_seed(seed, "bot", seat) for seat in range(players)]))
    return records


def task_check(_: int) -> dict[str, Any]:
    """Where each compiled module was loaded from, the golden digests, and a pure-Python game's result."""
    import importlib

    from golden_games import TABLES as GOLDEN, table_digest, table_name
    from tally_game import Tally
    from arena.match import InProcessBot, play_game

    loaded = {path: importlib.import_module(path[:-3].replace("/", ".")).__file__ or "" for path in COMPILED}
    stored = json.loads((ROOT / "tests" / "records" / "golden-digests.json").read_text(encoding="utf-8"))
    golden = {table_name(*table): table_digest(*table) == stored[table_name(*table)] for table in GOLDEN}
    tally = Tally()
    try:
        result = play_game(tally, {}, tally.random_setup(2, {}, random.Random(1)),
                           [InProcessBot(lambda: _Fives()) for _ in range(2)], ["a", "b"], game_id="t", seed=1,
                           bot_seeds=[1, 2])["result"]
    except Exception as error:
        result = f"FAILS: {error!r}"
    return {"extensions": sum(not path.endswith(".py") for path in loaded.values()), "golden": golden,
            "tally": result}


class _Fives:
    """A Tally bot that reads its view and events and picks 2."""

    def decide(self, request: dict[str, Any]) -> dict[str, Any]:
        request["view"], request["events"]  # noqa: B018 - built through the compiled loop
        return {"n": 2}


def task_worker(games: int) -> dict[str, Any]:
    """CPU microseconds a random self-play game (one process), and a digest of the records, per table."""
    import hashlib

    found = {}
    for name, players in TABLES:
        if ONLY and name != ONLY:
            continue
        _random_games(name, players, 20, first=10**6)  # warm
        began = time.process_time()
        records = _random_games(name, players, games)
        cpu = time.process_time() - began
        # not when counting instructions (COMPILED_BENCH_GAME set): the digest's JSON would be counted with the games
        digest = hashlib.sha256(json.dumps(records).encode()).hexdigest()[:12] if games and not ONLY else ""
        found[name] = {"us": cpu / max(games, 1) * 1e6, "records": digest}
    return found


def task_engine(repeats: int) -> dict[str, float]:
    """CPU microseconds of the engine alone per game: ``new_state`` and ``apply`` of 50 recorded random games."""
    from arena.plugins import get_plugins

    plugins = get_plugins()
    found = {}
    for name, players in TABLES:
        if ONLY and name != ONLY:
            continue
        game = plugins.game(name)
        options = game.check_options(players, {})
        recorded = [(record["setup"], [move["action"] for move in record["moves"]])
                    for record in _random_games(name, players, 50, first=10**6)]
        began = time.process_time()
        for _ in range(repeats):
            for setup, actions in recorded:
                apply = game.new_state(setup, options).apply
                for action in actions:
                    apply(action)
        found[name] = (time.process_time() - began) / max(repeats * len(recorded), 1) * 1e6
    return found


def task_search(iterations: int) -> dict[str, Any]:
    """``benchmarks/search.py``'s figures over 6 positions a game."""
    import search

    return search.measure(list(search.TABLES), 6, iterations, 200)


TASKS = {"check": task_check, "worker": task_worker, "engine": task_engine, "search": task_search}


# -- the report --


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="random games a table and round (default 400)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, alternating the variants (default 2)")
    parser.add_argument("--iterations", type=int, default=100, help="mcts iterations a decision (default 100)")
    parser.add_argument("--instructions", action="store_true", help="also count instructions with cachegrind")
    parser.add_argument("--keep", metavar="DIR", help="build in DIR and keep it (else a temporary folder)")
    parser.add_argument("--reuse", action="store_true", help="with --keep: use the build already in DIR")
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--skip-timing", action="store_true", help="only the build, its checks and --instructions")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(TASKS[args.child[0]](int(args.child[1]))))
        return
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="arena-mypyc-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        report(folder, args)
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


def report(folder: Path, args: argparse.Namespace) -> None:
    print(f"load average {' '.join(f'{load:.1f}' for load in os.getloadavg())} at the start")
    if args.reuse and args.keep:
        paths = {"checkout": ROOT, "pure": folder / "pure", "compiled": folder / "compiled"}
        print(f"the build in {folder} reused (it may predate the checkout's last changes)")
    else:
        paths = prepare(folder)
        print(f"{len(COMPILED)} modules compiled with mypyc in {build(paths['compiled']):.0f} s; "
              f"{len(PATCHES)} source changes in both copies")
    for variant in ("pure", "compiled"):
        check = child(str(paths[variant]), "check", 0)
        failed = [name for name, same in check["golden"].items() if not same]
        print(f"  {variant}: {check['extensions']}/{len(COMPILED)} modules from extensions, golden games "
              f"{'byte-identical' if not failed else 'DIFFERENT in ' + ', '.join(failed)}, "
              f"a pure-Python game (tally) plays: {check['tally']}")
        if failed or (variant == "compiled") != (check["extensions"] == len(COMPILED)):
            sys.exit("compiled.py: the compiled copy is not what it should be")
    if not args.skip_timing:
        timing(paths, args)
    if args.instructions:
        instruction_counts(paths)


def timing(paths: dict[str, Path], args: argparse.Namespace) -> None:
    """Each variant's CPU figures, best of ``args.rounds`` rounds alternating the variants."""
    best: dict[str, dict[str, float]] = {variant: {} for variant in VARIANTS}
    digests: dict[str, set[str]] = {}
    for _ in range(args.rounds):
        for variant in VARIANTS:
            path = str(paths[variant])
            figures = best[variant]
            for name, found in child(path, "worker", args.games).items():
                key = f"worker {name}"
                figures[key] = min(figures.get(key, float("inf")), found["us"])
                digests.setdefault(name, set()).add(found["records"])
            for name, us in child(path, "engine", 4).items():
                key = f"engine {name}"
                figures[key] = min(figures.get(key, float("inf")), us)
            for name, found in child(path, "search", args.iterations).items():
                for key in ("determinizations", "clones", "iterations"):
                    label = f"{key}/s {name}"
                    figures[label] = max(figures.get(label, 0.0), float(found[key]))
                digests.setdefault(f"moves {name}", set()).add(found["moves"])
    print(f"best of {args.rounds} alternating rounds, CPU time ({args.games} random games a table and round); "
          f"load average {' '.join(f'{load:.1f}' for load in os.getloadavg())} at the end")
    print(f"  {'':32}{'checkout':>12}{'pure':>12}{'compiled':>12}  compiled/pure")
    for key in best["compiled"]:
        values = [best[variant][key] for variant in VARIANTS]
        lower_is_better = key.startswith(("worker", "engine"))
        ratio = values[1] / values[2] if lower_is_better else values[2] / values[1]
        unit = " us/game" if lower_is_better else ""
        print(f"  {key + unit:32}" + "".join(f"{value:>12,.0f}" for value in values) + f"  {ratio:.2f}x")
    for name, seen in digests.items():
        print(f"  {name}: {'the same in every variant' if len(seen) == 1 else 'DIFFERENT: ' + ', '.join(seen)}")


def instruction_counts(paths: dict[str, Path]) -> None:
    """Instructions a game of the pure and compiled copies (cachegrind, one interpreter at a time)."""
    print("instructions a game (cachegrind; a run of N games less a run of none):")
    for name, _ in TABLES:
        for task, count in (("worker", 100), ("engine", 2)):
            games = count if task == "worker" else count * 50
            per = {}
            for variant in ("pure", "compiled"):  # slow: the checkout's is about the pure copy's
                path = str(paths[variant])
                per[variant] = (instructions(path, task, count, name) - instructions(path, task, 0, name)) / games
            print(f"  {task:6} {name:10} " + ", ".join(f"{variant} {value / 1e6:.2f} M"
                                                        for variant, value in per.items())
                  + f"; pure/compiled {per['pure'] / per['compiled']:.2f}x")


if __name__ == "__main__":
    main()
