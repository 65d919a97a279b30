"""Each bot reads only what is its own: never another entrant's files nor the tournament's through a folder it
shares with them, whatever it names (arena/sandbox/own_files.py).

Each attack lays out a competition's files as an organiser might, with the attacker's code beside another
entrant's; the attacker tries to read the other's code and notes, the tournament file and, as an
unprivileged runner's bot, the results and the runner's dotfiles. Every test checks that the attack read
nothing and that the game is the one played without the attack.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import BOTS, play, reports, require
from attacks import encode
from test_hostile_unprivileged import NOBODY, RUNNER_PATHS
from arena.entrants import parse_spec
from arena.sandbox.limits import hidden_ancestors, open_folders
from arena.sandbox.own_files import with_neighbours
from arena.sandbox.syscalls import check, libc, mount

PACKAGE_BOT = """
import json
import os
import sys

from arena_bots.random_bot import RandomBot


def try_read(path):
    try:
        if os.path.isdir(path):
            return "listed: " + ",".join(sorted(os.listdir(path))[:5])
        with open(path, "rb") as handle:
            handle.read(16)
        return "read"
    except OSError as error:
        return type(error).__name__


class Bot:
    def __init__(self, attack="none", args=()):
        self.attack, self.args, self.bot = attack, [str(arg) for arg in args], RandomBot()

    def start(self, info):
        if self.attack == "read":
            seen = {path: try_read(path) for path in self.args}
            print("hostile: " + json.dumps({"read": seen}), file=sys.stderr, flush=True)
        self.bot.start(info)

    def decide(self, request):
        return self.bot.decide(request)
"""


def leaks(text: str, others: tuple[str, ...] = ("bob", "admin", "cup", "results", ".bashrc")) -> dict:
    """What the attacker's ``read`` report says it could read, or list of ``others``' (a folder on the way to
    its own files exists in its root, holding them alone)."""
    seen = reports(text, "read")[-1]
    return {path: result for path, result in seen.items()
            if result == "read" or result.startswith("listed") and any(name in result for name in others)}


def copy_hostile(folder: Path) -> Path:
    """A copy of the external hostile bot and the attack modules it imports, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for path in BOTS.glob("*.py"):
        shutil.copy(path, folder / path.name)
    return folder / "hostile.py"


@pytest.mark.parametrize("namespace", [False, True], ids=["package", "namespace-package"])
def test_a_py_bot_in_a_shared_parent_package_cannot_read_the_other_entrants_in_it(isolated, namespace):
    require("filesystem")
    top = isolated / "submissions"
    for name in ("alice", "bob"):
        (top / name).mkdir(parents=True)
        (top / name / "__init__.py").write_text("")
        (top / name / "bot.py").write_text(PACKAGE_BOT)
    (top / "bob" / "strategy.txt").write_text("bob's private notes\n")
    if not namespace:
        (top / "__init__.py").write_text("")
    paths = [str(top / "bob" / "bot.py"), str(top / "bob" / "strategy.txt"), str(top / "bob"), str(top)]
    bob = parse_spec("bob=py:submissions.bob.bot:Bot")

    def game(attack: str):
        alice = parse_spec("alice=py:submissions.alice.bot:Bot", options={"attack": attack, "args": paths})
        return play(with_neighbours([alice, bob]))

    record, texts = game("read")
    control, _ = game("none")
    assert set(reports(texts[0], "read")[-1]) == set(paths)
    assert leaks(texts[0]) == {}, "alice read bob's files through their shared package"
    assert record["faults"] == [] and record["moves"] == control["moves"]


def test_a_cmd_bot_is_not_shown_the_folder_of_a_file_its_command_names(isolated):
    require("filesystem")
    entries = isolated / "entries"  # one level above the bots: another bot, and the tournament below
    attacker = copy_hostile(entries / "alice")
    copy_hostile(entries / "bob")
    (entries / "bob" / "strategy.txt").write_text("bob's private notes\n")
    (entries / "notes.txt").write_text("shared notes anyone may read\n")
    (entries / "admin").mkdir()
    (entries / "admin" / "cup.toml").write_text("[tournament]\nname = 'cup'\n")
    paths = [str(entries / "bob" / "strategy.txt"), str(entries / "bob" / "hostile.py"),
             str(entries / "admin" / "cup.toml"), str(entries / "bob"), str(entries)]
    bob = parse_spec(f"bob=cmd:{sys.executable} {entries / 'bob' / 'hostile.py'} none")

    def game(attack: str, *named: str):
        alice = parse_spec(f"alice=cmd:{sys.executable} {attacker} {attack} {encode(paths)} {' '.join(named)}")
        return play(with_neighbours([alice, bob]))

    record, texts = game("read", str(entries / "notes.txt"))
    control, _ = game("none", str(entries / "notes.txt"))
    assert leaks(texts[0]) == {}, "the folder of a named file showed another bot and the tournament"
    assert record["faults"] == [] and record["moves"] == control["moves"]
    notes, program = str(entries / "notes.txt"), str(attacker)
    reader = parse_spec(f"alice=cmd:{sys.executable} {attacker} read {encode([notes, program])} {notes}")
    _, texts = play(with_neighbours([reader, bob]))
    assert set(leaks(texts[0])) == {notes, program}  # the named file itself, and its own folder, it does read


