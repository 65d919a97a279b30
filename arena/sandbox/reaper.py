"""The trusted process 1 of a Python bot's template's PID namespace: each game's parent, so the template is not.

A template runs the bot's code (its import), so whatever it learns of a game
it may hand to every later game forked from it. A parent learns how its child
ended: its exit status (8 bits the bot chooses), when, and its CPU time. So a
template is process 2 of its PID namespace, the child of this reaper, and
forks each game with ``CLONE_PARENT`` (:func:`arena.sandbox.limits.fork_game`):
the game's bot is the reaper's child, which reaps it and tells the runner, on
a pipe the template never holds, ``PID STATUS`` (its id in the namespace, its
exit code, negative for a signal); the template hears nothing. Once a game is
reaped the reaper sets the namespace's last process id back to the
template's, so that the next game's bot gets the same id whatever the last
one started (threads and processes take ids in the template's namespace too:
a count the template would read off its next fork).

The reaper is a fork of the runner's process made before the template's jail
(:func:`arena.sandbox.limits.preexec`): it never runs the bot's code, holds
no descriptor but its pipe and the ``ns_last_pid`` file, is not dumpable, and
is hidden from the template's ``/proc`` (mounted ``hidepid=2``:
:func:`hide_other_processes`, also hiding the games, which are not dumpable).
As its namespace's process 1 it ignores every signal the template may send
(the kernel drops those whose action is the default), and when it ends every
process of the namespace dies: when the template ends it ends with its status.
"""

from __future__ import annotations

import gc
import os
import resource
import signal
from typing import NoReturn

from arena.sandbox import kernel
from arena.sandbox.syscalls import mount

#: the namespace's last process id, written back once a game is reaped: the next gets the lowest free id above
TEMPLATE_PID = 2
NS_LAST_PID = "/proc/sys/kernel/ns_last_pid"
#: the reaper's exit status when it cannot do its work (the template then never runs: a trial says it fails)
BROKEN = 125
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REMOUNT = 2, 4, 8, 32


def become_reaper(report: int) -> None:
    """In process 1 of a template's new PID namespace, between ``fork`` and ``exec``: fork the template (the
    child, process 2, returns and goes on to exec it); this process stays as the reaper (:func:`reap`) and never
    returns. ``report``: the pipe the runner reads the games' ends from (-1: none, a trial)."""
    try:  # before the template moves this namespace's root (its jail): opened where the runner's /proc is
        last_pid = os.open(NS_LAST_PID, os.O_WRONLY | os.O_CLOEXEC)
        os.pwrite(last_pid, b"%d" % TEMPLATE_PID, 0)
    except OSError as error:
        os.write(2, f"arena-reaper: {error}\n".encode())
        os._exit(BROKEN)
    template = os.fork()
    if template == 0:
        os.close(last_pid)
        if report >= 0:
            os.close(report)
        return
    reap(template, report, last_pid)


def reap(template: int, report: int, last_pid: int) -> NoReturn:
    """Reap every child until ``template`` ends (then exit with its status: 128 + N for signal N); write each
    other's ``PID STATUS`` line to ``report``, after setting the namespace's last process id back (``last_pid``:
    its ``ns_last_pid``, open)."""
    gc.disable()  # a collection would walk (and copy on write) every object of the runner's heap
    for number in signal.valid_signals():
        if number not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD):
            try:
                signal.signal(number, signal.SIG_DFL)  # process 1: the kernel drops the template's signals
            except (OSError, ValueError):
                pass
    try:
        kernel.not_dumpable()
    except OSError as error:
        os.write(2, f"arena-reaper: {error}\n".encode())
        os._exit(BROKEN)
    keep = sorted(fd for fd in (report, last_pid) if fd >= 0)
    low = 0
    for fd in keep:
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    line = b"%d %d\n"
    back = b"%d" % TEMPLATE_PID
    while True:
        try:
            ended = os.waitid(os.P_ALL, 0, os.WEXITED)
        except ChildProcessError:
            os._exit(BROKEN)
        if ended is None:
            continue
        code = ended.si_status if ended.si_code == os.CLD_EXITED else -ended.si_status
        if ended.si_pid == template:
            os._exit(code if code >= 0 else 128 - code)
        try:
            os.pwrite(last_pid, back, 0)
            if report >= 0:
                os.write(report, line % (ended.si_pid, code))
        except OSError:
            pass  # the runner closed its end: it is closing the template


def hide_other_processes() -> None:
    """In the template, its jail made: its ``/proc`` shows no process it may not trace (``hidepid=2``): neither
    the reaper nor a game's bot (neither is dumpable), so it reads nothing of them there (their state, CPU time,
    their children's). Raises ``OSError`` where the kernel refuses."""
    mount(None, "/proc", None, _MS_REMOUNT | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, "hidepid=2")


def parse(data: bytes) -> tuple[list[tuple[int, int]], bytes]:
    """The ``(pid, status)`` lines whole in ``data`` (read from a reaper's pipe), and what is left of a line."""
    *lines, rest = data.split(b"\n")
    ended = []
    for text in lines:
        pid, _, status = text.partition(b" ")
        ended.append((int(pid), int(status)))
    return ended, rest
