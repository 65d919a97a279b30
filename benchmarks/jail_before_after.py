"""The jail's cost as users see it: the same sandboxed tournaments with the code from before the jail and now.

Issue 13's target: sandboxed tournaments of the reference bots run at no less
than 70% of their speed before the jail (commit 99d9d0c, the end of the round
before it). Issue 18's: a sandboxed tournament of random bots reaches at
least 0.3 of its in-process speed (``--sandbox none``).

Two tournaments, each run as a user runs it (``python -m arena run FILE
--fresh --sandbox process -j N``, a new process timed from start to exit):

- **reference**: like ``tournaments/demo.toml`` (random, appraiser and trader;
  Modern Art with 3 seats, Maritime Silk Road with 2; default limits; seed 1);
- **random**: three random bots at one table of each game (``random`` and the
  same class twice more as ``py:`` entries: the old code has no ``NAME=BOT``).

Each is played with the code from before the jail (a git worktree of
``--before`` at ``--worktree``, made when missing, run with
``PYTHONPATH=WORKTREE:WORKTREE/bots`` so that both ``arena`` and the reference
bots are the old ones: checked before anything is timed), then with the
current code (fresh bot processes per game, the default), the current code
with ``[limits] reuse = true``, and, for the random tournament, the current
code with ``--sandbox none``. The rows are interleaved and repeated
(``--rounds``); each ratio is taken within a round (so a change of the
machine's load between rounds moves both sides), and the median is printed
with the load average before and after. Where the benchmark can make a cgroup v2
folder (root, or a delegated hierarchy), each run plays in one of its own and
its CPU time per game (runner, workers, templates, bots) is printed too, with
the ratios in CPU time: on a shared machine they move less than wall time.

    python benchmarks/jail_before_after.py                    # 60 deals: 300 reference games, 180 random
    python benchmarks/jail_before_after.py --deals 20 --rounds 1 -j 1
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMITS = {"start_ms": 5000, "move_ms": 1000, "bank_ms": 10000, "memory_mb": 512}
#: name: (seats in Modern Art, seats in Maritime Silk Road, the entries)
TOURNAMENTS = {
    "reference": (3, 2, ["random", "appraiser", "trader"]),
    "random": (3, 3, ["random", "r2=py:arena_bots.random_bot:RandomBot", "r3=py:arena_bots.random_bot:RandomBot"]),
}


def worktree(path: str, commit: str) -> str:
    """The checkout of ``commit`` at ``path`` (a detached git worktree, added when missing)."""
    if not os.path.isdir(path):
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", path, commit], check=True,
                       stdout=subprocess.DEVNULL)
    head = subprocess.run(["git", "-C", path, "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    wanted = subprocess.run(["git", "-C", ROOT, "rev-parse", commit], check=True, capture_output=True,
                            text=True).stdout.strip()
    if head != wanted:
        raise SystemExit(f"{path} holds {head[:7]}, not {commit}: remove it or name another --worktree")
    return path


def old_environment(path: str) -> dict[str, str]:
    """The environment that runs the old ``arena`` with the old bots; checked by importing both."""
    env = dict(os.environ, PYTHONPATH=f"{path}:{path}/bots")
    found = subprocess.run([sys.executable, "-c", "import arena, arena_bots; print(arena.__file__); "
                            "print(arena_bots.__file__)"], env=env, check=True, capture_output=True,
                           text=True, cwd=tempfile.gettempdir()).stdout.split()
    if not all(file.startswith(path + os.sep) for file in found):
        raise SystemExit(f"the old code is not the one imported: {found}")
    return env


def tournament(folder: str, name: str, deals: int, reuse: bool) -> tuple[str, int]:
    """Write the tournament file ``name`` of :data:`TOURNAMENTS`; its path and its number of games."""
    modern_art, silk_road, entries = TOURNAMENTS[name]
    limits = {**LIMITS, "reuse": "true" if reuse else "false"}
    path = os.path.join(folder, f"{name}{'-reuse' if reuse else ''}.toml")
    with open(path, "w") as handle:
        handle.write(f'[tournament]\nname = "{name}"\nseed = 1\ndeals = {deals}\n'
                     f'[[games]]\nname = "modern-art"\nplayers = {modern_art}\n'
                     f'[[games]]\nname = "silk-road"\nplayers = {silk_road}\n[limits]\n'
                     + "".join(f"{key} = {value}\n" for key, value in limits.items() if key != "reuse" or reuse)
                     + "".join(f'[[bots]]\nspec = "{entry}"\n' for entry in entries))
    return path, deals * (modern_art + silk_road)  # one table per game, every deal in every rotation


def cpu_folder() -> str | None:
    """A cgroup v2 folder of this benchmark's own (root, or a delegated hierarchy), else None."""
    try:
        with open("/proc/self/cgroup") as handle:
            own = next((line.split(":", 2)[2].strip() for line in handle if line.startswith("0::")), None)
        with open("/proc/self/mounts") as handle:
            v2 = next((line.split()[1] for line in handle if line.split()[2] == "cgroup2"), None)
        if own is None or v2 is None:
            return None
        folder = os.path.join(v2 + own.rstrip("/"), f"bench-{os.getpid()}")
        os.makedirs(folder, exist_ok=True)
        return folder if os.access(os.path.join(folder, "cgroup.procs"), os.W_OK) else None
    except OSError:
        return None


