"""Which protections this machine gives bot processes, found once per runner by trying them."""

from __future__ import annotations

import ast
import functools
import glob
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass

from arena.errors import SandboxError
from arena.sandbox import cgroups, jail, keyring, limits, seccomp
from arena.sandbox.limits import UID_BASE, hidden_ancestors


#: the protections a tournament file may require (``[sandbox] require``), and what each needs
REQUIRABLE = {
    "namespaces": "new user/PID/network/IPC/mount namespaces per bot",
    "filesystem": "a private root per bot: only the runtime and its own files, a private /tmp",
    "ipc": "a private IPC namespace and /dev/shm per bot",
    "memory": "a memory cgroup per bot (memfd, /tmp, /dev/shm and SysV shm counted)",
    "cpu": "a cgroup per bot: CPU of all its processes counted, all stopped between decisions",
    "seccomp": "a system-call filter per bot: keyrings, locks, watches, tracing, mounts refused",
    "keyring": "a fresh, empty session keyring per bot: none of the runner's keys possessed",
    "secret-seed": "deals drawn from a secret (checked by the tournament, not the sandbox)",
}


@dataclass(frozen=True)
class Protections:
    """What the process sandbox uses here.

    - ``root``: whether the runner runs as root;
    - ``own_user``: (root only) every bot runs as an unprivileged user id of
      its own, so it can neither write the runner's files nor signal it;
    - ``namespaces``: bots get new network, PID, IPC and mount namespaces: no
      network, and a private process tree that dies whole with the bot;
    - ``cpu_clock``: how a bot's CPU time is read without a cgroup: ``process`` (the kernel's
      per-process CPU clock, all threads), ``schedstat`` (the main thread's
      ``/proc/PID/schedstat``) or ``wall`` (no CPU clock: wall time only);
    - ``filesystem``: a private root (:mod:`arena.sandbox.jail`);
    - ``memory_cgroup``, ``core_cgroup``, ``pids_cgroup``: per-bot cgroups (:mod:`arena.sandbox.cgroups`);
    - ``fork_template``: Python bots are forked per game from a template, each game in namespaces of its own;
    - ``seccomp``: every bot process runs under a system-call filter (:mod:`arena.sandbox.seccomp`);
    - ``keyring``: every bot process holds a fresh session keyring (:mod:`arena.sandbox.keyring`).
    """

    root: bool
    own_user: bool
    namespaces: bool
    cpu_clock: str
    filesystem: bool = False
    memory_cgroup: bool = False
    core_cgroup: bool = False
    pids_cgroup: bool = False
    fork_template: bool = False
    seccomp: bool = False
    keyring: bool = False
    reasons: tuple[tuple[str, str], ...] = ()

    @property
    def cgroups(self) -> bool:
        return self.memory_cgroup or self.core_cgroup or self.pids_cgroup

    def has(self, name: str) -> bool:
        """Whether the protection ``name`` of :data:`REQUIRABLE` is on."""
        return {
            "namespaces": self.namespaces,
            "filesystem": self.filesystem,
            "ipc": self.namespaces and self.filesystem,
            "memory": self.memory_cgroup,
            "cpu": self.core_cgroup,
            "seccomp": self.seccomp,
            "keyring": self.keyring,
            "secret-seed": True,
        }[name]

    def off(self) -> list[str]:
        """What is off here, one phrase each (``name (why)``), e.g. for ``arena run``'s first line."""
        why = dict(self.reasons)
        return [f"{name} ({why.get(name, 'refused by this machine')})"
                for name in REQUIRABLE if name != "secret-seed" and not self.has(name)]

    def rows(self) -> list[tuple[str, str, str]]:
        """``(protection, state, what it means)`` rows for ``arena sandbox``."""
        why = dict(self.reasons)

        def state(on: bool, name: str) -> str:
            return "on" if on else f"off ({why.get(name, 'refused by this machine')})"

        if self.own_user:
            user = ("on", "each bot runs as a user id of its own: it cannot write the runner's files "
                          "nor signal it")
        elif self.root:
            user = ("off (setting a user id failed)", "bots run as root: they can write what root can")
        else:
            user = ("off (runner is not root)", "bots run as the runner's user (in a user namespace)")
        if self.core_cgroup:
            timing = ("cpu (cgroup) + wall cap", "a decision is timed on the CPU time of all the bot's processes "
                      "and threads; wall time counts at a third")
        elif self.cpu_clock != "wall":
            timing = (f"cpu ({self.cpu_clock}) + wall cap", "the bot's main process only: CPU its children "
                      "burn is not charged")
        else:
            timing = ("wall", "a decision is timed on the wall clock")
        return [
            ("process per bot", "on", "each seat's bot runs in a process of its own, JSON lines over pipes"),
            ("time", *timing),
            ("stopped between decisions", "on (freezer)" if self.core_cgroup else "process group only (SIGSTOP)",
             "what a bot computes between its turns counts against its next decision; seen doing it, all its "
             "processes are frozen while others think" if self.core_cgroup else
             "a child that leaves the bot's process group keeps running"),
            ("memory", state(self.memory_cgroup, "memory"),
             "a memory cgroup counts all the bot holds: heap, mappings, memfd, /tmp, /dev/shm, SysV shm"
             if self.memory_cgroup else "RLIMIT_DATA/AS per process and a size-capped /tmp only"),
            ("processes", "on (pids cgroup)" if self.pids_cgroup else ("on (RLIMIT_NPROC)" if self.own_user else
             "off (no pids cgroup, no own user id)"), "at most 128 processes and threads per bot"),
            ("files", "on", "at most 256 open files, each written file at most memory_mb, no core dumps"),
            ("own user id", *user),
            ("private filesystem", state(self.filesystem, "filesystem"),
             "the bot sees only the runtime, its own files (read-only) and a private /tmp, /dev/shm and home"
             + "; its /proc is a full one of its PID namespace: its own processes and the machine's counters "
               "(loadavg, stat, meminfo, ...), which honest libraries read and another bot moves (a tournament's "
               '[sandbox] proc = "processes": its processes only)'),
            ("private IPC", state(self.has("ipc"), "ipc"), "own IPC namespace and /dev/shm: no shared memory "
             "or message queue with other bots" + ("; a Python bot's games share their template's, where the filter "
                                                  "refuses System V IPC and POSIX message queues"
                                                  if self.seccomp and self.fork_template else "")),
            ("no network", state(self.namespaces, "namespaces"),
             "a network namespace of its own, no interface up; a Python bot's games share their template's, "
             "where the filter refuses every socket" if self.seccomp and self.fork_template else
             "a network namespace of its own (each game's too), no interface up"),
            ("private process tree", state(self.namespaces, "namespaces"),
             "PID namespace: the bot sees and signals only its own processes; all die with it"),
            ("fresh Python bot per game", "fork of a template" if self.fork_template else "new interpreter" + (
                " (forking a template's games refused: a clone as its reaper's child, hidepid or ns_last_pid)"
                if self.filesystem else ""),
             "a game's bot is forked from a template that imported it, in namespaces of its own, the child of "
             "the template's reaper: the template learns nothing of how its games end" + (
                 "" if self.core_cgroup else "; without the freezer it is stopped (SIGSTOP) while they play, "
                 "its games in sessions of their own")
             if self.fork_template else "each game starts the bot's host process afresh"),
            ("no new privileges", "on",
             "NO_NEW_PRIVS: set-user-id programs give nothing; RLIMIT_CPU hard limit finite"),
            ("system-call filter", state(self.seccomp, "seccomp"),
             "seccomp: keyrings, file locks and watches, tracing, mounts, namespaces, modules, page-cache eviction "
             "and probes refused (EPERM); "
             "sockets and System V IPC too for a Python bot's template and games"),
            ("fresh keyring", state(self.keyring, "keyring"),
             "a new, empty session keyring per bot: none of the runner's keys is possessed"),
        ]


