"""Every honest install plays sandboxed games: arena, the reference bots and a plugin installed normally (not
editable) in a fresh virtual environment under /tmp, as CI runners put them; a plugin found through
``PYTHONPATH`` (a ``pip install --target`` folder); and a ``py:`` bot found there.

One virtual environment serves the module (made once, ~15 s): wheels of this checkout (a copy of its files,
so nothing is built in the working tree) and of a tiny plugin distribution made here, installed with their
dependencies from the package index. The plugin's bot is ``random`` under another name, so its moves must
equal ``random``'s in the same seat of the same game.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds wheels and a virtual environment: about half a minute

ROOT = Path(__file__).resolve().parent.parent



def plugin_files(package: str, bot: str) -> dict[str, str]:
    """A plugin distribution's files: ``package`` registers ``bot``, which is ``random`` under another name."""
    return {
        "pyproject.toml": f"""
            [build-system]
            requires = ["setuptools>=64"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "{package.replace('_', '-')}"
            version = "0.1.0"
            dependencies = ["arena-bots"]

            [project.entry-points.arena]
            {bot} = "{package}.plugin"
            """,
        f"{package}/__init__.py": "",
        f"{package}/bot.py": """
            from arena_bots.random_bot import RandomBot


            class Tiny(RandomBot):
                \"\"\"``random`` under another name: a third party's bot, installed as a distribution.\"\"\"
            """,
        f"{package}/plugin.py": f"""
            from arena import hookimpl


            @hookimpl
            def register_bots(register):
                from {package}.bot import Tiny

                register("{bot}", Tiny, games=["silk-road"], description="random, installed as a plugin")
            """,
    }


def run(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None,
        check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    if check:
        assert done.returncode == 0, (done.stdout + done.stderr)[-3000:]
    return done


@pytest.fixture(scope="module")
def installs():
    """``(venv, wheels, top)``: a fresh venv under /tmp with arena, the bots and the plugin installed normally."""
    top = Path(tempfile.mkdtemp(prefix="arena-installs-", dir="/tmp"))  # 0700, as a CI runner's
    source = top / "source"
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    for name in filter(None, listed.split("\0")):
        if name.startswith(("arena/", "bots/")) or name in ("pyproject.toml", "README.md", "LICENSE"):
            if (ROOT / name).is_file():
                (source / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, source / name)
    for package, bot in (("tiny_arena_bot", "tiny"), ("tinier_arena_bot", "tinier")):
        for name, text in plugin_files(package, bot).items():
            (top / package / name).parent.mkdir(parents=True, exist_ok=True)
            (top / package / name).write_text(textwrap.dedent(text).lstrip())
    wheels = top / "wheels"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    run([*pip, "wheel", "--no-deps", "-w", str(wheels), str(source), str(source / "bots"),
         str(top / "tiny_arena_bot"), str(top / "tinier_arena_bot")])
    venv = top / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    installed = [str(path) for path in sorted(wheels.glob("*.whl")) if not path.name.startswith("tinier")]
    run([*pip, "--python", str(venv / "bin" / "python"), "install", *installed])  # dependencies from the index
    yield venv, wheels, top
    shutil.rmtree(top, ignore_errors=True)


def clean_env(venv: Path, **extra: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("ARENA_", "PYTEST_", "PYTHONPATH", "VIRTUAL_ENV"))}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}", VIRTUAL_ENV=str(venv), **extra)
    return env


