"""What the runner checks, from outside, of a game's bot forked by a template before its game starts.

A game's jail is made by its template's Python (:mod:`arena.sandbox.host`),
which imported the bot: the bot's module code may have changed that code, so
that a game's bot keeps something of its template (and through it of earlier
games). Once the game's bot says its jail is made, and before it is sent
anything (so before any of the bot's code runs in it), the runner reads
through ``/proc`` that it holds nothing but its own: namespaces that are not
its template's (but its network and IPC namespaces, where the template's
filter refuses every socket and IPC object), no open descriptor but its game's pipes (and devices
such as /dev/null), no shared mapping, a scratch of its own for ``/tmp``,
``/dev/shm`` and its home, and that it is not dumpable (its template cannot
reach its memory). Nothing of the template can be regained later: the
template is frozen but while it forks, and its game's bot can name neither
it nor its memory.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from arena.sandbox.kernel import shared_mappings

NAMESPACES = ("mnt", "pid", "net", "ipc", "user")
#: those a game may share with its template where the template's filter keeps them empty
SHARED = ("net", "ipc")
SCRATCH_PLACES = ("/tmp", "/dev/shm", "/home/bot")
#: a file only a full /proc shows (``[sandbox] proc = "processes"`` hides it: arena.sandbox.jail.PROC_OPTIONS)
MACHINE_FILE = "/proc/loadavg"


@dataclass(frozen=True)
class TemplateMarks:
    """What of a template its games' bots must not share, read once per template."""

    namespaces: tuple[str, ...]
    scratch: int | None  # the device of its /tmp (None: no private root, no scratch to compare)
    owner: int  # the user its dumpable /proc files belong to
    #: its /proc shows processes only (``[sandbox] proc = "processes"``): so must its games'
    processes_only: bool = False

    @classmethod
    def of(cls, template: int, scratch: bool) -> TemplateMarks:
        """``OSError`` when the template is gone or cannot be read."""
        return cls(tuple(os.readlink(f"/proc/{template}/ns/{name}") for name in NAMESPACES),
                   os.stat(f"/proc/{template}/root/tmp").st_dev if scratch else None,
                   os.stat(f"/proc/{template}/mem").st_uid,
                   scratch and not os.path.exists(f"/proc/{template}/root{MACHINE_FILE}"))


def held_from_template(game: int, template: TemplateMarks, pipes: set[tuple[int, int]], *,
                       shared: bool = False) -> str:
    """What the game's bot ``game`` holds of its ``template`` ("" when nothing), read through /proc;
    ``pipes`` are (device, inode) of its game's pipes. ``OSError`` when it is gone or cannot be read.

    With ``shared`` its network and IPC namespaces may be its template's: the template runs under the filter
    that refuses every socket and IPC object to it and all it starts (put there by the runner before its first
    instruction, so its code cannot lift it), and nothing in those namespaces can be reached or changed."""
    held = [f"its {name} namespace" for name, mark in zip(NAMESPACES, template.namespaces)
            if not (shared and name in SHARED) and os.readlink(f"/proc/{game}/ns/{name}") == mark]
    folder = f"/proc/{game}/fd"
    for name in os.listdir(folder):
        try:
            status = os.stat(os.path.join(folder, name))
        except FileNotFoundError:
            continue  # closed meanwhile
        if not stat.S_ISCHR(status.st_mode) and (status.st_dev, status.st_ino) not in pipes:
            held.append("an open file, pipe or socket")
            break
    if shared_mappings(game):
        held.append("a shared mapping")
    if template.scratch is not None:
        devices = {os.stat(f"/proc/{game}/root{place}").st_dev for place in SCRATCH_PLACES}
        if len(devices) != 1 or template.scratch in devices:
            held.append("its scratch (/tmp, /dev/shm or home)")
    # a process's /proc files (not its folder) are its user's while it is dumpable, root's once it is not
    if template.owner != 0 and os.stat(f"/proc/{game}/mem").st_uid == template.owner:
        held.append("a way into its memory (the game's bot is dumpable)")
    if template.processes_only and os.path.exists(f"/proc/{game}/root{MACHINE_FILE}"):
        held.append("a /proc showing the machine's counters (its template's shows processes only)")
    return ", ".join(held)