def _cpu_clock() -> str:
    try:
        time.clock_gettime_ns(((~os.getpid()) << 3) | 2)  # this process's CPU clock, by pid
        return "process"
    except (OSError, AttributeError):
        pass
    if os.path.exists(f"/proc/{os.getpid()}/schedstat"):
        return "schedstat"
    return "wall"


@functools.cache
def python_paths() -> list[str]:
    """The runner's Python: its prefix (standard library, site-packages), and the packages installed
    in editable mode (their folders lie outside the prefix: arena's own, the reference bots')."""
    import arena

    packages = [path for path in sys.path if path.endswith(("site-packages", "dist-packages"))]
    # every package folder on sys.path: a venv layered on another (a .pth naming the outer one) imports from both
    paths = [sys.prefix, sys.base_prefix, os.path.dirname(os.path.realpath(sys.executable)),
             os.path.dirname(os.path.abspath(arena.__file__)), *packages]
    for folder in set(packages):
        for finder in glob.glob(os.path.join(glob.escape(folder), "__editable___*_finder.py")):
            try:
                with open(finder) as handle:
                    match = re.search(r"^MAPPING\b.*?=\s*(\{.*?\})\s*$", handle.read(), re.M)
                paths += ast.literal_eval(match.group(1)).values() if match else []
            except (OSError, ValueError, SyntaxError):
                continue
    found = list(dict.fromkeys(path for path in paths if os.path.exists(path)))
    # a folder inside another one listed is bound with it (binding it again trips the jail's /tmp handling)
    return [path for path in found
            if not any(path != other and path.startswith(other.rstrip("/") + "/") for other in found)]


