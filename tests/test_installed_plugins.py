"""The suite beside an installed bot plugin: after the README's tutorial (``arena new-bot my-bot`` and
``pip install -e './my-bot[test]'``) the project's own tests still pass in the same environment.

Installing the scaffold with pip would change this machine's environment for
everyone, so the test installs it the way an installer leaves it for Python
to find: the scaffold's package and a ``my_bot-0.1.0.dist-info`` folder (its
metadata and the ``arena`` entry point) in a folder put on ``PYTHONPATH``.
``importlib.metadata`` finds that entry point exactly as it finds a pip
install's, and ``arena bots`` run there lists ``my-bot``. The tests that saw
the plugin (``arena new-bot my-bot`` refused as taken, every registered bot
in the conformance check) then run in a pytest of their own in that
environment and must pass.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli

ROOT = Path(__file__).resolve().parent.parent
#: the tests of ``arena new-bot`` that scaffold or refuse a name (the README's my-bot is taken once installed)
AUTHORING = ("writes_a_plugin_distribution", "never_writes_into_a_folder_with_files", "refuses_a_name_it_cannot_use",
             "writes_into_a_new_folder_named_after_the_bot_by_default")


def installed_scaffold(tmp_path: Path) -> dict[str, str]:
    """``arena new-bot my-bot`` installed as a distribution in ``tmp_path/site``; the environment seeing it."""
    made = CliRunner().invoke(cli, ["new-bot", "my-bot", "--dir", str(tmp_path / "my-bot")])
    assert made.exit_code == 0, made.output
    site = tmp_path / "site"
    shutil.copytree(tmp_path / "my-bot" / "my_bot", site / "my_bot")
    info = site / "my_bot-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-bot\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[arena]\nmy-bot = my_bot.plugin\n")
    (info / "top_level.txt").write_text("my_bot\n")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ARENA_", "PYTEST_"))}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    return env


@pytest.mark.slow  # a pytest run of its own over the tests that saw the plugin: about 20 s
def test_the_suite_passes_beside_an_installed_scaffold_bot(tmp_path):
    env = installed_scaffold(tmp_path)
    listed = subprocess.run([sys.executable, "-m", "arena", "bots"], env=env, cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert listed.returncode == 0 and any(line.startswith("my-bot ") for line in listed.stdout.splitlines()), \
        listed.stdout + listed.stderr  # the plugin is installed for real: arena loads it there
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider",
                                "tests/test_conformance.py"], env=env, cwd=ROOT, capture_output=True, text=True,
                               timeout=300)
    assert collected.returncode == 0, collected.stdout[-3000:]
    assert "random" in collected.stdout and "my-bot" not in collected.stdout  # the reference bots, not the user's
    suite = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-x",
                            *(f"tests/test_authoring.py::test_new_bot_{name}" for name in AUTHORING),
                            "tests/test_plugins.py", "tests/test_bot_options.py", "tests/test_versions.py"],
                           env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert suite.returncode == 0 and " passed" in suite.stdout, suite.stdout[-4000:]
