"""The store writer's CPU a game: its inserts and its live rating, today's code against another revision's, in one run.

A run's store writer (:mod:`arena.runs.writer`) is a process of its own
that inserts every game's rows and rates them (TrueSkill, in schedule order:
:mod:`arena.standings.live_ratings`). On two cores whatever it spends is
taken from the two workers of ``-j 2`` (issue 25), so its CPU a game is what
this measures. First it plays ``--deals`` deals of random self-play Modern
Art (four seats, ``--sandbox none``) once, and reads the games back from
that store as the writer receives them (their games, seats and faults
rows, pickled a chunk of ``--chunk`` games at a time as a local worker
sends them). Then, in a new interpreter for each code tree (this checkout,
and ``--against``'s revision taken out with ``git archive``), alternating,
``--rounds`` times each:

- **the writer, inserts only**: a real :class:`~arena.runs.writer.StoreWriter`
  on a new store is sent the chunks at ``--rate`` games a second (as a run's
  main process sends batches as games finish: the writer's transactions
  depend on it) and closed; its process's CPU time (``RUSAGE_CHILDREN``) a game;
- **the writer with its rating**: the same with the live ratings' task;
- **the inserts** and **the rating** alone, in-process: ``Store.add_rows``
  over the chunks, then the rating task's ``add`` over them (what the writer
  does with each batch), CPU time a game, the least of three.

The least of the rounds is kept (others' work on a shared machine only ever
adds). The machine's load average is printed before and after.

    python benchmarks/writer.py                      # 500 deals (2,000 games) against HEAD
    python benchmarks/writer.py --against 4ab55ed --rounds 7
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import sqlite3
import subprocess
import sys
import tempfile
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from runner import tournament_file  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: run in a new interpreter with the code tree to time first on ``sys.path``: prints one JSON line of CPU us a game
CHILD = """
import json, os, pickle, resource, sys, tempfile, time
from arena.runs.store import create_or_open
from arena.runs.writer import StoreWriter
from arena.standings.live_ratings import _Rating

PACE = float(sys.argv[2])
with open(sys.argv[1], "rb") as handle:
    pieces = pickle.load(handle)
chunks = [pickle.loads(piece) for piece in pieces]
games = sum(len(chunk) for chunk in chunks)
orders = {}
for chunk in chunks:
    for fields, _, _ in chunk:
        orders.setdefault(fields[2], []).append(fields[6])
orders = {game: sorted(values) for game, values in orders.items()}
META = {"name": "bench", "kind": "tournament", "definition": {}, "plan": {}, "total": games}

def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime

def writer(folder, task):
    os.makedirs(folder)
    store = create_or_open(folder, META)  # held open as a run's main process holds it: the writer's close
    began = children_cpu()                # is not the last, which would copy the write-ahead log into the store
    process = StoreWriter(os.path.join(folder, "results.sqlite"), task)
    for piece in pieces:
        process.add([], [piece])
        time.sleep(PACE)  # as a run's main process hands batches over, as the games come
    process.close()
    spent = children_cpu() - began
    store.close()
    return spent / games * 1e6

def in_process(folder):
    os.makedirs(folder)
    store = create_or_open(folder, META)
    store.db.execute("PRAGMA wal_autocheckpoint=10000")
    began = time.process_time()
    for chunk in chunks:
        store.add_rows(chunk)
    inserts = time.process_time() - began
    store.close()
    task = _Rating("trueskill", orders, [])
    task.begin()
    began = time.process_time()
    for chunk in chunks:
        task.add(chunk)
    result = task.result()
    rating = time.process_time() - began
    return inserts / games * 1e6, rating / games * 1e6, result

figures = {}
with tempfile.TemporaryDirectory() as folder:
    figures["writer, inserts only"] = writer(os.path.join(folder, "a"), None)
    task = _Rating("trueskill", orders, [])
    figures["writer with its rating"] = writer(os.path.join(folder, "b"), task)
    timings = [in_process(os.path.join(folder, f"c{repeat}")) for repeat in range(3)]
    figures["inserts (in-process)"] = min(inserts for inserts, _, _ in timings)
    figures["rating (in-process)"] = min(rating for _, rating, _ in timings)
    ratings = timings[0][2].ratings
    if task.ratings != ratings:
        raise SystemExit("the writer's ratings differ from the rating task's in-process")
