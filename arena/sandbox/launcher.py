"""What starts a game's bot process: the interface of the two launchers, and what they share.

A seat (:class:`arena.sandbox.process.ProcessBot`) chooses one launcher once
and asks it for each game's bot: :class:`~arena.sandbox.launch_program.ProgramLauncher`
starts a program (a ``cmd:`` bot, or a Python bot's host when games reuse
their process), :class:`~arena.sandbox.launch_template.TemplateLauncher` forks
each game's bot from a template that imported a Python bot. Either way the
seat then holds the same things: the bot's process and pid, its pipes as a
:class:`LineChannel`, its cgroup (and a template's cell) to time and freeze,
and the fault that ended it, if its launcher saw one.

Shared here: the bot's environment, its working folder and user id, its cgroup,
and its jail (:class:`JailSpec`), decided the same way for both launchers.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from abc import ABC, abstractmethod
from typing import Any, Callable, Generic, Protocol, TypeVar

from arena.match import Limits
from arena.sandbox import limits as sandbox_limits
from arena.sandbox.cgroups import BotCgroup
from arena.sandbox.channel import LineChannel
from arena.sandbox.clock import BotClock
from arena.sandbox.freezer import TemplateCell
from arena.sandbox.jailspec import JailSpec
from arena.sandbox.output import StderrCapture
from arena.sandbox.probe import Protections

#: Environment variables a bot inherits from the runner; nothing else (no tokens).
INHERITED_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "NODE_PATH")
#: the name of a working folder on the host (only a bot without a private root has one): WORK_PREFIX + PID-...
WORK_PREFIX = "arena-bot-"
_swept = False  # this process removed the working folders of runners that are gone

_uids: sandbox_limits.UidPool | None = None


def uid_pool() -> sandbox_limits.UidPool:
    """This process's pool of bot user ids (a forked worker makes its own)."""
    global _uids
    if _uids is None or _uids.owner != os.getpid():
        _uids = sandbox_limits.UidPool()
    return _uids


def work_folder() -> str:
    """A new working folder for a bot without a private root: ``arena-bot-PID-*`` in the temporary folder,
    PID this process's. The first call of a process removes such folders of processes that are gone (a runner
    killed with SIGKILL cannot remove its own)."""
    global _swept
    base = tempfile.gettempdir()
    if not _swept:
        _swept = True
        for name in os.listdir(base):
            pid = name[len(WORK_PREFIX):].partition("-")[0]
            if name.startswith(WORK_PREFIX) and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
                shutil.rmtree(os.path.join(base, name), ignore_errors=True)
    return tempfile.mkdtemp(prefix=f"{WORK_PREFIX}{os.getpid()}-", dir=base)


