"""The leaderboard workflow (docs/ci/leaderboard.yml) run step by step in a repository holding only a scaffolded bot.

Every ``run:`` step of the workflow runs as written, in order, in bash, with the
workflow's and the step's environment (GitHub expressions given test values;
the bot is scaffolded with its arena pinned to a copy of this working tree,
committed to a git repository of its own). The
``uses:`` steps are played by small stand-ins: the cache keeps folders under
a key, ``gh`` is a script keeping the pull request's comments in a JSON file.
Two pushes to a pull request: the first plays every game and comments, the
second (the bot unchanged) restores the cache, plays nothing, and edits the
same comment.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from test_guide import ROOT, layered_venv

yaml = pytest.importorskip("yaml")
pytestmark = pytest.mark.slow  # runs a workflow's steps in a new repository and venv: ~30 s

WORKFLOW = ROOT / "docs" / "ci" / "leaderboard.yml"
FAKE_GH = r"""#!/usr/bin/env python3
import json, os, sys
store = os.environ["FAKE_GH_COMMENTS"]
comments = json.load(open(store)) if os.path.exists(store) else []
args = sys.argv[1:]
with open(store + ".calls", "a") as log:
    log.write(" ".join(args) + "\n")
if args[:2] == ["pr", "comment"]:
    body = open(args[args.index("--body-file") + 1]).read()
    comments.append({"id": 100 + len(comments), "body": body})
elif args[0] == "api" and "PATCH" in args:
    number = int(args[args.index("PATCH") + 1].rsplit("/", 1)[1])
    body = open(args[args.index("-F") + 1].split("=@", 1)[1]).read()
    next(c for c in comments if c["id"] == number)["body"] = body
elif args[0] == "api":
    marker = args[args.index("--jq") + 1].split('contains("', 1)[1].split('")', 1)[0]
    for comment in comments:
        if marker in comment["body"]:
            print(comment["id"])
json.dump(comments, open(store, "w"))
"""


def expression(text: str, values: dict[str, str]) -> str:
    """``${{ ... }}`` replaced by the test's value for what is inside."""
    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", lambda match: values[match.group(1)], text)


class Runner:
    """Plays the workflow's steps in ``repo`` for one event."""

    def __init__(self, repo: Path, env: dict, cache: Path, values: dict[str, str]) -> None:
        self.repo, self.env, self.cache, self.values = repo, env, cache, values
        self.workflow = yaml.safe_load(WORKFLOW.read_text())
        self.outputs: dict[str, dict[str, str]] = {}
        self.log = ""

    def run(self) -> None:
        base = {**self.env, **{key: expression(str(value), self.values)
                               for key, value in self.workflow["env"].items()}}
        for step in self.workflow["jobs"]["leaderboard"]["steps"]:
            condition = step.get("if", "")
            if "pull_request" in condition and self.values["github.event_name"] != "pull_request":
                continue
            if "cache-hit != 'true'" in condition and self.outputs.get("results", {}).get("cache-hit") == "true":
                continue
            if "uses" in step:
                self.uses(step)
                continue
            output = self.repo / ".github_output"
            output.write_text("")
            env = {**base, **{key: expression(str(value), self.values) for key, value in step.get("env", {}).items()},
                   "GITHUB_OUTPUT": str(output)}
            done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", step["run"]], cwd=self.repo, env=env,
                                  capture_output=True, text=True, timeout=900)
            self.log += f"\n## {step.get('name')}\n{done.stdout}{done.stderr}"
            assert done.returncode == 0, self.log[-4000:]
            if "id" in step:
                self.outputs[step["id"]] = dict(line.split("=", 1) for line in output.read_text().splitlines())
                self.values[f"steps.{step['id']}.outputs.key"] = self.outputs[step["id"]].get("key", "")

    def uses(self, step: dict) -> None:
        action = step["uses"].split("@")[0]
        if action == "actions/cache/restore":
            key = expression(step["with"]["key"], self.values)
            prefix = step["with"]["restore-keys"]
            entries = sorted(self.cache.glob(f"{prefix}*"), key=lambda path: path.stat().st_mtime)
            exact = self.cache / key
            chosen = exact if exact.exists() else (entries[-1] if entries else None)
            if chosen is not None:
                shutil.copytree(chosen, self.repo / "results", dirs_exist_ok=True)
            self.outputs[step["id"]] = {"cache-hit": "true" if chosen == exact and exact.exists() else "false"}
        elif action == "actions/cache/save":
            key = expression(step["with"]["key"], self.values)
            shutil.copytree(self.repo / "results", self.cache / key)