print(json.dumps({"figures": figures, "ratings": ratings}))
"""


def recorded_chunks(folder: str, deals: int, chunk: int) -> str:
    """Play ``deals`` deals of random self-play once; a file of their rows pickled ``chunk`` games a piece."""
    path = tournament_file(folder, "modern-art", 4, deals)
    subprocess.run([sys.executable, "-m", "arena", "run", path, "--fresh", "--sandbox", "none", "-j", "2"],
                   cwd=folder, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = sqlite3.connect(os.path.join(folder, "results", "bench-modern-art", "results.sqlite"))
    seats: dict[int, list[tuple[Any, ...]]] = {}
    faults: dict[int, list[tuple[Any, ...]]] = {}
    for row, *seat in db.execute("SELECT row, bot, version, money, rank, faults FROM seats ORDER BY row, seat"):
        seats.setdefault(row, []).append(tuple(seat))
    for row, *fault in db.execute("SELECT row, seat, move, decision, kind, detail FROM faults ORDER BY rowid"):
        faults.setdefault(row, []).append(tuple(fault))
    rows = [(tuple(fields), tuple(seats[row]), tuple(faults.get(row, ()))) for row, *fields in db.execute(
        "SELECT row, key, id, game, table_label, deal, rotation, current, record, game_version FROM games "
        "ORDER BY current")]
    db.close()
    pieces = [pickle.dumps(rows[start:start + chunk], pickle.HIGHEST_PROTOCOL) for start in range(0, len(rows), chunk)]
    out = os.path.join(folder, "chunks.pickle")
    with open(out, "wb") as handle:
        pickle.dump(pieces, handle)
    return out


def code_tree(folder: str, revision: str) -> str:
    """``revision``'s ``arena`` package taken out into ``folder`` (``git archive``), for ``PYTHONPATH``."""
    os.makedirs(folder)
    archive = subprocess.run(["git", "archive", revision, "arena"], cwd=ROOT, check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
    return folder


def measure(tree: str, chunks: str, folder: str, pace: float) -> dict[str, Any]:
    """One round of :data:`CHILD` with ``tree``'s ``arena`` first on the path, a batch every ``pace`` seconds."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tree, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", CHILD, chunks, str(pace)], cwd=folder, env=env, capture_output=True,
                          text=True)
    if done.returncode:
        raise SystemExit(f"timing {tree} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=500, help="deals of Modern Art to play once (4 games each)")
    parser.add_argument("--chunk", type=int, default=96, help="games a batch (a run's hold 50-170)")
    parser.add_argument("--rate", type=float, default=2000.0, help="games/s the writer is sent (a batch at a time)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each tree, alternating; the least is kept")
    parser.add_argument("--against", default="HEAD", help="the revision to compare with (default HEAD)")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as folder:
        chunks = recorded_chunks(folder, args.deals, args.chunk)
        trees = {args.against: code_tree(os.path.join(folder, "before"), args.against), "now": ROOT}
        best: dict[str, dict[str, float]] = {name: {} for name in trees}
        ratings: dict[str, Any] = {}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                result = measure(tree, chunks, folder, args.chunk / args.rate)
                ratings[name] = result["ratings"]
                for figure, value in result["figures"].items():
                    best[name][figure] = min(value, best[name].get(figure, value))
    before, now = best[args.against], best["now"]
    games = args.deals * 4
    print(f"CPU us a game, least of {args.rounds} rounds ({games} games, batches of {args.chunk}, "
          f"{args.rate:,.0f} games/s):")
    width = max(len(figure) for figure in now)
    print(f"{'':<{width}}  {args.against[:10]:>10}  {'now':>10}  ratio")
    for figure in now:
        print(f"{figure:<{width}}  {before[figure]:>10.1f}  {now[figure]:>10.1f}  {now[figure] / before[figure]:.2f}")
    gap = max(abs(a - b) for game in ratings["now"] for bot in ratings["now"][game]
              for a, b in zip(ratings["now"][game][bot], ratings[args.against][game][bot]))
    print(f"ratings, now against {args.against}: largest difference {gap:.3g}")
    print(f"load average after: {' '.join(f'{load:.2f}' for load in os.getloadavg())}")


if __name__ == "__main__":
    main()