#: run in a jailed interpreter: make a game's namespaces and scratch as a template's fork does (the game's bot the
#: child of the template's reaper, which its /proc hides)
_FORK_TRIAL = """
import os, sys
from arena.sandbox import jail, limits
ids = os.getuid(), os.getgid()
seal = limits.game_seal()
done, told = os.pipe()
pid, _ = limits.fork_game()
if pid == 0:
    limits.own_namespaces(ids); jail.mount_proc(); jail.fresh_scratch(8, ids); jail.drop_capabilities(); seal()
    open("/tmp/x", "w").write("x"); os.write(told, b"ok"); os._exit(0)
os.close(told)
sys.exit(0 if os.read(done, 2) == b"ok" and not os.path.exists("/proc/1/stat") else 1)
"""


def _runs(own_user: bool, namespaces: bool, filesystem: bool = False, code: str = "", template: bool = False) -> bool:
    """Whether Python starts as a bot would (as root: under a user id of its own)."""
    return _passed(_trial(own_user, namespaces, filesystem, code, template))


def _trial(own_user: bool, namespaces: bool, filesystem: bool = False, code: str = "", template: bool = False
           ) -> subprocess.Popen[bytes] | None:
    """A Python started as a bot would be, running ``code`` (None if it could not even be started).

    Started, not awaited: :func:`protections` checks the other things meanwhile, and starts
    trials together when it needs several.
    """
    needed = [sys.executable, os.path.realpath(sys.executable), sys.prefix, sys.base_prefix]
    open_up = (hidden_ancestors([path for path in needed if os.path.exists(path)], UID_BASE)
               if own_user and not filesystem else [])
    readable = jail.readable_paths(python_paths()) if filesystem else None
    preexec = limits.preexec([], 60, uid=UID_BASE if own_user else None, open_up=open_up, namespaces=namespaces,
                             readable=readable, scratch_mb=16, forks_games=template)
    env = {"PATH": os.defpath, "PYTHONPATH": os.path.dirname(python_paths()[-1]), "HOME": "/"}
    try:
        return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env, cwd="/", preexec_fn=preexec)
    except (OSError, subprocess.SubprocessError):
        return None


def _passed(trial: subprocess.Popen[bytes] | None, timeout: float = 30) -> bool:
    """Whether ``trial`` ended well within ``timeout`` seconds (killed and reaped if not)."""
    if trial is None:
        return False
    try:
        return trial.wait(timeout) == 0
    except subprocess.TimeoutExpired:
        trial.kill()
        trial.wait()
        return False


#: a private root shows /tmp and hides the runner's home
_FILESYSTEM_TRIAL = "import os; assert os.path.isdir('/tmp') and not os.path.exists('/root/.bashrc')"


def _trials() -> list[tuple[bool, bool]]:
    """``(own user id, namespaces)`` to try, the most protected first."""
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    return [(True, True), (True, False), (False, False)] if root else [(False, True), (False, False)]


