"""The documented commands, run literally in virtual environments: CONTRIBUTING's tutorial, the scaffold's
README, and README's set-up commands.

CONTRIBUTING's tutorial section: its ``sh`` blocks run in order as one bash
script, and each block announced by ``<!-- file: PATH -->`` is written to PATH
at its place, so the guide cannot drift from the code. The scaffold's README:
its ``sh`` block, in a bot just made by ``arena new-bot``. Both run in a virtual
environment layered on this one (:func:`layered_venv`): it sees every package
this interpreter sees (arena among them, however it was installed: in a venv,
in CI, editable) and installs into itself, so installing the tutorial's bot
changes nothing outside the test's folder, and pip checks the bot's
dependencies against what is really installed (arena's distribution name).

README's first command runs in a fresh virtual environment that sees nothing
but the standard library, in a copy of this checkout: exactly what a newcomer
types. README's second command is ``.ci/run``'s last line, which CI runs.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import tempfile
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds virtual environments and installs into them: ~30 s

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "CONTRIBUTING.md"
TUTORIAL = "## From an empty folder to the leaderboard"
BLOCK = re.compile(r"(?:<!-- file: (?P<path>\S+) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.S)


def script_of(section: str) -> str:
    """A section's ``sh`` blocks (and announced files) as one bash script echoing each command."""
    lines = ["set -euo pipefail"]
    for block in BLOCK.finditer(section):
        if block["path"]:
            lines += [f"cat > {block['path']} <<'GUIDE_FILE_END'", block["body"].rstrip("\n"), "GUIDE_FILE_END"]
        elif block["lang"] == "sh":
            for command in block["body"].splitlines():
                lines += [f"echo '$ {command}'", command]
    return "\n".join(lines) + "\n"


def tutorial_script(guide: str) -> str:
    """The tutorial's commands and files as one bash script."""
    return script_of(guide.split(TUTORIAL, 1)[1].split("\n## ", 1)[0])


def outer_site_dirs() -> list[str]:
    """Every site directory this interpreter reads (a venv's, or the system's and the user's)."""
    dirs = [*site.getsitepackages(), site.getusersitepackages(), sysconfig.get_paths()["purelib"],
            sysconfig.get_paths()["platlib"]]
    return [path for path in dict.fromkeys(dirs) if os.path.isdir(path)]


