"""No network or IPC for a Python bot's template and games, though its games share the template's namespaces.

A game forked from a template gets no network or IPC namespace of its own
(they cost about a fifth of a fresh game's CPU): it stays in its template's,
made once per template. What keeps them empty is the template's system-call
filter, which the runner puts on the template before its first instruction
and which every game inherits: no socket of any family, no System V IPC
object and no POSIX message queue can be made there, so a game can reach,
name, count or change nothing in them (an abstract UNIX socket, a port,
``/proc/net``, a shared memory segment) that its template or a later game
could see. Where the filter is off, each game gets namespaces of its own
again, as every ``cmd:`` bot does.
"""

from __future__ import annotations

from conftest import honest, play, py, reports, require
from arena.entrants import parse_spec
from arena.plugins import get_plugins
from arena.sandbox import probe, seccomp
from arena.seating import SeatPool

SOCKETS = ("tcp", "udp", "tcp6", "unix stream", "unix datagram", "netlink route", "packet", "socketpair")
IPC = ("shm", "sem", "msg", "mq")


def prober():
    """``hostile_network.Probe``: tries every socket at import (its template) and at each game's start."""
    return parse_spec("prober=py:hostile_network:Probe")


def games_of_one_template(count: int) -> tuple[list[dict], list[dict]]:
    """``count`` games of the prober (one seat, so one template) against ``random``: records and what it saw."""
    pool = SeatPool(get_plugins(), "process", __import__("conftest").LIMITS)
    records, seen = [], []
    try:
        for seed in range(1, count + 1):
            record, texts = play([prober(), honest()], seed=seed, pool=pool)
            records.append(record)
            seen.append(reports(texts[0], "network")[-1])  # the seat's stderr holds its earlier games' too
    finally:
        pool.close()
    return records, seen


def test_a_python_bots_template_and_its_games_can_make_no_socket_of_any_family_nor_an_ipc_object():
    require("namespaces", "seccomp")
    record, texts = play([prober(), honest()])
    control, _ = play([py("none"), honest()])
    (seen,) = reports(texts[0], "network")
    for phase in ("import", "game"):
        assert {name: seen[phase][name] for name in SOCKETS} == dict.fromkeys(SOCKETS, "PermissionError"), phase
        assert {name: seen[phase][name] for name in IPC} == dict.fromkeys(IPC, "Operation not permitted"), phase
        assert seen[phase]["/proc/net/unix"] == 0  # not a socket in its network namespace
    assert record["faults"] == [] and record["moves"] == control["moves"]


def test_the_games_of_one_template_share_its_network_namespace_and_find_nothing_there():
    require("namespaces", "seccomp")
    records, seen = games_of_one_template(3)
    assert len(seen) == 3 and all(record["faults"] == [] for record in records)
    for kind in ("namespace", "ipc namespace"):
        namespaces = {seen_once[phase][kind] for seen_once in seen for phase in ("import", "game")}
        assert len(namespaces) == 1, kind  # one namespace, made with the template: none per game
    assert all(seen_once["game"]["/proc/net/unix"] == 0 for seen_once in seen)
    rows = {name: detail for name, _, detail in probe.protections().rows()}
    assert "a Python bot's games share their template's, where the filter refuses every socket" in rows["no network"]


def test_without_the_filter_each_game_has_a_network_namespace_of_its_own_and_finds_nothing_of_the_last(
        monkeypatch):
    """The filter off (a machine without seccomp): a game can listen on an abstract UNIX socket, so each game
    gets a namespace of its own again, where the next game finds nothing of it."""
    require("namespaces")
    monkeypatch.setattr(seccomp, "refusal", lambda: "off for this test")
    probe.protections.cache_clear()
    try:
        records, seen = games_of_one_template(2)
        rows = {name: detail for name, _, detail in probe.protections().rows()}
    finally:
        probe.protections.cache_clear()
    assert len(seen) == 2 and all(record["faults"] == [] for record in records)
    assert seen[0]["game"]["unix stream"] == seen[1]["game"]["unix stream"] == "listening"
    for kind in ("namespace", "ipc namespace"):
        namespaces = [seen[0]["import"][kind], seen[0]["game"][kind], seen[1]["game"][kind]]
        assert len(set(namespaces)) == 3, kind  # the template's, and one per game
    # the first game made its System V objects and message queue; the second, in an IPC namespace of its own,
    # made them again (the key was free there: "made", not found)
    assert seen[0]["game"]["shm"] == seen[1]["game"]["shm"] == "made"
    assert seen[0]["import"]["/proc/net/unix"] == 0 and seen[0]["import"]["unix stream"] == "listening"
    assert seen[1]["game"]["/proc/net/unix"] == 0  # none of its template's sockets, none of the first game's
    assert "each game's too" in rows["no network"]
