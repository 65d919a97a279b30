"""Tournaments under the default process sandbox: the same records as in-process, and no bot left after Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from arena.cli import cli
from tournament_files import living_processes, stored_count, stored_records, write_tournament

def write_boxed(folder: Path, deals: int) -> str:
    """``folder/boxed.toml``: both games, three reference bots."""
    return write_tournament(folder, ["random", "trader", "appraiser"], "silk-road:2,modern-art:3", deals=deals,
                            name="boxed", seed=3)


def test_sandboxed_bots_play_the_same_games_as_in_process_bots(tmp_path):
    path = write_boxed(tmp_path, deals=2)
    boxed = CliRunner().invoke(cli, ["run", str(path), "-j", "2", "--results", "boxed"])
    assert boxed.exit_code == 0, boxed.output
    trusted = CliRunner().invoke(cli, ["run", str(path), "-j", "2", "--results", "trusted", "--sandbox", "none"])
    assert trusted.exit_code == 0, trusted.output
    played = stored_records(tmp_path / "boxed" / "boxed")
    assert len(played) == 2 * 2 + 2 * 3
    assert not any(record["faults"] for record in played)
    assert played == stored_records(tmp_path / "trusted" / "boxed")


def descendants(root: int) -> set[int]:
    """Every living process below ``root`` (bots run in sessions of their own, so the tree finds them)."""
    children: dict[int, list[int]] = {}
    for pid, fields in living_processes():
        children.setdefault(int(fields[1]), []).append(pid)
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pids: set[int]) -> set[int]:
    living = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            living.add(pid)
    return living


def test_ctrl_c_leaves_no_bot_process_behind(tmp_path):
    path = write_boxed(tmp_path, deals=200)
    process = subprocess.Popen(["arena", "run", str(path), "-j", "2"], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    seen: set[int] = set()
    deadline = time.monotonic() + 60
    folder = tmp_path / "results" / "boxed"
    while time.monotonic() < deadline and (len(seen) < 2 + 4 or stored_count(folder) < 2):  # two workers, their bots
        seen |= descendants(process.pid)
        time.sleep(0.05)
    seen |= descendants(process.pid)
    assert len(seen) >= 6 and stored_count(folder) >= 2
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "stopped:" in err and "Traceback" not in err
    assert alive(seen) == set()
    assert 2 <= len(stored_records(folder)) < 200 * 5


CHATTY_BOT = """
import json, sys
from arena_bots.random_bot import RandomBot

bot = RandomBot()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        bot.start(message)
        print("chatty says hello from seat", message["seat"], file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        print(json.dumps(bot.decide(message)), flush=True)
"""


def test_a_sandboxed_bots_stderr_reaches_the_log_file_through_its_worker(tmp_path):
    script = tmp_path / "chatty.py"
    script.write_text(CHATTY_BOT)
    path = write_tournament(tmp_path, ["random", f"chatty=cmd:{sys.executable} {script}"], "silk-road:2",
                            deals=None, name="chat", seed=1)
    result = CliRunner().invoke(cli, ["run", str(path), "-j", "2"])
    assert result.exit_code == 0, result.output
    assert not any(record["faults"] for record in stored_records(tmp_path / "results" / "chat"))
    lines = (tmp_path / "results" / "chat" / "arena.log").read_text().splitlines()
    said = [line for line in lines if "chatty says hello from seat" in line]
    assert len(said) == 2  # one game per rotation
    assert all(" worker-" in line and " chat/silk-road/random+chatty/d1/r" in line and "arena.bot.chatty" in line
               for line in said)
