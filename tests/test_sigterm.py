"""SIGTERM (what systemd, Kubernetes, CI runners and ``timeout`` send) stops a command as Ctrl-C does, at any moment.

During a run's play the run loop's own handler stops the pool ("stopped: ... run the same command again to
resume", exit 143: tests/test_tournament_run.py and tests/test_cluster_local.py). Around the play (the
bots' checks, the cluster's start, the store's opening, the leaderboard) the process used to die of the
signal with no word (status -15). Now: one line, "arena: stopped by SIGTERM", exit status 143, no
traceback, nothing left running, and the same command run again plays the tournament.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tournament_files import session_processes, stored_count, write_tournament

try:
    import distributed
except ImportError:  # the dask extra is not installed
    distributed = None

#: a program bot that plays as ``random`` does, but first hangs in its start while a file ``slow`` lies beside it
#: (having written its process id to ``started``): the run is stopped while it checks its bots
SLOW_TO_START = '''
import json, os, sys, time
from arena_bots.random_bot import RandomBot

here = os.path.dirname(os.path.abspath(__file__))
if os.path.exists(os.path.join(here, "slow")):
    with open(os.path.join(here, "started.tmp"), "w") as mark:
        mark.write(str(os.getpid()))
    os.rename(os.path.join(here, "started.tmp"), os.path.join(here, "started"))
    time.sleep(600)
bot = RandomBot()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        bot.start(message)
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        print(json.dumps(bot.decide(message)), flush=True)
'''

#: ``arena`` (its arguments from ``sys.argv[3:]``) with a SIGTERM sent to itself as ``MODULE:FUNCTION``
#: (``sys.argv[1]``) is called: "now", or from a finalizer that runs then ("finalizer"), where Python prints an
#: exception raised by a signal handler and drops it
SIGTERM_AT = '''
import importlib, os, signal, sys, weakref

module_name, name = sys.argv[1].split(":")
module = importlib.import_module(module_name)
original = getattr(module, name)


class Thing:
    pass


def terminate():
    os.kill(os.getpid(), signal.SIGTERM)


def patched(*args, **kwargs):
    if sys.argv[2] == "finalizer":
        thing = Thing()
        weakref.finalize(thing, terminate)
        del thing
    else:
        terminate()
    return original(*args, **kwargs)


setattr(module, name, patched)
from arena.cli import cli

cli(sys.argv[3:], prog_name="arena")
'''

STOPPED = "arena: stopped by SIGTERM"


def alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def gone(pids: list[int], seconds: float = 15.0) -> list[int]:
    """Those of ``pids`` still alive after waiting up to ``seconds`` for them to end."""
    deadline = time.monotonic() + seconds
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [pid for pid in pids if alive(pid)]


def assert_stopped_by_sigterm(status: int, err: str) -> None:
    assert status == 143, f"status {status}:\n{err}"
    assert err.splitlines()[-1] == STOPPED, err
    assert "Traceback" not in err and "Exception ignored" not in err and "Aborted" not in err, err


@pytest.mark.parametrize("to", ["the command", "its process group"])
def test_sigterm_while_the_bots_are_checked_stops_the_run_in_one_line_and_a_rerun_plays_it(tmp_path, to):
    (tmp_path / "slow_start.py").write_text(SLOW_TO_START)
    (tmp_path / "slow").touch()
    path = write_tournament(tmp_path, ["late=cmd:python3 slow_start.py", "random"], "silk-road:2", deals=1,
                            limits={"start_ms": 300_000})  # the check waits for it: the stop comes first
    process = subprocess.Popen(["arena", "run", path, "-j", "2", "--sandbox", "none"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        started, deadline = tmp_path / "started", time.monotonic() + 60
        while not started.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert started.exists(), "the bot's check did not begin"
        bot = int(started.read_text())
        if to == "the command":
            os.kill(process.pid, signal.SIGTERM)  # as `timeout` and systemd's main-process stop send it
        else:
            os.killpg(process.pid, signal.SIGTERM)  # as a CI runner or Kubernetes may: the bot gets it too
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert_stopped_by_sigterm(process.returncode, err)
    assert gone([bot]) == [], "the bot being checked outlived the stopped run"
    assert gone(session_processes(process.pid)) == []
    assert not (tmp_path / "results" / "cup" / ".run.lock").exists()
    (tmp_path / "slow").unlink()
    again = subprocess.run(["arena", "run", path, "-j", "2", "--sandbox", "none"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert stored_count(tmp_path / "results" / "cup") == 2


MOMENTS = [
    ("run", "as the store opens", "arena.runs.run:create_or_open", "now", ()),
    ("run", "as the leaderboard is built", "arena.standings.leaderboard:build_leaderboard", "now", ()),
    ("run", "in a finalizer as the leaderboard is built", "arena.standings.leaderboard:build_leaderboard",
     "finalizer", ()),
    ("run", "as the store opens, a local cluster up", "arena.runs.run:create_or_open", "now",
     ("--scheduler", "local:1")),
    ("compare", "as the store opens", "arena.runs.run:create_or_open", "now", ()),
]


@pytest.mark.parametrize("command, moment, where, how, extra", MOMENTS, ids=[f"{c}: {m}" for c, m, *_ in MOMENTS])
def test_sigterm_around_the_play_stops_in_one_line_with_143_and_the_command_runs_again(
        tmp_path, command, moment, where, how, extra):
    if "--scheduler" in extra and distributed is None:
        pytest.skip("needs the dask extra: pip install -e '.[dask]'")
    if command == "run":
        arguments = ["run", write_tournament(tmp_path, ["random", "trader"], "silk-road:2", deals=2, seed=3)]
        folder, games = tmp_path / "results" / "cup", 4  # two deals, each in both seat orders
    else:
        arguments = ["compare", "silk-road", "--candidate", "random", "--baseline", "trader", "--players", "2",
                     "--deals", "2", "--no-sprt", "--name", "cmp"]
        folder, games = tmp_path / "results" / "cmp", 8  # each deal played twice in each seat rotation
    arguments += ["-j", "2", "--sandbox", "none", *extra]
    stopped = subprocess.Popen([sys.executable, "-c", SIGTERM_AT, where, how, *arguments], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _, err = stopped.communicate(timeout=120)
    finally:
        if stopped.poll() is None:
            stopped.kill()
            stopped.wait()
    assert_stopped_by_sigterm(stopped.returncode, err)
    assert gone(session_processes(stopped.pid)) == [], "a process of the stopped command is still running"
    assert not (folder / ".run.lock").exists()
    again = subprocess.run(["arena", *arguments], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert again.returncode in (0, 1, 3), again.stderr  # compare: its verdict (3: none, with 2 deals)
    assert "Traceback" not in again.stderr, again.stderr
    assert stored_count(folder) == games


def test_sigterm_stops_arena_serve_in_one_line_with_143(tmp_path):
    (tmp_path / "results").mkdir()
    process = subprocess.Popen(["arena", "serve", "results", "--port", "0"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # it prints its address once it listens
        assert "serving results live at http://" in line, line
        os.kill(process.pid, signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert_stopped_by_sigterm(process.returncode, err)
