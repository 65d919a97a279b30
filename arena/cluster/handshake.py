"""Checking that every worker runs the same arena and plugins as the coordinator.

A game played on a worker with another version of a game or bot could give
another record, so before the first task the coordinator asks every worker
for its installation (arena's version, and each registered game and bot with
the distribution and version it comes from) and refuses to run, naming the
worker and the difference, when one does not match its own. Each block of
games repeats the check on the worker that plays it, so a worker that joins
the cluster later is held to the same rule.
"""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING, TypedDict

from arena.errors import ClusterError
from arena.plugins import Plugins, get_plugins

if TYPE_CHECKING:  # distributed is an optional dependency (the dask extra)
    from distributed import Client

#: differences named in one refusal; the rest are counted
SHOWN_DIFFERENCES = 4


class Installation(TypedDict):
    """What a process runs: arena's version, and each game's and bot's origin (``"DISTRIBUTION VERSION"``)."""

    arena: str
    games: dict[str, str]
    bots: dict[str, str]


def installation(plugins: Plugins | None = None) -> Installation:
    """What this process runs: arena's version and every game and bot with its distribution and version."""
    import arena

    plugins = plugins or get_plugins()

    def origin(plugin: str) -> str:
        info = plugins.infos.get(plugin)
        return f"{info.distribution} {info.version}" if info else plugin

    return Installation(
        arena=arena.__version__,
        games={name: origin(plugins.game_plugin(name)) for name in sorted(plugins.games)},
        bots={name: origin(bot.plugin) for name, bot in sorted(plugins.bots.items())},
    )


def differences(coordinator: Installation, worker: Installation) -> list[str]:
    """How ``worker``'s installation differs from the ``coordinator``'s, one phrase per difference."""
    found = []
    if worker["arena"] != coordinator["arena"]:
        found.append(f"arena {worker['arena']} on the worker, {coordinator['arena']} here")
    for kind, ours, theirs in (("games", coordinator["games"], worker["games"]),
                               ("bots", coordinator["bots"], worker["bots"])):
        for name in sorted(ours.keys() | theirs.keys()):
            if name not in theirs:
                found.append(f"{kind[:-1]} {name} ({ours[name]}) missing on the worker")
            elif name not in ours:
                found.append(f"{kind[:-1]} {name} ({theirs[name]}) on the worker only")
            elif ours[name] != theirs[name]:
                found.append(f"{kind[:-1]} {name} from {theirs[name]} on the worker, {ours[name]} here")
    return found


def mismatch_message(worker: str, found: list[str], others: int = 0) -> str:
    """The one-line refusal naming ``worker`` and what differs (``others``: further workers that differ)."""
    shown = "; ".join(found[:SHOWN_DIFFERENCES])
    if len(found) > SHOWN_DIFFERENCES:
        shown += f"; and {len(found) - SHOWN_DIFFERENCES} more"
    also = {0: "", 1: " (1 other worker differs too)"}.get(others, f" ({others} other workers differ too)")
    return (f"worker {worker} does not match this machine: {shown}{also}; "
            f"install the same arena and plugin versions on every worker")


def check_workers(client: Client, coordinator: Installation) -> None:
    """Ask every worker of ``client``'s cluster for its installation; :class:`ClusterError` if one differs."""
    reports = client.run(installation, on_error="return")
    differing = {}
    for worker, report in sorted(reports.items()):
        if isinstance(report, BaseException):
            differing[worker] = [f"arena cannot run on the worker ({type(report).__name__}: {_first_line(report)})"]
        elif found := differences(coordinator, report):
            differing[worker] = found
    if differing:
        worker, found = next(iter(differing.items()))
        raise ClusterError(mismatch_message(worker, found, len(differing) - 1))


def check_this_worker(coordinator: Installation) -> None:
    """On a worker, before playing: :class:`ClusterError` naming this worker if it differs from the coordinator."""
    found = differences(coordinator, installation())
    if found:
        raise ClusterError(mismatch_message(worker_name(), found))


def worker_name() -> str:
    """This worker's Dask address, or host and process id outside a Dask worker."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return f"{socket.gethostname()} (process {os.getpid()})"


def _first_line(error: BaseException) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else ""
