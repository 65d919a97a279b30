"""Nothing of a bot outlives its game, or the runner: not a double-forked daemon, not a user namespace of its own."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import pytest

from conftest import BOTS, KINDS, LIMITS, honest, play, require
from attacks import encode

pytestmark = pytest.mark.slow  # waits for processes meant to outlive their game: ~8 s


def marked(mark: str) -> set[int]:
    """The processes whose command line holds ``mark`` (a bot's forks keep its command line)."""
    found = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if mark.encode() in handle.read():
                    found.add(int(pid))
        except OSError:
            continue
    return found


def wait_for(mark: str, count: int, seconds: float = 60) -> set[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = marked(mark)
        if len(found) >= count:
            return found
        time.sleep(0.1)
    pytest.fail(f"the hostile bot never started its {count} processes (saw {len(marked(mark))})")


def attacker_spec(mark: str) -> str:
    return f"attacker=cmd:{sys.executable} {BOTS / 'hostile.py'} linger {encode([mark])}"


def test_when_a_game_ends_every_process_of_every_bot_is_gone():
    require("namespaces")
    mark = f"mark-{uuid.uuid4().hex}"
    entrant = KINDS["cmd"]("linger", mark)
    seen: set[int] = set()
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            seen.update(marked(encode([mark])))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        record, _ = play([entrant, honest()], dataclasses.replace(LIMITS, start_ms=1500))  # it lingers: a timeout
    finally:
        done.set()
        watcher.join()
    assert [f["kind"] for f in record["faults"] if f["seat"] == 0] == ["timeout"]
    assert len(seen) >= 4  # the bot, a double-forked daemon, a process and its child in a new user namespace
    assert marked(encode([mark])) == set()


@pytest.mark.parametrize("command", ["play", "run"])
def test_when_the_runner_is_killed_nothing_of_a_bot_lives_a_second_later(tmp_path, command):
    require("namespaces")
    mark = f"mark-{uuid.uuid4().hex}"
    if command == "play":
        argv = ["arena", "play", "silk-road", "-b", attacker_spec(mark), "-b", "random", "--start-ms", "60000"]
    else:
        (tmp_path / "cup.toml").write_text(
            '[tournament]\nname = "cup"\nseed = 1\ndeals = 4\n[[games]]\nname = "silk-road"\nplayers = 2\n'
            f'[limits]\nstart_ms = 60000\n[[bots]]\nspec = "random"\n[[bots]]\nspec = "{attacker_spec(mark)}"\n')
        argv = ["arena", "run", str(tmp_path / "cup.toml"), "-j", "2", "--results", str(tmp_path / "results")]
    folders = set(os.listdir(tempfile.gettempdir()))
    runner = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        # the bot, a double-forked daemon, a process and its child in a new user namespace
        seen = wait_for(encode([mark]), 4)
        runner.kill()
        runner.wait()
        time.sleep(1)
        left = marked(encode([mark]))
        assert left == set(), f"alive a second after the runner's SIGKILL: {left} of {seen}"
        kept = {name for name in set(os.listdir(tempfile.gettempdir())) - folders if name.startswith("arena-bot-")}
        assert kept == set(), f"working folders left on the host: {kept}"
    finally:
        for pid in marked(encode([mark])):
            os.kill(pid, signal.SIGKILL)
        if runner.poll() is None:
            runner.kill()
