"""A runner that starts removes what runners killed before it left of their bots' cgroups, and nothing alive."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from arena.sandbox import cgroups


def _dead_pid() -> int:
    """The pid of a process that has exited (and is not visible in /proc any more)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    assert not os.path.exists(f"/proc/{process.pid}")
    return process.pid


def test_a_killed_runners_template_cgroups_are_swept_and_a_tree_where_something_runs_stays():
    """A template's cgroup has children (its games' slots, its own cell): a runner killed with SIGKILL leaves
    the tree, which the next runner's sweep removes children first; where a process still runs (a runner whose
    pid this one cannot see, in another pid namespace), nothing is taken."""
    where = cgroups.hierarchies()
    if where.core is None:
        pytest.skip("no cgroup v2 folder this runner may make cgroups in")
    dead = _dead_pid()
    left = os.path.join(where.core, f"bot-{dead}-sweep{os.getpid()}")
    running = os.path.join(where.core, f"bot-{dead}-running{os.getpid()}")
    for tree in (left, running):
        for child in ("slot0", "slot1", "template"):
            os.makedirs(os.path.join(tree, child), exist_ok=True)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with open(os.path.join(running, "template", "cgroup.procs"), "w") as handle:
            handle.write(str(sleeper.pid))
        cgroups._sweep(where.core)
        assert not os.path.exists(left)
        assert all(os.path.isdir(os.path.join(running, child)) for child in ("slot0", "slot1", "template"))
    finally:
        sleeper.kill()
        sleeper.wait()
        for tree in (left, running):
            for child in ("slot0", "slot1", "template"):
                if os.path.isdir(os.path.join(tree, child)):
                    os.rmdir(os.path.join(tree, child))
            if os.path.isdir(tree):
                os.rmdir(tree)
