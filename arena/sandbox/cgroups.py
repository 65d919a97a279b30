"""A cgroup per bot: the memory, CPU time and number of all its processes, and stopping them at once.

The runner uses what it may create here (root, or a delegated hierarchy):
the ``memory`` controller (everything the bot's processes hold: heap,
mappings, memfd, tmpfs pages of its /tmp and /dev/shm, System V shm; the same
limit on memory plus swap), the ``pids`` controller (processes and threads),
both from cgroup v1 where they are mounted there (a hybrid layout), else from
the unified hierarchy (``memory.max``, ``memory.swap.max``, ``pids.max``:
the runner enables them below its own cgroup, moving its own processes into a
leaf first, see :func:`_enable_v2`); and the v2 core files, which need no
controller: ``cgroup.freeze`` (the whole process tree stopped between
decisions; unlike the v1 freezer, a frozen task still dies of SIGKILL, so a
frozen bot dies with the runner), ``cpu.stat`` (CPU time of every process and
thread, also those already gone) and ``cgroup.kill``.

Bot processes join their cgroups themselves, between ``fork`` and ``exec``
(:attr:`BotCgroup.join_files`), so the bot's first instruction is already counted.
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
import time
from dataclasses import dataclass

MOUNTS = "/proc/self/mounts"
_names = itertools.count()


#: what a bot is held to without a memory cgroup
FALLBACK = "rlimits and a size-capped /tmp only"
#: how to run arena in a cgroup v2 subtree of its own, where systemd manages the cgroups
DELEGATE_HINT = ("for memory limits, run arena in a delegated cgroup v2 subtree: "
                 "systemd-run --user --scope -p Delegate=yes arena ... (or run it as root)")


@dataclass(frozen=True)
class Hierarchies:
    """Where each part lives here (None: not usable): folders under which a bot's cgroup can be made."""

    memory: str | None  # v1 memory controller, or a v2 folder with the memory controller on
    pids: str | None
    core: str | None  # a v2 folder: freeze, kill, cpu.stat
    memory_v2: bool = False
    #: why there is no memory cgroup, what holds a bot instead and how to get one (empty when there is one)
    memory_off: str = ""


def _own_path(controller: str) -> str:
    """This process's cgroup path in the v1 hierarchy of ``controller`` ("" for v2)."""
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if controller in controllers.split(","):
                return path
    return "/"


def _mounts() -> tuple[dict[str, str], str | None]:
    """The v1 mount point of each controller, and the v2 mount point."""
    v1: dict[str, str] = {}
    v2 = None
    with open(MOUNTS) as handle:
        for line in handle:
            _, point, kind, options = line.split()[:4]
            if kind == "cgroup2":
                v2 = v2 or point
            elif kind == "cgroup":
                for option in options.split(","):
                    v1.setdefault(option, point)
    return v1, v2


def _sweep(folder: str) -> None:
    """Remove the empty cgroups of runners that are gone (killed before they could remove their own).

    A template's v2 cgroup has children (its games' two slots, its own
    cell): they go first, and only when nothing in the whole tree runs (its
    ``cgroup.events`` says ``populated 0``), so that a live runner's empty slot
    is never taken, whatever ``/proc`` this runner sees. Left there, each runner
    killed with a template added a tree that every later runner tried in vain
    to remove when it started (thousands on a shared machine: 45 ms of CPU at
    each start).
    """
    for name in os.listdir(folder):
        parts = name.split("-")
        if len(parts) == 3 and parts[0] == "bot" and parts[1].isdigit() and not os.path.exists(f"/proc/{parts[1]}"):
            path = os.path.join(folder, name)
            if _unpopulated(path):
                for child in _children(path):
                    _rmdir(child)
            _rmdir(path)


def _unpopulated(folder: str) -> bool:
    """Whether the v2 cgroup ``folder`` and all below it hold no process (False for a v1 one: it has no
    ``cgroup.events``, nor children of arena's)."""
    try:
        with open(os.path.join(folder, "cgroup.events")) as handle:
            return "populated 0" in handle.read().splitlines()
    except OSError:
        return False


