"""CONTRIBUTING.md's tutorial, run literally: scaffold, write the bot, install, test, check, a tournament.

The tutorial section's ``sh`` blocks are run in order as one bash script, and
each block announced by ``<!-- file: PATH -->`` is written to PATH at its place,
so the guide cannot drift from the code. The script runs in a fresh virtual
environment that sees this environment's packages (arena among them) and gets
its own ``arena`` command, so installing the tutorial's bot changes nothing
outside the test's folder. ``PIP_NO_DEPS`` keeps pip from looking for arena
on an index; the build itself still uses pip's default isolation.
"""

from __future__ import annotations

import os
import re
import subprocess
import venv
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parent.parent / "CONTRIBUTING.md"
TUTORIAL = "## From an empty folder to the leaderboard"
BLOCK = re.compile(r"(?:<!-- file: (?P<path>\S+) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)


def tutorial_script(guide: str) -> str:
    """The tutorial's commands and files as one bash script."""
    section = guide.split(TUTORIAL, 1)[1].split("\n## ", 1)[0]
    lines = ["set -euo pipefail"]
    for block in BLOCK.finditer(section):
        if block["path"]:
            lines += [f"cat > {block['path']} <<'GUIDE_FILE_END'", block["body"].rstrip("\n"), "GUIDE_FILE_END"]
        elif block["lang"] == "sh":
            for command in block["body"].splitlines():
                lines += [f"echo '$ {command}'", command]
    return "\n".join(lines) + "\n"


def test_the_tutorial_script_holds_every_step():
    script = tutorial_script(GUIDE.read_text(encoding="utf-8"))
    for step in ("arena new-bot my-bot", "cat > my_bot/bot.py", "python -m pip install -e .",
                 "python -m pytest", "arena check-bot my-bot", "cat > league.toml", "arena run league.toml"):
        assert step in script


@pytest.fixture
def environment(tmp_path):
    """A virtual environment on top of this one, with its own ``arena`` command, first on PATH."""
    home = tmp_path / "venv"
    venv.create(home, system_site_packages=True, with_pip=False)
    arena = home / "bin" / "arena"
    arena.write_text(f"#!{home / 'bin' / 'python'}\nfrom arena.cli import cli\n\ncli()\n")
    arena.chmod(0o755)
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ARENA_", "PYTEST_"))}
    env.update(PATH=f"{home / 'bin'}{os.pathsep}{env['PATH']}", VIRTUAL_ENV=str(home), PIP_NO_DEPS="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def test_the_tutorial_runs_as_written(tmp_path, environment):
    folder = tmp_path / "work"
    folder.mkdir()
    folder.chmod(0o755)  # the sandbox runs bots under user ids of their own: they must read the bot
    tmp_path.chmod(0o755)
    script = tutorial_script(GUIDE.read_text(encoding="utf-8"))
    done = subprocess.run(["bash", "-c", script], cwd=folder, env=environment, capture_output=True,
                          text=True, timeout=600)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    bot_folder = folder / "bots-of-mine" / "my-bot"
    assert (bot_folder / "my_bot" / "bot.py").read_text().startswith('"""my-bot: values paintings')
    listed = output.split("$ arena bots", 1)[1].split("$ ", 1)[0]
    assert re.search(r"^my-bot\s+modern-art, silk-road\s+my-bot\b", listed, re.M), listed
    assert "1 passed" in output  # the scaffolded conformance test, through arena's pytest plugin
    assert output.count("OK: ") == 2  # both check-bot runs, no fault
    board = output.split("$ arena leaderboard results/league --format markdown", 1)[1]
    for entrant in ("my-bot", "my-bot:boldness=0.9", "random"):
        assert f"| {entrant} " in board, board
    assert (bot_folder / "results" / "league" / "leaderboard.md").exists()
