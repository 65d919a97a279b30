"""A bot reads only the runtime and its own files: no results, logs, secrets, home folders, other bots' files."""

from __future__ import annotations

import os
import shutil

import pytest

from conftest import BOTS, KINDS, cmd, play, reports, require
from arena.entrants import parse_spec

ROOT_DOTFILES = ["/root/.bashrc", "/root/.gitconfig", "/root/.pyenv/version", "/root/.cache", "/root"]


@pytest.fixture
def runner_folder(isolated):
    """A runner's folder as a competition leaves it: a store, a log, a tournament file, secrets, another bot."""
    results = isolated / "results" / "cup"
    results.mkdir(parents=True)
    (results / "results.sqlite").write_bytes(b"SQLite format 3\0 every hand of every game")
    (results / "arena.log").write_text("another bot's stderr\n")
    (isolated / ".env").write_text("TOKEN=secret\n")
    (isolated / "cup.toml").write_text("[tournament]\nname = 'cup'\n")
    other = isolated / "otherbot"
    other.mkdir()
    for name in ("hostile.py", "attacks.py", "kernel_attacks.py", "shared_attacks.py"):  # what hostile.py imports
        shutil.copy(BOTS / name, other / name)
    (other / "strategy.txt").write_text("the other bot's private notes\n")
    return isolated


def targets(folder) -> list[str]:
    return [str(folder / "results" / "cup" / "results.sqlite"), str(folder / "results" / "cup" / "arena.log"),
            str(folder / "results"), str(folder / ".env"), str(folder / "cup.toml"), str(folder),
            str(folder / "otherbot" / "strategy.txt"), str(folder / "otherbot"), "/etc/shadow",
            "/work/main/.git/config", "/work/main/results", os.path.expanduser("~"), *ROOT_DOTFILES]


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_bot_cannot_read_results_logs_secrets_home_folders_or_another_bots_files(runner_folder, kind):
    require("filesystem")
    other = parse_spec(f"other=cmd:{os.sys.executable} {runner_folder / 'otherbot' / 'hostile.py'} none")
    paths = targets(runner_folder)
    record, texts = play([KINDS[kind]("read", *paths), other])
    control, _ = play([cmd("none"), other])
    seen = reports(texts[0], "read")[-1]
    assert set(seen) == set(paths)
    runtime = {os.path.relpath(prefix, path).split(os.sep)[0] for prefix in {os.sys.prefix, os.sys.base_prefix}
               for path in ("/root", os.path.expanduser("~"))}  # a venv's base interpreter may live in a home
    leaked = {path: result for path, result in seen.items() if result == "read" or result.startswith("listed")
              and result[len("listed: "):] not in runtime}  # a home holding the runtime shows its path, no more
    assert leaked == {}, f"the bot read: {leaked}"
    assert record["faults"] == [] and record["moves"] == control["moves"]


def test_the_bot_still_reads_its_runtime_and_its_own_folder(runner_folder):
    own = [str(BOTS / "attacks.py"), "/usr/lib", os.sys.prefix]
    record, texts = play([cmd("read", *own), cmd("none", name="plain")])
    assert reports(texts[0], "read")[-1][own[0]] == "read"
    assert all(result != "FileNotFoundError" for result in reports(texts[0], "read")[-1].values())
    # what a bot reads shows in the record (its start answer names it): the check the test above relies on
    assert [(f["kind"], f["decision"]) for f in record["faults"]] == [("malformed", "start")]
    assert "leaked" in record["faults"][0]["detail"]