def cpu_seconds(folder: str) -> float:
    with open(os.path.join(folder, "cpu.stat")) as handle:
        return int(handle.readline().split()[1]) / 1e6  # usage_usec


def remove_folder(folder: str) -> None:
    for root, folders, _ in os.walk(folder, topdown=False):
        for name in folders:
            try:
                os.rmdir(os.path.join(root, name))
            except OSError:
                pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


def timed_run(path: str, games: int, sandbox: str, jobs: int, env: dict[str, str] | None,
              cpu: str | None) -> tuple[float, float | None]:
    """games/s of ``arena run PATH --fresh --sandbox SANDBOX -j JOBS`` in a new process, start to exit, and
    the CPU time per game (ms) of everything it ran (runner, workers, bots: its own cgroup ``cpu``)."""
    folder = None
    if cpu:
        folder = os.path.join(cpu, f"run-{time.monotonic_ns()}")
        os.mkdir(folder)

    def join() -> None:
        if folder:
            with open(os.path.join(folder, "cgroup.procs"), "w") as handle:
                handle.write("0")

    with tempfile.TemporaryDirectory() as results:
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "arena", "run", path, "--fresh", "--sandbox", sandbox, "-j",
                        str(jobs), "--results", results], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, cwd=os.path.dirname(path), env=env, preexec_fn=join)
        speed = games / (time.perf_counter() - began)
    if folder is None:
        return speed, None
    time.sleep(0.05)  # the last processes' exit accounted
    used = cpu_seconds(folder) * 1000 / games
    remove_folder(folder)
    return speed, used


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=60, help="deals per table (each played in every rotation)")
    parser.add_argument("--rounds", type=int, default=3, help="times every row is run (medians printed)")
    parser.add_argument("-j", "--jobs", type=int, default=2, help="worker processes of every run")
    parser.add_argument("--before", default="99d9d0c", help="the commit before the jail")
    parser.add_argument("--worktree", default="/tmp/prejail", help="where its checkout is (made when missing)")
    args = parser.parse_args()
    old = old_environment(worktree(args.worktree, args.before))
    current = dict(os.environ, PYTHONPATH=ROOT)
    print(f"{os.cpu_count()} cores, -j {args.jobs}, load average {os.getloadavg()[0]:.1f} at the start; "
          f"before = {args.before} ({args.worktree})")
    with tempfile.TemporaryDirectory() as folder:
        rows: dict[str, tuple[str, int, str, dict[str, str]]] = {}
        for label in TOURNAMENTS:
            fresh, games = tournament(folder, label, args.deals, reuse=False)
            reused, _ = tournament(folder, label, args.deals, reuse=True)
            rows[f"{label}: before the jail"] = (fresh, games, "process", old)
            rows[f"{label}: now, fresh per game"] = (fresh, games, "process", current)
            rows[f"{label}: now, reuse = true"] = (reused, games, "process", current)
            if label == "random":
                rows[f"{label}: now, --sandbox none"] = (fresh, games, "none", current)
        speeds: dict[str, list[float]] = {label: [] for label in rows}
        costs: dict[str, list[float]] = {label: [] for label in rows}  # CPU ms per game
        cpu = cpu_folder()
        try:
            for _ in range(args.rounds):
                for label, (path, games, sandbox, env) in rows.items():
                    speed, used = timed_run(path, games, sandbox, args.jobs, env, cpu)
                    speeds[label].append(speed)
                    if used is not None:
                        costs[label].append(used)
        finally:
            if cpu:
                remove_folder(cpu)
    print(f"{'':<34}{'games/s':>8}{'CPU ms/game':>13}")
    for label in rows:
        used = f"{statistics.median(costs[label]):13.1f}" if costs[label] else f"{'-':>13}"
        print(f"{label:<34}{statistics.median(speeds[label]):8.1f}{used}  "
              f"({', '.join(f'{speed:.1f}' for speed in speeds[label])} games/s)")
    comparisons = [(f"{what}, now ({how}) / before", f"{what}: now, {how}", f"{what}: before the jail", 0.7)
                   for what in ("reference", "random") for how in ("fresh per game", "reuse = true")]
    comparisons += [(f"random, sandboxed ({how}) / --sandbox none", f"random: now, {how}",
                     "random: now, --sandbox none", 0.3) for how in ("fresh per game", "reuse = true")]
    for title, now, base, target in comparisons:
        ratios = [a / b for a, b in zip(speeds[now], speeds[base])]
        line = (f"{title}: {statistics.median(ratios):.2f} ({', '.join(f'{ratio:.2f}' for ratio in ratios)}; "
                f"target >= {target:.2f})")
        if costs[now] and costs[base]:  # the same ratio in CPU time: what a loaded machine moves least
            line += f"; in CPU time {statistics.median(b / a for a, b in zip(costs[now], costs[base])):.2f}"
        print(line)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