def test_two_cmd_bots_in_one_folder_cannot_read_each_other(isolated):
    require("filesystem")
    shared = isolated / "bots"
    copy_hostile(shared)
    (shared / "bob_strategy.txt").write_text("bob's private notes\n")
    bob_program = shared / "bob.py"
    bob_program.write_text((BOTS / "hostile.py").read_text())
    paths = [str(bob_program), str(shared / "bob_strategy.txt"), str(shared)]
    bob = replace(parse_spec(f"bob=cmd:{sys.executable} {bob_program} none"), files=("bots/*attacks.py",))

    def game(attack: str):
        alice = parse_spec(f"alice=cmd:{sys.executable} {shared / 'hostile.py'} {attack} {encode(paths)}")
        # the folder is not alice's alone: what she needs besides her program comes through files = [...]
        alice = replace(alice, files=("bots/*attacks.py",))
        return play(with_neighbours([alice, bob]))

    record, texts = game("read")
    control, _ = game("none")
    assert leaks(texts[0]) == {}, "a bot read the other bot of its folder"
    assert record["faults"] == [] and record["moves"] == control["moves"]


# -- an unprivileged runner: its bots share its user id, so only what they are shown protects its files --


def as_nobody(argv: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess:
    closed = hidden_ancestors(RUNNER_PATHS, NOBODY)

    def become_nobody() -> None:
        check(libc.unshare(0x00020000), "unshare")  # a mount namespace of its own
        mount(None, "/", None, (1 << 14) | (1 << 18))  # recursive, private
        open_folders(closed)
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)

    env = {"PATH": os.environ["PATH"], "HOME": str(home), "LANG": "C.UTF-8"}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          preexec_fn=become_nobody)


def test_an_unprivileged_runners_results_and_dotfiles_stay_unread_by_its_bots():
    if os.geteuid() != 0:
        pytest.fail("this test makes an unprivileged runner from root; run the suite as root (CI does)")
    top = Path(tempfile.mkdtemp(prefix="arena-nobody-own-"))
    try:
        home = top / "home"  # the runner's home, with a run's results below its working folder
        cup = home / "cup"
        results = cup / "results" / "cup"
        results.mkdir(parents=True)
        (results / "results.sqlite").write_text("every hand of every game")
        (results / "arena.log").write_text("another bot's stderr")
        (cup / "cup.toml").write_text("[tournament]\nname = 'cup'\n")
        (home / ".bashrc").write_text("export TOKEN=secret")
        attacker = copy_hostile(cup / "bots" / "alice")
        (top / "notes.txt").write_text("shared notes")  # named on the command line: its folder holds it all
        for path in [top, *top.rglob("*")]:
            os.chown(path, NOBODY, NOBODY)
            os.chmod(path, 0o700 if path.is_dir() else 0o600)  # the runner's own, as a run makes them
        paths = [str(results / "results.sqlite"), str(results / "arena.log"), str(results), str(cup / "cup.toml"),
                 str(home / ".bashrc"), str(home)]

        def game(attack: str) -> dict:
            spec = f"alice=cmd:{sys.executable} {attacker} {attack} {encode(paths)} {top / 'notes.txt'}"
            done = as_nobody([sys.executable, "-m", "arena", "play", "silk-road", "-b", spec, "-b", "random",
                              "--seed", "4", "--json"], cup, home)
            assert done.returncode == 0, done.stderr[-2000:]
            return json.loads(done.stdout)

        record = game("read")
        control = game("none")
        assert record["faults"] == [], record["faults"]  # a file it read makes its start answer a fault naming it
        assert record["moves"] == control["moves"]
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_an_honest_bot_still_reads_its_own_folder_with_its_settings_and_data_in_it(isolated):
    require("filesystem")
    folder = isolated / "mine"
    program = copy_hostile(folder)  # imports attacks.py beside it: it needs its folder
    (folder / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    (folder / "data").mkdir()
    (folder / "data" / "settings.toml").write_text("aggression = 0.3\n")
    own = [str(folder / "pyproject.toml"), str(folder / "data" / "settings.toml"), str(folder)]
    bot = parse_spec(f"mine=cmd:{sys.executable} {program} read {encode(own)}")
    record, texts = play(with_neighbours([bot, parse_spec("random")]))
    assert set(leaks(texts[0], others=("data",))) == set(own)  # it read all of its own
    assert [fault["decision"] for fault in record["faults"]] == ["start"]  # the read files named, as leaked