def bot_environment(home: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The environment of a bot process: a few harmless variables of the runner's, and its own home."""
    env = {key: os.environ[key] for key in INHERITED_ENV if key in os.environ}
    env.setdefault("PATH", os.defpath)
    env.update(HOME=home, TMPDIR=home, PYTHONUNBUFFERED="1", PYTHONDONTWRITEBYTECODE="1",
               PYTHONHASHSEED=os.environ.get("PYTHONHASHSEED", "0"))
    env.update(extra or {})
    return env


class GameProcess(Protocol):
    """A game's bot process as the seat sees it: a ``Popen``, or a :class:`ForkedGame`."""

    pid: int

    @property
    def returncode(self) -> int | None: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...


P = TypeVar("P", bound=GameProcess)


class Launcher(ABC, Generic[P]):
    """Starts each game's bot of one seat, and ends it.

    After :meth:`launch`, either :attr:`error` says why there is no bot, or
    :attr:`process`, :attr:`pid` and :attr:`channel` are the game's bot, its
    clock is watching it, and :attr:`jail` is the jail it got.
    """

    def __init__(self, name: str, argv: list[str], limits: Limits, *, isolate: bool, cwd: str | None,
                 env: dict[str, Any] | None, protections: Protections, readable: list[str] | None,
                 timing: BotClock, capture: StderrCapture) -> None:
        self.name = name
        self.argv = argv
        self.limits = limits
        self.isolate = isolate
        self.cwd = cwd
        self.extra_env = env
        self.protections = protections
        self.readable = readable
        self.timing = timing  # the seat's clock: a launcher starts it on each new bot
        self.capture = capture  # the seat's stderr capture
        self.process: P | None = None  # the game's bot process, None between games
        self.pid: int | None = None  # the bot's own pid (not its keeper's)
        self.channel: LineChannel | None = None  # the bot's pipes
        self.cgroup: BotCgroup | None = None
        self.cell: TemplateCell | None = None  # a template's own cgroup (only a template launcher has one)
        self.jail: JailSpec | None = None  # the jail of the last process started
        self.uid: int | None = None
        self.workdir: str | None = None  # a host working folder (only without a private root)
        self.forks = False  # the bot is process 1 of a PID namespace of its own
        self.error: str | None = None  # why the last launch has no bot (the seat's crash at ``start``)
        self.fault: str | None = None  # how the bot broke what its launcher checks (the seat's crash)

    @abstractmethod
    def launch(self) -> None:
        """Start this game's bot (a failure is kept in :attr:`error`)."""

    @abstractmethod
    def limited_pid(self) -> int:
        """The process whose RLIMIT_CPU backstops the bot."""

    @abstractmethod
    def kill(self) -> None:
        """Kill the game's bot and everything it started."""

    @abstractmethod
    def release(self) -> None:
        """Release what the game's bot held (pipes, its clock's watch; a program's cgroup, folder, user id)."""

    def heard(self) -> bool:
        """Take what the launcher's own descriptor (watched by the channel) says during a game; False when
        the game's bot is gone with it."""
        return True

    def before_end(self) -> None:
        """Note what counts before a game's bot is killed (a template's CPU time so far)."""

    def after_game(self) -> None:
        """Prepare the next game once this one ended (a template forks its bot once this one's is reaped)."""

    def close(self) -> None:
        """Free what outlives games (a template and its cgroup)."""

    # -- what both launchers decide the same way --

    def _preexec(self, uid: int | None, forks_games: bool, report: int = -1) -> Callable[[], None]:
        """The sandbox of a new process (:class:`JailSpec`): limits, own user, namespaces, private root, cgroups
        (``report``: where a template's reaper writes how its games ended)."""
        self.jail = JailSpec.for_bot(self.limits, uid=uid, namespaces=self.protections.namespaces,
                                     readable=self.readable, needed=self._paths_needed,
                                     cgroup_files=self.cgroup.join_files if self.cgroup else [],
                                     forks_games=forks_games)
        return self.jail.preexec(report)

    def _work_folder(self) -> str | None:
        """The host folder the bot works in; None when it gets a private root (its home is in its scratch there,
        so a runner killed with SIGKILL leaves nothing of it on the host)."""
        return None if self.readable is not None else work_folder()

    def _new_cgroup(self) -> None:
        if self.isolate and self.protections.cgroups:
            try:
                self.cgroup = BotCgroup(self.limits.memory_mb, sandbox_limits.MAX_TASKS)
            except OSError:
                self.cgroup = None

    def _paths_needed(self) -> list[str]:
        """What a bot with its own user id must reach: the runner's Python, its cwd, its program's files."""
        program = shutil.which(self.argv[0]) or self.argv[0]
        paths = [sys.executable, os.path.realpath(sys.executable), sys.prefix, sys.base_prefix,
                 *sys.path, self.workdir, self.cwd or self.workdir, program, os.path.realpath(program)]
        return [path for path in paths + self.argv[1:] if path and os.path.exists(path)]

    def _take_pipes(self, stdin: int, stdout: int, stderr: int) -> None:
        self.channel = LineChannel(stdin, stdout, stderr, self.capture)

    def _free_host(self) -> None:
        """Remove the bot's cgroup and working folder; give its user id back."""
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = None
        if self.uid is not None:
            uid_pool().give_back(self.uid)
            self.uid = None
