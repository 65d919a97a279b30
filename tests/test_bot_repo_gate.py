"""The regression gate of a bot's own repository (docs/ci/arena.yml and arena-gate.sh), as a bot author gets it.

`arena new-bot` writes the workflow and its script into the scaffold, the same
files as docs/ci/ holds. End to end: arena built from this checkout (its
working tree committed to a git repository of its own) is installed into a
fresh virtual environment; `arena new-bot` there pins the bot's dependency to
that arena; the bot's repository installs it without arena installed (the pin
resolves, from git), and the
script, run as the workflow runs it, fails a regressing commit and passes an
improving one, and plays nothing again for bots whose versions did not change.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import tomllib
import venv
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.authoring import gate
from arena.authoring.pin import Pin, pin_of
from arena.cli import cli
from test_ci_workflow import arena_repository, git
from test_guide import ROOT

yaml = pytest.importorskip("yaml")
DOCS = ROOT / "docs" / "ci"

#: a commit that changes nothing of the play: the bot's limit read from a data file of its package
DATA_LIMIT = '''
    def limit(self) -> int:
        import importlib.resources
        import json

        return json.loads((importlib.resources.files("my_bot") / "params.json").read_text())["limit"]
'''
#: the improving commit: the bot plays Modern Art as arena's appraiser does
IMPROVEMENT = '''
from arena_bots.modern_art_heuristic import ModernArtHeuristic


class Bot(Bot):
    """The appraiser's Modern Art, the scaffold's Silk Road."""

    def start(self, info: dict) -> None:
        super().start(info)
        self.appraiser = ModernArtHeuristic()
        self.appraiser.start(info)

    def decide(self, request: dict) -> dict:
        if request["decision"] in ("phase1", "phase2", "load_ship", "extra_draw"):
            return super().decide(request)
        return self.appraiser.decide(request)
'''


def test_new_bot_writes_the_gate_of_docs_ci_unchanged(tmp_path):
    assert gate.WORKFLOW == (DOCS / "arena.yml").read_text(), "docs/ci/arena.yml differs from gate.py"
    assert gate.SCRIPT == (DOCS / "arena-gate.sh").read_text(), "docs/ci/arena-gate.sh differs from gate.py"
    result = CliRunner().invoke(cli, ["new-bot", "gated-bot", "--dir", str(tmp_path / "bot"),
                                      "--arena", "git+https://example.org/arena.git@0123abc"])
    assert result.exit_code == 0, result.output
    bot = tmp_path / "bot"
    assert (bot / ".github" / "workflows" / "arena.yml").read_text() == gate.WORKFLOW
    assert (bot / ".github" / "arena-gate.sh").read_text() == gate.SCRIPT
    assert os.access(bot / ".github" / "arena-gate.sh", os.X_OK)
    project = tomllib.loads((bot / "pyproject.toml").read_text())["project"]
    assert project["dependencies"] == ["knizia-arena @ git+https://example.org/arena.git@0123abc"]
    assert project["optional-dependencies"]["reference-bots"] == [
        "arena-bots @ git+https://example.org/arena.git@0123abc#subdirectory=bots"]


def test_the_workflow_runs_the_script_its_header_names_on_pull_requests():
    workflow = yaml.safe_load(gate.WORKFLOW)
    assert list(workflow[True]) == ["pull_request"]  # YAML reads the key `on` as true
    steps = workflow["jobs"]["gate"]["steps"]
    runs = [step for step in steps if "bash .github/arena-gate.sh" in step.get("run", "")]
    assert len(runs) == 1 and runs[0]["env"]["ARENA_BASE_REF"] == "${{ github.event.pull_request.base.sha }}"
    assert steps[0]["with"]["fetch-depth"] == 0  # the base commit is there to compare with
    assert "run by .github/workflows/arena.yml on every pull" in gate.SCRIPT.splitlines()[1]
    assert "OWNER" not in gate.WORKFLOW + gate.SCRIPT and "--fresh" not in gate.SCRIPT.split("set -euo", 1)[1]
    install = next(step["run"] for step in steps if "pip install" in step.get("run", ""))
    assert install == "python -m pip install -e '.[test]'"  # arena comes from the bot's own pin


def fresh_venv(home: Path) -> dict:
    """A new virtual environment of its own (nothing of this one's packages), first on PATH.

    Builds run without isolation, with a setuptools recent enough for arena's
    pyproject.toml installed first: a few seconds instead of an isolated
    environment per build.
    """
    venv.create(home, with_pip=True)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("ARENA_", "PYTEST_", "PYTHONPATH", "VIRTUAL_ENV", "PIP_NO_DEPS"))}
    env.update(PATH=f"{home / 'bin'}{os.pathsep}{env['PATH']}", VIRTUAL_ENV=str(home),
               PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_BUILD_ISOLATION="0")  # pip reads 0 as: no isolation
    sh(["python", "-m", "pip", "install", "-q", "setuptools>=77", "wheel"], home, env)
    return env


@pytest.fixture
def top():
    """A folder the sandboxed bots can read (not under pytest's private /tmp), removed afterwards."""
    base = Path("/var/tmp") if os.access("/var/tmp", os.W_OK) else Path(tempfile.gettempdir())
    folder = Path(tempfile.mkdtemp(prefix="arena-gate-", dir=base))
    folder.chmod(0o755)  # the sandbox runs bots under user ids of their own: they must read the bot
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def sh(command: list[str] | str, cwd: Path, env: dict, timeout: int = 600) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                          shell=isinstance(command, str))
    assert done.returncode == 0, (done.stdout + done.stderr)[-4000:]
    return done


def run_gate(bot: Path, env: dict, summary: Path) -> subprocess.CompletedProcess:
    """The workflow's gate step: the script, from the repository's root, with the base commit."""
    summary.write_text("")
    step = {**env, "ARENA_BASE_REF": "HEAD~1", "ARENA_JOBS": "2", "GITHUB_STEP_SUMMARY": str(summary),
            "ARENA_COMPARE_OPTIONS": "--sprt 0,-100 --max-games 320"}  # a gross difference, decided in a few deals
    return subprocess.run(["bash", ".github/arena-gate.sh"], cwd=bot, env=step, capture_output=True, text=True,
                          timeout=600)


@pytest.mark.slow
def test_a_bots_pull_request_fails_on_a_regression_and_passes_an_improvement(top):
    env = fresh_venv(top / "venv")
    url = arena_repository(top / "arena")  # this working tree, committed: the arena under test
    sh(["python", "-m", "pip", "install", "-q", str(top / "arena")], top, env)  # with its dependencies
    created = sh(["arena", "new-bot", "my-bot", "--dir", str(top / "bot")], top, env).stdout
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=top / "arena", capture_output=True, text=True,
                            check=True).stdout.strip()
    pin = f"knizia-arena @ git+{url}@{commit}"
    assert f"arena: {pin}" in created  # the arena that ran new-bot, pinned to its commit
    bot = top / "bot"
    assert tomllib.loads((bot / "pyproject.toml").read_text())["project"]["dependencies"] == [pin]
    git(bot, "init", "-q")
    git(bot, "add", ".")
    git(bot, "commit", "-q", "-m", "my-bot")
    # the workflow's install step, as on a machine without arena: the pins resolve from the bot's repository
    sh(["python", "-m", "pip", "uninstall", "-q", "-y", "knizia-arena"], top, env)
    sh("python -m pip install -q -e '.[test,reference-bots]'", bot, env)
    installed = sh(["python", "-c", "import importlib.metadata as m; "
                    "print(m.distribution('knizia-arena').read_text('direct_url.json'))"], bot, env).stdout
    assert json.loads(installed)["vcs_info"]["commit_id"] == commit  # arena installed from the bot's pin
    assert "1 passed" in sh(["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"], bot, env).stdout

    bot_module, params = bot / "my_bot" / "bot.py", bot / "my_bot" / "params.json"
    bot_module.write_text(bot_module.read_text().replace(
        "    def limit(self) -> int:\n", DATA_LIMIT + "\n    def old_limit(self) -> int:\n", 1))
    params.write_text('{"limit": 20}')
    git(bot, "add", ".")
    git(bot, "commit", "-q", "-m", "the limit in a data file")
    # the regressing commit changes the data file only: the bot bids as if money did not matter, and the
    # baseline (the base commit's package, renamed) must read its own params.json to see the difference
    params.write_text('{"limit": 10000}')
    git(bot, "commit", "-q", "-am", "bid without a limit")
    summary = top / "summary.md"
    worse = run_gate(bot, env, summary)
    assert worse.returncode == 1, (worse.stdout + worse.stderr)[-4000:]
    assert "::error::arena compare: my-bot is a regression against HEAD~1" in worse.stdout
    assert "REGRESSION" in summary.read_text() and "my-bot vs my-bot-base" in summary.read_text()

    bot_module.write_text(bot_module.read_text() + IMPROVEMENT)
    git(bot, "commit", "-q", "-am", "the appraiser's Modern Art")
    better = run_gate(bot, env, summary)
    assert better.returncode == 0, (better.stdout + better.stderr)[-4000:]
    assert "not worse" in summary.read_text()
    outcome = json.loads((bot / "results" / "gate" / "compare.json").read_text())
    assert outcome["verdict"] == "not-worse" and outcome["played_now"] > 0
    assert outcome["losses"] < outcome["wins"]

    again = run_gate(bot, env, summary)  # nothing changed: every game is reused, none played
    assert again.returncode == 0
    replayed = json.loads((bot / "results" / "gate" / "compare.json").read_text())
    assert replayed["played_now"] == 0 and replayed["games"] == outcome["games"]
    assert re.search(r"not worse", summary.read_text())