def layered_venv(home: Path) -> dict:
    """A virtual environment seeing this interpreter's packages, with its own ``arena`` command first on PATH.

    ``system_site_packages=True`` would show the base interpreter's packages,
    not an outer venv's; a ``.pth`` file adding this interpreter's site
    directories (their own ``.pth`` files included: editable installs) shows
    exactly what the tests see. Returns the environment to run commands in.
    """
    venv.create(home, with_pip=False)
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(home), "platbase": str(home)}))
    # not inside pip's isolated build environments (pip marks them with its build tracker), whose
    # build requirements (setuptools) must not be shadowed by this environment's older copies
    line = (f"import os, site; building = os.environ.get('PIP_BUILD_TRACKER') or os.environ.get('PIP_REQ_TRACKER'); "
            f"list(map(site.addsitedir, [] if building else {outer_site_dirs()!r}))")
    (purelib / "_outer_environment.pth").write_text(line + "\n")
    arena = home / "bin" / "arena"
    arena.write_text(f"#!{home / 'bin' / 'python'}\nfrom arena.cli import cli\n\ncli()\n")
    arena.chmod(0o755)
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("ARENA_", "PYTEST_", "PIP_NO_DEPS", "PYTHONPATH"))}
    env.update(PATH=f"{home / 'bin'}{os.pathsep}{env['PATH']}", VIRTUAL_ENV=str(home),
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


def run_script(script: str, folder: Path, env: dict, timeout: int = 600) -> str:
    done = subprocess.run(["bash", "-c", script], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=timeout)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    return output


@pytest.fixture
def work(tmp_path) -> Path:
    """An empty folder to work in, next to a folder for the venv, both where a bot's sandbox can see them.

    The process sandbox gives each bot a private /tmp, so an interpreter or a
    bot under /tmp (pytest's tmp_path) would be invisible to it: a user's venv
    and bot do not live there, and neither do these (/var/tmp when writable).
    """
    base = Path("/var/tmp") if os.access("/var/tmp", os.W_OK) else tmp_path
    top = Path(tempfile.mkdtemp(prefix="arena-guide-", dir=base))
    folder = top / "work"
    folder.mkdir()
    for path in (top, folder):
        path.chmod(0o755)  # the sandbox runs bots under user ids of their own: they must read the bot
    yield folder
    shutil.rmtree(top, ignore_errors=True)


def test_the_tutorial_script_holds_every_step():
    script = tutorial_script(GUIDE.read_text(encoding="utf-8"))
    for step in ("arena new-bot my-bot", "cat > my_bot/bot.py", "python -m pip install -e '.[test]'",
                 "python -m pytest", "arena check-bot my-bot", "cat > league.toml", "arena run league.toml"):
        assert step in script


def test_the_layered_venv_sees_this_environments_packages(tmp_path):
    env = layered_venv(tmp_path / "venv")
    shown = subprocess.run([str(tmp_path / "venv" / "bin" / "python"), "-c",
                            "import sys, arena, pytest; print(sys.prefix); print(arena.__file__)"],
                           env=env, capture_output=True, text=True, check=True).stdout.split()
    assert shown[0] == str(tmp_path / "venv") and shown[1].startswith(str(ROOT))


@pytest.mark.slow
def test_the_tutorial_runs_as_written(work):
    if importlib.util.find_spec("my_bot") is not None:  # the tutorial's own bot, installed by following it here
        pytest.skip("the tutorial's `arena new-bot my-bot` is refused while a my-bot is installed in this environment "
                    "(CONTRIBUTING.md: uninstall it to run this test)")
    env = layered_venv(work.parent / "venv")
    output = run_script(tutorial_script(GUIDE.read_text(encoding="utf-8")), work, env)
    bot_folder = work / "bots-of-mine" / "my-bot"
    assert (bot_folder / "my_bot" / "bot.py").read_text().startswith('"""my-bot: values paintings')
    listed = output.split("$ arena bots", 1)[1].split("$ ", 1)[0]
    assert re.search(r"^my-bot\s+modern-art, silk-road\s+my-bot\b", listed, re.M), listed
    assert "1 passed" in output  # the scaffolded conformance test, through arena's pytest plugin
    assert output.count("OK: ") == 2  # both check-bot runs, no fault
    assert '"direction": "from"' in (bot_folder / "trace.jsonl").read_text()
    board = output.split("$ arena leaderboard results/league --format markdown", 1)[1]
    for entrant in ("my-bot", "my-bot:boldness=0.9", "random"):
        assert f"| {entrant} " in board, board
    assert (bot_folder / "results" / "league" / "leaderboard.md").exists()


@pytest.mark.slow
def test_the_scaffolds_readme_runs_as_written(work):
    env = layered_venv(work.parent / "venv")
    run_script("arena new-bot their-bot", work, env)
    bot_folder = work / "their-bot"
    readme = (bot_folder / "README.md").read_text()
    output = run_script(script_of(readme), bot_folder, env)
    assert re.search(r"^their-bot\s+modern-art, silk-road\s+their-bot\b", output, re.M), output[-2000:]
    assert "1 passed" in output and "OK: " in output and "Final result:" in output
    assert '"direction": "to"' in output  # --trace
    ignored = (bot_folder / ".gitignore").read_text().split()
    assert {"__pycache__/", "*.egg-info/", "results/"} <= set(ignored)


def readme_commands() -> list[str]:
    """README's two set-up commands, in order."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Set-up on a fresh machine", 1)[1]
    return [block["body"].strip() for block in BLOCK.finditer(section.split("\n## ", 1)[0])]


def test_readmes_test_command_is_what_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text().rstrip("\n").splitlines()[-1]
    assert readme_commands()[1] == ci.replace("pip install -q ", "pip install ")  # CI installs quietly


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("ARENA_TEST_FRESH_VENV") != "1",
                    reason="installs every dependency into a fresh venv and plays the demo (minutes): "
                           "ARENA_TEST_FRESH_VENV=1 runs it, as .ci/run does")
def test_readmes_first_command_works_in_a_fresh_venv(work):
    """``python -m pip install -e . -e bots && arena run tournaments/demo.toml``, in a copy of the checkout."""
    tmp_path = work.parent
    checkout = tmp_path / "arena"
    tracked = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True, text=True, check=True)  # the working tree, less what git ignores
    for name in filter(None, tracked.stdout.split("\0")):
        if (ROOT / name).is_file():
            (checkout / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, checkout / name)
    for path in (tmp_path, checkout):
        path.chmod(0o755)
    home = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)  # with pip, nothing else
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("ARENA_", "PYTEST_", "PYTHONPATH", "VIRTUAL_ENV"))}
    env.update(PATH=f"{home / 'bin'}{os.pathsep}{env['PATH']}", VIRTUAL_ENV=str(home),
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    output = run_script(readme_commands()[0], checkout, env, timeout=900)
    assert re.search(r"Tournament demo: (\d+) of \1 games played", output), output[-3000:]
    assert "== modern-art" in output and "== silk-road" in output
    assert (checkout / "results" / "demo" / "leaderboard.md").exists()
