"""The sandbox as an unprivileged runner: still jailed (user namespaces), and honest about what is off.

The runner here is user ``nobody`` (65534); the folders it could not pass on
the way to its Python, its virtualenv and this checkout (root's home, where
this machine's Python lives; a CI run's 0700 temporary folder) are made
passable for it in a mount namespace of the test's own (as the runner's files
would be on a machine installed for that user).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pytest

from conftest import BOTS
from attacks import encode
import arena
from arena.sandbox.limits import hidden_ancestors, open_folders
from arena.sandbox.syscalls import check, libc, mount

NOBODY = 65534


#: what the unprivileged runner must reach: its interpreter, its environment, arena and these tests
RUNNER_PATHS = [sys.executable, os.path.realpath(sys.executable), sys.prefix, sys.base_prefix,
                os.path.dirname(os.path.dirname(arena.__file__)), os.path.dirname(__file__)]


def as_nobody(argv: list[str], cwd: str) -> subprocess.CompletedProcess:
    closed = hidden_ancestors(RUNNER_PATHS, NOBODY)

    def become_nobody() -> None:
        check(libc.unshare(0x00020000), "unshare")  # a mount namespace of its own
        mount(None, "/", None, (1 << 14) | (1 << 18))  # recursive, private
        open_folders(closed)
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)

    env = {"PATH": os.environ["PATH"], "HOME": cwd, "LANG": "C.UTF-8"}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          preexec_fn=become_nobody)


@pytest.fixture(scope="module")
def folder():
    if os.geteuid() != 0:
        pytest.fail("this test makes an unprivileged runner from root; run the suite as root (CI does)")
    path = tempfile.mkdtemp(prefix="arena-nobody-")
    os.chmod(path, 0o777)
    yield path
    subprocess.run(["rm", "-rf", path])


def test_arena_sandbox_as_nobody_names_exactly_what_is_off(folder):
    code = ("from arena.sandbox.probe import protections; import json; p = protections(); "
            "print(json.dumps({'off': p.off(), 'namespaces': p.namespaces, 'filesystem': p.filesystem, "
            "'template': p.fork_template, 'root': p.root}))")
    result = as_nobody([sys.executable, "-c", code], folder)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert not state["root"] and state["namespaces"] and state["filesystem"] and state["template"]
    assert [phrase.split(" ")[0] for phrase in state["off"]] == ["memory", "cpu"]  # no cgroup for nobody
    table = as_nobody([sys.executable, "-m", "arena", "sandbox"], folder)
    assert table.returncode == 0, table.stderr
    assert "off (no memory cgroup" in table.stdout and "private filesystem         on" in table.stdout


def test_a_tournament_requiring_memory_is_refused_as_nobody(folder):
    toml = os.path.join(folder, "cup.toml")
    with open(toml, "w") as handle:
        handle.write('[tournament]\nname = "cup"\nseed = 1\n[[games]]\nname = "silk-road"\nplayers = 2\n'
                     '[sandbox]\nrequire = ["memory"]\n[[bots]]\nspec = "random"\n[[bots]]\nspec = "trader"\n')
    code = ("import sys; from arena.plugins import get_plugins; from arena.tournament.config import load_tournament;"
            "from arena.sandbox import check_required; from arena.errors import SandboxError\n"
            "t = load_tournament(sys.argv[1], get_plugins())\n"
            "try:\n    check_required(list(t.require))\nexcept SandboxError as e:\n    print('refused:', e)")
    result = as_nobody([sys.executable, "-c", code, toml], folder)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("refused: ") and "memory (" in result.stdout


def test_as_nobody_a_bot_still_cannot_read_the_runners_files_nor_keep_the_jail_apart(folder):
    secret = os.path.join(folder, "results.sqlite")
    with open(secret, "w") as handle:
        handle.write("every hand")
    os.chmod(secret, 0o666)
    spec = f"attacker=cmd:{sys.executable} {BOTS / 'hostile.py'} read {encode([secret, folder, '/root/.bashrc'])}"
    result = as_nobody([sys.executable, "-m", "arena", "play", "silk-road", "-b", spec, "-b", "random",
                        "--seed", "4", "--json"], folder)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["faults"] == []  # a file it could read would make its start answer a fault naming it
    readable = f"attacker=cmd:{sys.executable} {BOTS / 'hostile.py'} read {encode([str(BOTS / 'attacks.py')])}"
    control = as_nobody([sys.executable, "-m", "arena", "play", "silk-road", "-b", readable, "-b", "random",
                         "--seed", "4", "--json"], folder)
    assert control.returncode == 2 and "leaked" in control.stderr  # its own files: read, so refused at the check
    probe = as_nobody([sys.executable, "-c", "import os; print(open(os.sys.argv[1]).read())", secret], folder)
    assert probe.stdout.strip() == "every hand"  # the runner itself (nobody) can read it: only the bot cannot