@pytest.mark.parametrize("given, arena, bots", [
    ("git+https://example.org/a.git@v1", "knizia-arena @ git+https://example.org/a.git@v1",
     "arena-bots @ git+https://example.org/a.git@v1#subdirectory=bots"),
    ("knizia-arena @ git+https://example.org/a.git@0abc", "knizia-arena @ git+https://example.org/a.git@0abc",
     "arena-bots @ git+https://example.org/a.git@0abc#subdirectory=bots"),
    ("0.2.0", "knizia-arena==0.2.0", "arena-bots==0.2.0"),
    ("knizia-arena>=0.1", "knizia-arena>=0.1", "arena-bots>=0.1"),
])
def test_a_pin_given_by_hand_pins_arena_and_its_reference_bots_alike(given, arena, bots):
    assert pin_of(given) == Pin(arena, bots)


def test_a_checkout_folder_given_by_hand_is_a_file_url_and_nothing_is_refused_in_one_line(tmp_path):
    assert pin_of(str(tmp_path)).arena == f"knizia-arena @ file://localhost{tmp_path}"
    result = CliRunner().invoke(cli, ["new-bot", "gated-bot", "--dir", str(tmp_path / "bot"), "--arena", " "])
    assert result.exit_code == 2 and "--arena: expected" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "bot").exists()


