"""The report's cost on a demo-sized store: wall and CPU time, bytes and files written, peak memory.

Plays the demo tournament (tournaments/demo.toml, by default with
``--sandbox none`` to build the store quickly; the store is the same either
way) into a temporary results root, unless ``--results FOLDER`` names an
existing tournament folder, then runs ``arena report`` on it in a subprocess
and prints what it took. The issue's bar: under 30 s and under 30 MB.

    python benchmarks/report.py
    python benchmarks/report.py --results results/demo --replays 10
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DEMO = Path(__file__).resolve().parent.parent / "tournaments" / "demo.toml"


def folder_size(folder: Path) -> tuple[int, int]:
    """Bytes and files under ``folder``."""
    files = [path for path in folder.rglob("*") if path.is_file()]
    return sum(path.stat().st_size for path in files), len(files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", help="an existing tournament folder to report on (default: play the demo)")
    parser.add_argument("--replays", type=int, default=None, help="replay pages per table (default: arena's)")
    parser.add_argument("--sandbox", default="none", help="sandbox for playing the demo (default: none)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        if options.results:
            folder = Path(options.results)
        else:
            started = time.monotonic()
            subprocess.run([sys.executable, "-m", "arena", "run", str(DEMO), "--results", temporary,
                            "--sandbox", options.sandbox], check=True, stdout=subprocess.DEVNULL)
            folder = Path(temporary) / "demo"
            print(f"demo played in {time.monotonic() - started:.1f} s into {folder}")
        out = Path(temporary) / "report"
        command = [sys.executable, "-m", "arena", "report", str(folder), "--out", str(out)]
        if options.replays is not None:
            command += ["--replays", str(options.replays)]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wall = time.monotonic() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        size, files = folder_size(out)
        games = subprocess.run([sys.executable, "-m", "arena", "export", str(folder)], check=True,
                               capture_output=True, text=True).stdout.count("\n")
        print(f"arena report on {games} games: {wall:.1f} s wall, {cpu:.1f} s CPU, {size / 1e6:.1f} MB in {files} "
              f"files, peak memory {after.ru_maxrss / 1024:.0f} MB (limits: 30 s, 30 MB)")


if __name__ == "__main__":
    main()
