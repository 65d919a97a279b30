"""What the runner reads of the pidfd a template sends with each game's bot: that it is a process's, and which."""

from __future__ import annotations

import os

import pytest

from arena.sandbox.kernel import is_pidfd, pid_of

pytestmark = pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="no pidfd here")


def test_a_pidfd_names_its_live_process_and_no_process_once_it_is_gone():
    """A live child's pidfd gives its id; once it is reaped the descriptor is still a pidfd (a template's message
    with it is allowed) but names no process (the runner then says the game's bot is gone)."""
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child only waits to be read about, then exits
        os.close(writing)
        os.read(reading, 1)
        os._exit(0)
    os.close(reading)
    pidfd = os.pidfd_open(child)
    try:
        assert pid_of(pidfd) == child and is_pidfd(pidfd)
        os.close(writing)
        os.waitpid(child, 0)
        assert is_pidfd(pidfd) and pid_of(pidfd) is None
    finally:
        os.close(pidfd)


def test_other_descriptors_are_no_pidfd():
    """A pipe, a file or a closed descriptor is no process's: a template sending one with a game is refused."""
    reading, writing = os.pipe()
    closed = os.dup(reading)
    os.close(closed)
    try:
        for fd in (reading, writing, closed):
            assert not is_pidfd(fd) and pid_of(fd) is None
    finally:
        os.close(reading)
        os.close(writing)