def _whole_trial() -> subprocess.Popen[bytes] | None:
    """The usual case in one interpreter: a template's jail that shows a private root and forks a game's bot
    under it proves the namespaces and the private root too (about 0.05 s of CPU and of wall time a run)."""
    return _trial(*_trials()[0], filesystem=True, code=_FILESYSTEM_TRIAL + "\n" + _FORK_TRIAL, template=True)


#: the whole trial started ahead by :func:`start_probe`, with the process that started it (a worker forked
#: meanwhile cannot wait for it: it is not its child)
_started: tuple[int, subprocess.Popen[bytes] | None] | None = None


def start_probe() -> None:
    """Start probing now, without waiting: a command that will sandbox bots calls it first thing, so that the
    trial's interpreter boots while arena imports the rest and reads its input; :func:`protections` collects it."""
    global _started
    if _started is None and protections.cache_info().currsize == 0:
        _started = (os.getpid(), _whole_trial())


@functools.cache
def protections() -> Protections:
    """The protections bots get on this machine (tried once per process, then remembered)."""
    global _started
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    trials = _trials()
    likely = trials[0]
    whole = _started[1] if _started is not None and _started[0] == os.getpid() else _whole_trial()
    _started = None
    where = cgroups.hierarchies()  # meanwhile
    filter_off, keyring_off = seccomp.refusal(), keyring.refusal()
    passed = [True] * 3 if _passed(whole) else [  # else each part in its own, all at once
        _passed(trial) for trial in [_trial(*likely), _trial(*likely, filesystem=True, code=_FILESYSTEM_TRIAL),
                                     _trial(*likely, filesystem=True, code=_FORK_TRIAL, template=True)]]
    if passed[0]:
        own_user, namespaces = likely
        filesystem, fork_template = passed[1], passed[1] and passed[2]
    else:  # the others were tried as the most protected one: each weaker one is tried again, in turn
        own_user, namespaces = next(
            ((own_user, namespaces) for own_user, namespaces in trials[1:]
             if (not own_user and not namespaces) or _runs(own_user, namespaces)),
        )
        filesystem = namespaces and _runs(own_user, namespaces, filesystem=True, code=_FILESYSTEM_TRIAL)
        fork_template = filesystem and _runs(own_user, namespaces, filesystem=True, code=_FORK_TRIAL, template=True)
    reasons = []
    if not namespaces:
        reasons += [(name, "namespaces refused") for name in ("namespaces", "filesystem", "ipc")]
    if namespaces and not filesystem:
        reasons += [("filesystem", "mounting a private root refused"), ("ipc", "no private /dev/shm")]
    reasons += [(name, why) for name, why in (("seccomp", filter_off), ("keyring", keyring_off)) if why]
    if not where.memory:
        reasons.append(("memory", where.memory_off))  # why, what holds a bot instead, and how to get one
    if not where.core:
        reasons.append(("cpu", "no cgroup v2 folder can be made here: main process timed, process group stopped"))
    return Protections(root=root, own_user=own_user, namespaces=namespaces, cpu_clock=_cpu_clock(),
                       filesystem=filesystem, memory_cgroup=bool(where.memory), core_cgroup=bool(where.core),
                       pids_cgroup=bool(where.pids), fork_template=fork_template, seccomp=filter_off is None,
                       keyring=keyring_off is None, reasons=tuple(reasons))


def check_required(names: list[str]) -> None:
    """Raise :class:`SandboxError` naming every protection in ``names`` that is off on this machine.

    ``secret-seed`` is known but not the sandbox's to check (the tournament checks it).
    """
    unknown = [name for name in names if name not in REQUIRABLE]
    if unknown:
        raise SandboxError(f"unknown sandbox protection {unknown[0]!r} (known: {', '.join(REQUIRABLE)})")
    here = protections()
    missing = [phrase for phrase in here.off() if phrase.split(" ", 1)[0] in names]
    if missing:
        raise SandboxError("required sandbox protections are off on this machine: " + "; ".join(missing))


def weaknesses() -> str:
    """One line saying which protections are off here (for ``arena run``'s first line), or that all are on."""
    off = protections().off()
    if not off:
        return "sandbox: every protection is on (" + ", ".join(name for name in REQUIRABLE
                                                              if name != "secret-seed") + ")"
    return "sandbox: OFF on this machine: " + "; ".join(off)