def test_the_running_arena_is_pinned_by_how_it_was_installed(monkeypatch):
    from arena.authoring import pin

    monkeypatch.setattr(pin, "_direct_url", lambda: {"url": "https://example.org/arena.git",
                                                     "vcs_info": {"vcs": "git", "commit_id": "0f1e2d"}})
    assert pin.running_arena_pin().arena == "knizia-arena @ git+https://example.org/arena.git@0f1e2d"  # from git
    monkeypatch.setattr(pin, "_direct_url", lambda: {})
    monkeypatch.setattr(pin, "_local_folder", lambda direct: None)
    assert pin.running_arena_pin() == Pin(f"knizia-arena=={pin.arena.__version__}",
                                          f"arena-bots=={pin.arena.__version__}")  # from a package index


@pytest.mark.parametrize("remote, url", [
    ("https://example.org/arena.git", "git+https://example.org/arena.git"),
    ("git@example.org:team/arena.git", "git+ssh://git@example.org/team/arena.git"),
    ("", "git+file://localhost{checkout}"),  # no origin: the checkout itself
    ("{elsewhere}", "git+file://localhost{checkout}"),  # a clone of a folder on this machine (a CI clone)
    ("file://{elsewhere}", "git+file://localhost{checkout}"),
])
def test_a_checkout_is_pinned_at_a_url_pip_reads_whatever_its_origin(monkeypatch, tmp_path, remote, url):
    from arena.authoring import pin

    checkout, elsewhere = tmp_path / "arena", tmp_path / "upstream"
    elsewhere.mkdir()
    answers = {("rev-parse", "HEAD"): "0f1e2d", ("remote", "get-url", "origin"): remote.format(elsewhere=elsewhere)}
    monkeypatch.setattr(pin, "_direct_url", lambda: {})
    monkeypatch.setattr(pin, "_local_folder", lambda direct: str(checkout))
    monkeypatch.setattr(pin, "_git", lambda folder, *args: answers[args])
    assert pin.running_arena_pin().arena == f"knizia-arena @ {url.format(checkout=checkout)}@0f1e2d"