def _children(folder: str) -> list[str]:
    """The cgroups below ``folder``, deepest first."""
    try:
        entries = [entry.path for entry in os.scandir(folder) if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    return [below for entry in entries for below in _children(entry)] + entries


def _rmdir(folder: str) -> None:
    try:
        os.rmdir(folder)
    except OSError:
        pass  # still holds a process, or memory the kernel is releasing


def _try_folder(parent: str, probe_file: str) -> str | None:
    """``parent/arena`` when this process can make cgroups in it (``probe_file`` present), else None."""
    folder = os.path.join(parent, "arena")
    try:
        os.makedirs(folder, exist_ok=True)
        _sweep(folder)
        test = os.path.join(folder, f"probe-{os.getpid()}")
        os.mkdir(test)
        try:
            usable = os.path.exists(os.path.join(test, probe_file)) and os.access(
                os.path.join(test, "cgroup.procs"), os.W_OK)
        finally:
            os.rmdir(test)
    except OSError:
        return None
    return folder if usable else None


@functools.cache
def hierarchies() -> Hierarchies:
    """What this runner can use (found once per process).

    The v1 ``memory`` and ``pids`` controllers where they are mounted (a
    hybrid layout); else, on the unified hierarchy alone (cgroup v2), the v2
    ``memory`` and ``pids`` controllers, enabled below this process's cgroup
    by :func:`_enable_v2` where it may (root, or a subtree delegated to its user).
    """
    try:
        v1, v2 = _mounts()
    except OSError:
        return Hierarchies(None, None, None, memory_off=f"no memory cgroup can be made here (cgroups cannot be "
                                                        f"read): {FALLBACK}")
    core = None
    own = "/"
    if v2:
        try:
            with open("/proc/self/cgroup") as handle:
                own = next((line.split(":", 2)[2].strip() for line in handle if line.startswith("0::")), "/")
        except OSError:
            pass
        if os.path.basename(own) == RUNNER_LEAF:  # an earlier runner moved this one's processes there
            own = os.path.dirname(own)
        core = _try_folder(v2 + own.rstrip("/"), "cgroup.freeze")
    memory = pids = None
    memory_v2 = False
    why = ""
    enabled: set[str] = set()
    if core and not {"memory", "pids"} <= set(v1):
        enabled, why = _enable_v2(os.path.dirname(core), [name for name in ("memory", "pids") if name not in v1])
    if "memory" in v1:
        memory = _try_folder(v1["memory"] + _own_path("memory").rstrip("/"), "memory.limit_in_bytes")
        why = "cgroup v1: this user may not make one"
    elif "memory" in enabled:
        memory = _try_folder(os.path.dirname(core or ""), "memory.max")
        memory_v2 = memory is not None
    elif not v2:
        why = "no cgroup hierarchy is mounted"
    elif not core:
        why = "cgroup v2: this user may not make cgroups below its own"
    if "pids" in v1:
        pids = _try_folder(v1["pids"] + _own_path("pids").rstrip("/"), "pids.max")
    elif "pids" in enabled:
        pids = _try_folder(os.path.dirname(core or ""), "pids.max")
    memory_off = ""
    if memory is None:
        memory_off = f"no memory cgroup can be made here ({why or 'refused'}): {FALLBACK}"
        if v2 and "memory" not in v1:
            memory_off += f"; {DELEGATE_HINT}"
    return Hierarchies(memory, pids, core, memory_v2, memory_off)


#: how long the processes of an ended game (killed with its bot) may stay in its slot before they count as strays
STRAY_WAIT_S = 0.5
#: the leaf of a template's cgroup holding the template itself (its cell: :class:`arena.sandbox.freezer.TemplateCell`)
CELL = "template"
#: the leaf a runner moves its own cgroup's processes into, so that controllers can be enabled below it
RUNNER_LEAF = "arena-runner"


def _enable_v2(own: str, wanted: list[str]) -> tuple[set[str], str]:
    """Enable the v2 controllers ``wanted`` for the cgroups arena makes below ``own`` (this process's cgroup);
    the controllers enabled, and why the memory controller is not (empty when it is).

    A cgroup that holds processes cannot enable controllers for its children
    (cgroup v2's rule of no internal processes): where ``own`` does, its
    processes (this runner, its shell's) are moved into the leaf
    ``own/arena-runner`` first, as systemd's delegation expects. Then
    ``own/arena`` enables them too, for the bots' cgroups below it.
    """
    try:
        with open(os.path.join(own, "cgroup.controllers")) as handle:
            available = set(handle.read().split())
    except OSError:
        return set(), "cgroup v2 cannot be read here"
    offered = [name for name in wanted if name in available]
    enabled = _enable_in(own, offered)
    if "memory" not in wanted or "memory" in enabled:
        return enabled, ""
    if "memory" not in offered:
        return enabled, f"cgroup v2: the memory controller is not offered to {own}"
    return enabled, f"cgroup v2: the memory controller cannot be enabled below {own}"


def _enable_in(own: str, names: list[str]) -> set[str]:
    """Enable ``names`` in ``own``'s and ``own/arena``'s ``cgroup.subtree_control`` (moving ``own``'s processes
    into :data:`RUNNER_LEAF` when they stand in the way); the controllers enabled in both."""
    if not names:
        return set()
    control = " ".join(f"+{name}" for name in names)
    for attempt in range(3):
        try:
            _write(os.path.join(own, "cgroup.subtree_control"), control)
            break
        except OSError:
            if attempt == 2 or not _move_into_leaf(own):
                return set()
    arena = os.path.join(own, "arena")
    try:
        os.makedirs(arena, exist_ok=True)
        _write(os.path.join(arena, "cgroup.subtree_control"), control)
        with open(os.path.join(arena, "cgroup.subtree_control")) as handle:
            return set(handle.read().split()) & set(names)
    except OSError:
        return set()


def _move_into_leaf(own: str) -> bool:
    """Move every process of the cgroup ``own`` into its leaf :data:`RUNNER_LEAF`; whether all went."""
    leaf = os.path.join(own, RUNNER_LEAF)
    try:
        os.makedirs(leaf, exist_ok=True)
        with open(os.path.join(own, "cgroup.procs")) as handle:
            pids = [line.strip() for line in handle if line.strip()]
    except OSError:
        return False
    moved = True
    for pid in pids:
        try:
            _write(os.path.join(leaf, "cgroup.procs"), pid)
        except ProcessLookupError:
            continue  # gone meanwhile
        except OSError:
            moved = False  # a kernel thread, or a process this user may not move
    return moved


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


class BotCgroup:
    """The cgroups of one bot process tree (one per usable hierarchy), made at once and removed at once."""

    def __init__(self, memory_mb: int, max_tasks: int, where: Hierarchies | None = None) -> None:
        where = where or hierarchies()
        name = f"bot-{os.getpid()}-{next(_names)}"
        self.folders: list[str] = []
        self.memory = self.pids = self.core = None
        if where.memory:
            self.memory = self._make(where.memory, name)
            limit = str(memory_mb << 20)
            if where.memory_v2:
                _write(os.path.join(self.memory, "memory.max"), limit)
                try:
                    _write(os.path.join(self.memory, "memory.swap.max"), "0")
                except OSError:
                    pass  # no swap accounting (no such file): swap is off or not counted
            else:
                _write(os.path.join(self.memory, "memory.limit_in_bytes"), limit)
                try:
                    _write(os.path.join(self.memory, "memory.memsw.limit_in_bytes"), limit)
                except OSError:
                    pass  # no swap accounting: swap is off or not counted
        if where.pids:
            self.pids = self._make(where.pids, name)
            _write(os.path.join(self.pids, "pids.max"), str(max_tasks))
        if where.core:
            self.core = self._make(where.core, name)
            self.freeze_fd = os.open(os.path.join(self.core, "cgroup.freeze"), os.O_WRONLY)
            self.cpu_fd = os.open(os.path.join(self.core, "cpu.stat"), os.O_RDONLY)
        self.frozen = False
        self.memory_v2 = where.memory_v2
        self.slots: list[dict[str, int]] = []  # file descriptors of each slot: freeze, cpu, procs, folder, members
        self.places: list[int] = []  # its own and its template's cell's cgroup.procs, open to read (:meth:`strays`)

    def open_slots(self, owner: int | None = None) -> None:
        """For a template: two child cgroups (v2) that games take in turn. Each game's bot is born in its
        slot (see :func:`arena.sandbox.limits.fork_game`), which then holds that game alone: what is timed
        and frozen. ``owner``: the template's user id, allowed to start processes in the slots (it may
        write their ``cgroup.procs`` and this folder's, their common ancestor's; no other file, and it may not
        look into a slot's folder: the one it is sent for each game names nothing it can open). None: the
        template has the runner's user id (an unprivileged runner), so it owns the slots' folders as the runner
        does and any handle on one would open its files (``cpu.stat``: its earlier games' CPU time, whatever the
        folder's mode): it is sent, with each slot's ``cgroup.procs``, its own cell's (:data:`CELL`, made
        first) to move back to once it forked the game there, and never a folder."""
        if not self.core or self.slots:
            return
        os.close(self.freeze_fd)
        os.close(self.cpu_fd)
        if owner is not None:
            os.chown(os.path.join(self.core, "cgroup.procs"), owner, -1)
        for number in range(2):
            folder = self._make(self.core, f"slot{number}")
            if owner is not None:
                os.chown(os.path.join(folder, "cgroup.procs"), owner, -1)
                # no way into the slot, nor up from it, for the template holding its folder to clone a game there:
                # it would read its games' cpu.stat (their CPU time), and other seats' (the kernel needs none of it)
                os.chmod(folder, 0o700)
            self.slots.append({
                "freeze": os.open(os.path.join(folder, "cgroup.freeze"), os.O_WRONLY),
                "cpu": os.open(os.path.join(folder, "cpu.stat"), os.O_RDONLY),
                "procs": os.open(os.path.join(folder, "cgroup.procs"), os.O_WRONLY),
                "folder": os.open(folder, os.O_PATH | os.O_DIRECTORY) if owner is not None else
                os.open(os.path.join(self.core, CELL, "cgroup.procs"), os.O_WRONLY),
                "members": os.open(os.path.join(folder, "cgroup.procs"), os.O_RDONLY),  # read by :meth:`strays`
            })
        self.use_slot(0)

    def use_slot(self, number: int) -> None:
        """Time and freeze slot ``number`` from now on (the game being played)."""
        slot = self.slots[number % 2]
        if self.frozen:
            self.thaw()
        self.freeze_fd, self.cpu_fd = slot["freeze"], slot["cpu"]

    def slot_fds(self, number: int) -> list[int]:
        """Slot ``number``'s open ``cgroup.procs`` and folder (or the template's cell's ``cgroup.procs``: see
        :meth:`open_slots`), sent to the template with a game's request."""
        slot = self.slots[number % 2]
        return [slot["procs"], slot["folder"]]

    def leaf(self, name: str) -> str:
        """A child cgroup ``name`` of the v2 folder (a template's own, frozen apart from its games' slots),
        removed with the others."""
        assert self.core is not None
        return self._make(self.core, name)

    def _make(self, parent: str, name: str) -> str:
        folder = os.path.join(parent, name)
        if folder not in self.folders:
            os.mkdir(folder)
            self.folders.append(folder)
        return folder

    @property
    def join_files(self) -> list[str]:
        """The ``cgroup.procs`` files a process writes ``0`` to, to join this bot's cgroups."""
        return [os.path.join(folder, "cgroup.procs") for folder in self.folders]

    def cpu_ns(self) -> int:
        """CPU time (ns) used by every process and thread that was ever in the cgroup."""
        return int(os.pread(self.cpu_fd, 64, 0).split(None, 2)[1]) * 1000  # the first line: usage_usec N

    def freeze(self) -> None:
        """Stop every process of the bot (returns at once; the kernel stops them within microseconds)."""
        if not self.frozen:
            os.pwrite(self.freeze_fd, b"1", 0)
            self.frozen = True

    def thaw(self) -> None:
        if self.frozen:
            os.pwrite(self.freeze_fd, b"0", 0)
            self.frozen = False

    def strays(self, game: int, number: int, keep: set[int], wait_s: float = STRAY_WAIT_S) -> int:
        """How many processes of a template's cgroup are not where they belong: its game slots hold the bot of
        game ``number`` (``game``, in that game's slot) and nothing else, its cell and its keeper's cgroup nothing
        but ``keep`` (the template, its keeper, its reaper). A template may start processes in its slots and its
        keeper's cgroup (it forks its games there), so a process of its own moved there (the bot's code) would run
        beside its games, out of its frozen cell, and watch them. Read in two passes in a row (a process moving
        between two reads of one pass is seen by the other), once those of an ended game (killed with its bot,
        dying) had ``wait_s`` to go; 0 without slots. About 1 us a read: the files stay open."""
        if not self.slots:
            return 0
        if not self.places:
            for name in ("", CELL):
                try:
                    self.places.append(os.open(os.path.join(self.core or "", name, "cgroup.procs"), os.O_RDONLY))
                except OSError:  # gone (the template is being closed): nothing runs there
                    self.places.append(-1)
        deadline, clean = 0.0, 0
        while clean < 2:
            wrong = (_members(self.places[0]) | _members(self.places[1])) - keep
            for slot, fds in enumerate(self.slots):
                wrong |= _members(fds["members"]) - ({game} if slot == number % 2 else set())
            clean = 0 if wrong else clean + 1
            if wrong:
                now = time.monotonic()
                deadline = deadline or now + wait_s
                if now >= deadline:
                    return len(wrong)
                time.sleep(0.002)
        return 0

    def pids_inside(self) -> list[int]:
        """The processes in the bot's cgroup (ids as this runner sees them)."""
        folder = self.core or self.pids or self.memory
        if folder is None:
            return []
        try:  # a few system calls, no file object: asked once a fresh game
            fd = os.open(os.path.join(folder, "cgroup.procs"), os.O_RDONLY)
        except (OSError, TypeError):
            return []
        try:
            text = b""
            while chunk := os.read(fd, 65536):
                text += chunk
        except OSError:
            return []
        finally:
            os.close(fd)
        return [int(line) for line in text.split()]

    def kill(self) -> None:
        """SIGKILL every process in the cgroup (frozen ones too)."""
        if self.core and os.path.exists(os.path.join(self.core, "cgroup.kill")):
            _write(os.path.join(self.core, "cgroup.kill"), "1")
            return
        for pid in self.pids_inside():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def memory_kills(self) -> int:
        """How many processes the memory limit killed."""
        if not self.memory:
            return 0
        name = "memory.events" if self.memory_v2 else "memory.oom_control"
        try:
            with open(os.path.join(self.memory, name)) as handle:
                for line in handle:
                    key, _, value = line.partition(" ")
                    if key == "oom_kill":
                        return int(value)
        except OSError:
            pass
        return 0

    def remove(self) -> None:
        """Kill what is left and remove the cgroups (waiting up to a second for the kernel to let them go;
        one still busy then is left for the next runner's sweep)."""
        self.kill()
        for fd in self.places:
            if fd >= 0:
                os.close(fd)
        self.places = []
        if self.slots:
            for slot in self.slots:
                for fd in slot.values():
                    os.close(fd)
            self.slots = []
        elif self.core:
            os.close(self.freeze_fd)
            os.close(self.cpu_fd)
        deadline = time.monotonic() + 1
        for folder in reversed(self.folders):
            while True:
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.002)
        self.folders = []


def _members(procs: int) -> set[int]:
    """The processes a cgroup's open ``cgroup.procs`` lists now (ids as this runner sees them; none when it is
    gone or not open)."""
    try:
        return {int(line) for line in os.pread(procs, 65536, 0).split()}  # a few: a game's bot, a template's own
    except OSError:
        return set()