def step_log(runner: Runner, name: str) -> str:
    return runner.log.split(f"## {name}\n", 1)[1].split("\n## ", 1)[0]


@pytest.fixture
def repo():
    """A repository holding only a bot made by `arena new-bot`, and the workflow's tournament file."""
    base = Path("/var/tmp") if os.access("/var/tmp", os.W_OK) else Path(tempfile.gettempdir())
    top = Path(tempfile.mkdtemp(prefix="arena-ci-", dir=base))
    top.chmod(0o755)  # the sandbox runs bots under user ids of their own: they must read the bot
    yield top
    shutil.rmtree(top, ignore_errors=True)


def git(folder: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=ci", "-c", "user.email=ci@example.org", *args], cwd=folder, check=True,
                   capture_output=True)


def arena_repository(where: Path) -> str:
    """This working tree, committed to a git repository of its own: what `pip install git+URL` installs."""
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout
    for name in filter(None, files.split("\0")):
        if (ROOT / name).is_file():
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, where / name)
    git(where, "init", "-q")
    git(where, "add", ".")
    git(where, "commit", "-q", "-m", "arena")
    return f"file://localhost{where}"  # a host part: older pip refuses git+file:///PATH in NAME @ URL


@pytest.mark.slow
def test_the_workflow_in_a_bots_own_repository(repo):
    env = layered_venv(repo / "venv")
    env["GITHUB_REPOSITORY"] = "someone/my-bot"
    env["FAKE_GH_COMMENTS"] = str(repo / "comments.json")
    env["GITHUB_STEP_SUMMARY"] = str(repo / "summary.md")
    bin_gh = repo / "venv" / "bin" / "gh"
    bin_gh.write_text(FAKE_GH)
    bin_gh.chmod(0o755)
    (repo / "arena").mkdir()
    url = arena_repository(repo / "arena")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo / "arena", capture_output=True, text=True,
                            check=True).stdout.strip()
    subprocess.run(["arena", "new-bot", "my-bot", "--dir", str(repo / "bot"), "--arena", f"git+{url}@{commit}"],
                   env=env, check=True, capture_output=True)
    bot = repo / "bot"
    tournament = (ROOT / "docs" / "ci" / "arena.toml").read_text()
    (bot / "arena.toml").write_text(re.sub(r"^deals = \d+", "deals = 1", tournament, flags=re.M))  # a short one
    git(bot, "init", "-q")
    git(bot, "add", ".")
    git(bot, "commit", "-q", "-m", "my-bot")
    cache = repo / "cache"
    cache.mkdir()
    values = {"github.token": "token",
              "github.event.pull_request.number": "7", "github.event_name": "pull_request"}

    first = Runner(bot, env, cache, dict(values))
    first.run()
    assert "ci: 0/6 games, 6 to play" in step_log(first, "Tournament and leaderboard")
    assert "1 passed" in step_log(first, "Test the bot")
    comments = json.loads((repo / "comments.json").read_text())
    assert len(comments) == 1 and comments[0]["body"].startswith("<!-- arena-leaderboard -->")
    assert "| my-bot " in comments[0]["body"]
    summary = (bot / "results" / "comment.md").read_text()
    assert "Leaderboard changes" not in summary  # nothing earlier to compare with
    assert len(list(cache.iterdir())) == 1

    shutil.rmtree(bot / "results")  # a new runner: only the cache brings results back
    second = Runner(bot, env, cache, dict(values))
    second.run()
    assert second.outputs["results"]["cache-hit"] == "true"
    comments = json.loads((repo / "comments.json").read_text())
    assert len(comments) == 1  # the same comment, edited
    assert "Leaderboard changes" in comments[0]["body"]
    calls = (repo / "comments.json.calls").read_text().splitlines()
    assert sum(call.startswith("pr comment") for call in calls) == 1
    assert sum("PATCH" in call for call in calls) == 1
    assert "ci: 6/6 games, 0 to play" in step_log(second, "Tournament and leaderboard")  # every game reused
