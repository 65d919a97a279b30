"""The program launcher: each game's bot is a program started afresh (a ``cmd:`` bot, or a Python bot's host
when its games reuse one process), in the jail of its :class:`~arena.sandbox.jailspec.JailSpec`.

With a PID namespace the bot is its keeper's child (process 1 of the namespace,
see ``become_process_one``); killing it kills everything it started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from typing import Callable

from arena.sandbox import limits as sandbox_limits
from arena.sandbox.jail import HOME
from arena.sandbox.launcher import Launcher, bot_environment, uid_pool


class ProgramLauncher(Launcher["subprocess.Popen[bytes]"]):
    """Starts ``argv`` as a new process for each game (or once, when the seat keeps it between games)."""

    def launch(self) -> None:
        """Start the process (a failure is kept in :attr:`error` and reported by the seat's ``start``)."""
        self.error = None
        self.workdir = self._work_folder()
        self.uid = None
        preexec: Callable[[], None] = sandbox_limits.die_with_parent  # unjailed too: never outlives the runner
        if self.isolate:
            if self.protections.own_user:
                self.uid = uid_pool().take()
                if self.workdir:
                    os.chown(self.workdir, self.uid, self.uid)
            self._new_cgroup()
            preexec = self._preexec(self.uid, forks_games=False)
        self.forks = self.isolate and self.protections.namespaces
        home = self.workdir or HOME
        try:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, cwd=self.cwd or self.workdir or "/", env=bot_environment(home, self.extra_env),
                start_new_session=True, close_fds=True, preexec_fn=preexec)
        except (OSError, subprocess.SubprocessError) as error:
            self.error = f"cannot start {self.argv[0]!r}: {getattr(error, 'strerror', None) or error}"
            self.release()
            return
        self.error = None
        process = self.process
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        self._take_pipes(process.stdin.fileno(), process.stdout.fileno(), process.stderr.fileno())
        self.pid = self._bot_pid(process)
        self.timing.watch(self.pid)
        self.timing.mark = self.timing.origin = 0

    def _bot_pid(self, process: subprocess.Popen[bytes]) -> int:
        """The bot's own pid: its keeper's child when there is a PID namespace (see ``become_process_one``)."""
        if not self.forks:
            return int(process.pid)
        children = f"/proc/{process.pid}/task/{process.pid}/children"
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and process.poll() is None:
            try:
                with open(children, "rb") as handle:
                    pids = handle.read().split()
            except OSError:
                break
            if pids:
                return int(pids[0])
            time.sleep(0.0005)
        return int(process.pid)

    def limited_pid(self) -> int:
        """The bot itself (its RLIMIT_CPU backstops it)."""
        return int(self.pid or 0)

    def kill(self) -> None:
        """SIGKILL the bot and everything it started, and reap it.

        In a PID namespace the bot is its process 1: killing it ends the whole
        namespace (and its keeper, if it has one, exits once that is done). Otherwise the bot's
        process group dies, and as root every process of the bot's user id.
        """
        if self.process is None:
            return
        if self.cgroup is not None:
            self.cgroup.kill()
        if self.forks and self.pid is not None and self.pid != self.process.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
                self.process.wait(timeout=2)
            except (ProcessLookupError, PermissionError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.uid is not None and not self.forks:
            sandbox_limits.kill_user(self.uid)
        self.process.wait()

    def release(self) -> None:
        """Release the pipes, the clock's watch, the cgroup, the working folder and the user id."""
        if self.process is not None:
            if self.channel is not None:
                self.channel.close(descriptors=False)
            for pipe in (self.process.stdin, self.process.stdout, self.process.stderr):
                try:
                    if pipe is not None:
                        pipe.close()
                except OSError:
                    pass
            self.timing.unwatch()
            self.process = None
        self._free_host()