def play(venv: Path, bots: list[str], env: dict[str, str], cwd: Path) -> dict:
    argv = [str(venv / "bin" / "arena"), "play", "silk-road", "--seed", "3", "--json"]
    for bot in bots:
        argv += ["-b", bot]
    done = run(argv, env=env, cwd=cwd, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_a_non_editable_install_in_a_venv_under_tmp_plays_sandboxed_games(installs):
    venv, _, top = installs
    env = clean_env(venv)
    shown = run([str(venv / "bin" / "python"), "-c", "import arena, arena_bots, tiny_arena_bot; "
                 "print(arena.__file__, arena_bots.__file__, tiny_arena_bot.__file__)"], env=env).stdout.split()
    assert all(path.startswith(str(venv) + "/") for path in shown), shown  # installed, not this checkout
    table = run([str(venv / "bin" / "arena"), "sandbox"], env=env, cwd=top).stdout
    assert "private filesystem         on" in table and "fork of a template" in table
    record = play(venv, ["random", "trader"], env, top)
    assert record["faults"] == [] and len(record["moves"]) > 20
    # the plugin distribution's bot is random under another name: the same moves in the same seat
    plugin = play(venv, ["tiny", "trader"], env, top)
    assert plugin["faults"] == [] and plugin["moves"] == record["moves"]


def test_a_plugin_and_a_py_bot_found_through_pythonpath_play_sandboxed_games(installs):
    venv, wheels, top = installs
    target = top / "target"  # pip install --target: found through PYTHONPATH alone
    run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "install", "--no-deps", "--target",
         str(target), str(next(wheels.glob("tinier_arena_bot-*.whl")))])
    assert run([str(venv / "bin" / "python"), "-c", "import tinier_arena_bot"], env=clean_env(venv),
               check=False).returncode != 0
    env = clean_env(venv, PYTHONPATH=str(target))
    control = play(venv, ["random", "trader"], env, top)
    plugin = play(venv, ["tinier", "trader"], env, top)
    assert plugin["faults"] == [] and plugin["moves"] == control["moves"]
    module = play(venv, ["mine=py:tinier_arena_bot.bot:Tiny", "trader"], env, top)
    assert module["faults"] == [] and module["moves"] == control["moves"]


OWN_VENV_BOT = """
import json
import sys

import botlib  # installed in the bot's own virtual environment only
from arena_bots.random_bot import RandomBot

bot = RandomBot()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        bot.start(message)
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        print(json.dumps(bot.decide(message)), flush=True)
"""


def test_a_cmd_bot_run_by_its_own_virtual_environment_plays_sandboxed_games(installs):
    venv, _, top = installs
    own = top / "envs" / "mine"  # the bot's own environment, apart from its program
    run([str(venv / "bin" / "python"), "-m", "venv", "--without-pip", str(own)])
    site_packages = next((own / "lib").glob("python*/site-packages"))
    (site_packages / "botlib.py").write_text("HELLO = 1\n")
    outer = next((venv / "lib").glob("python*/site-packages"))
    (site_packages / "outer.pth").write_text(f"{outer}\n")  # layered on the runner's: arena and the bots
    (top / "bot").mkdir()
    (top / "bot" / "main.py").write_text(OWN_VENV_BOT)
    env = clean_env(venv)
    control = play(venv, ["random", "trader"], env, top)
    record = play(venv, [f"mine=cmd:{own / 'bin' / 'python'} {top / 'bot' / 'main.py'}", "trader"], env, top)
    assert record["faults"] == [] and record["moves"] == control["moves"]


def test_a_py_bot_using_a_library_installed_editable_through_a_pth_path_plays_sandboxed(installs):
    """``setup.py develop`` style (``editable_mode=compat``): a ``.pth`` file names the library's checkout,
    whose ``.git`` keeps the checkout from being shown whole: its package is shown alone."""
    venv, _, top = installs
    library = top / "helper-lib"
    (library / "helper_lib").mkdir(parents=True)
    (library / ".git").mkdir()
    (library / "pyproject.toml").write_text(textwrap.dedent("""
        [build-system]
        requires = ["setuptools>=64"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "helper-lib"
        version = "0.1.0"

        [tool.setuptools]
        packages = ["helper_lib"]
        """))
    (library / "helper_lib" / "__init__.py").write_text("from arena_bots.random_bot import RandomBot as Base\n")
    run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "--python", str(venv / "bin" / "python"),
         "install", "--no-deps", "--config-settings", "editable_mode=compat", "-e", str(library)])
    assert any(str(library) in path.read_text() for path in (venv / "lib").glob("python*/site-packages/*.pth"))
    (top / "mine").mkdir(exist_ok=True)
    (top / "mine" / "uses_helper.py").write_text("from helper_lib import Base\n\n\nclass Bot(Base):\n    pass\n")
    env = clean_env(venv)
    control = play(venv, ["random", "trader"], env, top)
    record = play(venv, ["mine=py:uses_helper:Bot", "trader"], env, top / "mine")
    assert record["faults"] == [] and record["moves"] == control["moves"]
