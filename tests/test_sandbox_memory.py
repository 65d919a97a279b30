"""Memory limits on cgroup v2 alone, and numeric libraries that start under a bot's memory limit.

The cgroup tests run arena in a view of this machine with only the unified hierarchy (cgroup v2) mounted: a
mount namespace of the test's own from which the v1 hierarchies are unmounted. Where the machine's v2 root
offers the memory controller (a v2-only machine), the bots' cgroups there must hold a bot to ``memory_mb``;
on a hybrid machine (memory bound to v1, as on this project's machines) the view cannot hold one, and
``arena sandbox`` must say why and how to get one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.entrants import parse_spec
from arena.errors import TournamentFileError
from arena.match import Limits
from arena.plugins import get_plugins
from arena.sandbox import open_process_bot
from arena.sandbox.cgroups import DELEGATE_HINT
from arena.sandbox.syscalls import check, libc, mount
from arena.tournament.config import load_tournament

MEMORY_HOG = """
import json, mmap, os, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        fd = os.memfd_create("hog")  # shared memory: no rlimit of the process counts it, only a cgroup does
        os.ftruncate(fd, 256 << 20)
        area = mmap.mmap(fd, 256 << 20)
        for offset in range(0, 256 << 20, 4096):
            area[offset] = 1
        print("hog: held 256 MiB", file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready"}), flush=True)
"""


def v2_only_view() -> None:
    """In the child: a mount namespace of its own in which no cgroup v1 hierarchy is mounted."""
    check(libc.unshare(0x00020000), "unshare")
    mount(None, "/", None, (1 << 14) | (1 << 18))  # recursive, private
    with open("/proc/self/mounts") as handle:
        points = [line.split()[1] for line in handle if line.split()[2] == "cgroup"]
    for point in reversed(points):
        check(libc.umount2(os.fsencode(point), 2), f"umount {point}")


def in_v2_view(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    if os.geteuid() != 0:
        pytest.fail("this test makes a cgroup v2-only view of the machine, which needs root (CI runs as root)")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120,
                          preexec_fn=v2_only_view)


def v2_root_offers_memory() -> bool:
    with open("/proc/self/mounts") as handle:
        roots = [line.split()[1] for line in handle if line.split()[2] == "cgroup2"]
    try:
        with open(os.path.join(roots[0], "cgroup.controllers")) as handle:
            return "memory" in handle.read().split()
    except (IndexError, OSError):
        return False


def test_on_cgroup_v2_alone_arena_sandbox_says_whether_memory_is_limited_and_how_to_get_it(isolated):
    code = ("import json; from arena.sandbox.probe import protections; from arena.sandbox.cgroups import "
            "hierarchies; p = protections(); h = hierarchies(); print(json.dumps({'memory': p.memory_cgroup, "
            "'v2': h.memory_v2, 'off': p.off(), 'v1': open('/proc/self/mounts').read().count(' cgroup ')}))")
    done = in_v2_view(code, isolated)
    assert done.returncode == 0, done.stderr[-2000:]
    state = json.loads(done.stdout)
    assert state["v1"] == 0  # the view holds the unified hierarchy alone
    if v2_root_offers_memory():
        assert state["memory"] and state["v2"], state
    else:  # hybrid: the memory controller is bound to v1, so the v2 view cannot offer it
        memory = next(phrase for phrase in state["off"] if phrase.startswith("memory "))
        assert "cgroup v2: the memory controller is not offered" in memory and DELEGATE_HINT in memory
        table = in_v2_view("from arena.cli import cli; cli(['sandbox'])", isolated)
        assert "systemd-run --user --scope -p Delegate=yes" in table.stdout, table.stdout + table.stderr


def test_on_cgroup_v2_alone_a_bot_holding_shared_memory_past_memory_mb_is_killed(isolated):
    if not v2_root_offers_memory():
        pytest.skip("hybrid cgroup layout here (the memory and pids controllers are bound to cgroup v1, "
                    "so no v2-only view can hold them): runs on a machine with the unified hierarchy alone")
    (isolated / "hog.py").write_text(MEMORY_HOG)
    code = textwrap.dedent(f"""
        import json, sys
        from arena.cli import cli
        cli(["play", "silk-road", "-b", "hog=cmd:{sys.executable} hog.py", "-b", "random", "--seed", "2",
             "--memory-mb", "64", "--json"], standalone_mode=True)
        """)
    done = in_v2_view(code, isolated)
    assert "hog: held 256 MiB" not in done.stderr
    assert done.returncode == 2 and "memory" in done.stderr  # refused before play: killed at its start


def start_and_read_stderr(spec: str, limits: Limits) -> str:
    plugins = get_plugins()
    bot = open_process_bot(parse_spec(spec, plugins), limits, plugins)
    try:
        bot.start({"type": "start", "game": "silk-road", "seat": 0, "players": 2, "seed": 1,
                   **limits.time_message()}, limits.start_ms)
    finally:
        bot.close()
    return bot.stderr_text()


THREADS_BOT = """
import json, os, sys
names = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
print("threads: " + json.dumps({name: os.environ.get(name) for name in names}), file=sys.stderr, flush=True)
for line in sys.stdin:
    print(json.dumps({"type": "ready"}), flush=True)
"""


@pytest.mark.parametrize("threads", [1, 4])
def test_a_bot_is_told_how_many_threads_numeric_libraries_may_start(isolated, threads):
    (isolated / "bot" / "threads.py").parent.mkdir()
    (isolated / "bot" / "threads.py").write_text(THREADS_BOT)
    text = start_and_read_stderr(f"t=cmd:{sys.executable} bot/threads.py", Limits(threads=threads))
    told = json.loads(text.split("threads: ", 1)[1].splitlines()[0])
    assert told == dict.fromkeys(("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"), str(threads))


def test_a_tournament_file_sets_the_threads_and_refuses_none(isolated):
    base = ('[tournament]\nname = "cup"\nseed = 1\n[[games]]\nname = "silk-road"\nplayers = 2\n'
            '[[bots]]\nspec = "random"\n[[bots]]\nspec = "trader"\n')
    (isolated / "cup.toml").write_text(base)
    assert load_tournament(str(isolated / "cup.toml"), get_plugins()).limits.threads == 1
    (isolated / "cup.toml").write_text(base + "[limits]\nthreads = 4\n")
    assert load_tournament(str(isolated / "cup.toml"), get_plugins()).limits.threads == 4
    (isolated / "cup.toml").write_text(base + "[limits]\nthreads = 0\n")
    with pytest.raises(TournamentFileError, match="threads"):
        load_tournament(str(isolated / "cup.toml"), get_plugins())

