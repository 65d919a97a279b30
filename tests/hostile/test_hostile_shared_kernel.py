"""What the kernel shares and no namespace separates carries nothing between seats, nor into a later game.

Two attackers sit at one table (a sender and a probe, as the same kind of
bot), or play one game after the other: the sender moves something of the
machine's (a shared file's page cache, its times, the count of threads,
another seat's signals or priority, a message queue) and the probe looks.
What was closed: the filter refuses what evicts or probes the page cache
(arena/sandbox/seccomp.py). What cannot be closed on this kernel, or is left
open for honest bots (the machine's counters in a full /proc), stays as strict
expected failures (docs/security.md, "What the kernel still shares").
"""

from __future__ import annotations

import glob
import json
import os

import pytest

from conftest import KINDS, LIMITS, cmd, honest, play, reports, require
from shared_attacks import GLOBAL_FILES
from test_hostile_unprivileged import checked_kernel_games, folder  # noqa: F401  (``folder``: the fixture)
from arena.plugins import get_plugins
from arena.sandbox.probe import protections
from arena.seating import SeatPool

#: files of the runner's Python every bot sees that nothing reads during a run: one bit each for the timing attack
RARE = sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "lib2to3", "fixes", "fix_*.py")))[:8]
BITS = "10110010"
#: microseconds: a page read from the cache takes about 2, from this machine's disk 60 to 250
FAST_US = "20"


def pair(kind: str, send: str, probe: str, *args: str) -> tuple[dict, list[str]]:
    """A game of a sender and a probe (``kind`` bots) and ``random``; checked against one where both play
    without attacking: the same moves, no fault. The record and each seat's stderr."""
    make = KINDS[kind]
    record, texts = play([make(send, *args, name="sender"), make(probe, *args, name="probe"), honest()])
    control, _ = play([make("none", name="sender"), make("none", name="probe"), honest()])
    assert record["faults"] == [] and record["moves"] == control["moves"]
    return record, texts


#: why the machine's counters in a bot's /proc stay readable (arena/sandbox/jail.py: _mount_proc)
FULL_PROC = ("a bot's /proc is a full one: honest bots and their libraries read the machine's counters there "
             "(psutil reads /proc/stat at import, os.getloadavg() /proc/loadavg), and a /proc of processes only "
             "(subset=pid) would still leave sysinfo(2) and the other routes below counting the same threads and "
             "memory: see docs/security.md")


@pytest.mark.xfail(strict=True, reason=FULL_PROC)
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_bot_reads_no_counter_of_the_machine_that_another_bot_moves(kind):
    # the sender holds 30 more threads and 16 MiB at every other decision: the probe reads them in /proc/loadavg
    # (1/105 then 1/135), /proc/stat, /proc/meminfo, ...
    require("namespaces", "filesystem")
    _, texts = pair(kind, "global_send", "global_probe")
    assert reports(texts[0], "sent")[:2] == [1, 0]
    seen = reports(texts[1], "machine")
    assert seen
    for each in seen:
        readable = {path: value for path, value in each.items() if path in GLOBAL_FILES and value.startswith("read")}
        assert readable == {}


@pytest.mark.xfail(strict=True, reason=FULL_PROC)
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_as_nobody_a_bot_reads_no_counter_of_the_machine_that_another_bot_moves(folder, kind):  # noqa: F811
    # an unprivileged runner's bots mount their /proc in a user namespace of their own: the same full view
    texts = checked_kernel_games(folder, [("sender", "global_send", []), ("probe", "global_probe", [])], kind,
                                 ("namespaces", "filesystem"))
    seen = reports(texts[1], "machine")
    assert seen and all(not value.startswith("read") for each in seen for path, value in each.items()
                        if path in GLOBAL_FILES)


@pytest.mark.xfail(strict=True, reason="sysinfo(2) counts the machine's threads and free memory for any process "
                   "(no namespace holds them); refusing it would leave glibc's sysconf(_SC_PHYS_PAGES) reading "
                   "garbage in every honest program: see docs/security.md")
def test_sysinfo_tells_a_bot_nothing_of_another_bots_threads():
    require("namespaces", "filesystem")
    _, texts = pair("cmd", "global_send", "global_probe")
    counts = [int(each["sysinfo"].split()[0]) for each in reports(texts[1], "machine")
              if each["sysinfo"][0].isdigit()]
    assert counts and max(counts) - min(counts) < 25  # the sender's 30 threads come and go


@pytest.mark.xfail(strict=True, reason="a pipe's, a socket's or a memfd's inode number is the next of one counter "
                   "the whole machine shares (no namespace holds it, and fstat or /proc/self/fd show it): a bot "
                   "taking 20,000 numbers moves what the next bot gets by as much: see docs/security.md")
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_inode_numbers_tell_a_bot_nothing_of_another_bots_pipes(kind):
    # the sender makes and closes 20,000 pipes at every other decision; the probe makes 1,100 at each and reads
    # how far the counter moved: 1,100 then about 21,000 with the sender's bit
    _, texts = pair(kind, "inode_send", "inode_probe")
    moved = reports(texts[1], "inode_moved")
    assert len(moved) > 4 and max(moved) < 5000


@pytest.mark.xfail(strict=True, reason="a futex on a page of a file (the runtime, any shared library) is keyed by "
                   "the file's inode, the same in every namespace: a thread of one bot waiting there is woken, and "
                   "counted, by another; process-shared waits (pthread_join's among them) cannot be refused: see "
                   "docs/security.md")
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_futex_on_a_shared_files_page_carries_nothing_between_seats(kind):
    # the sender leaves a thread waiting on the first word of a runtime file it maps read-only at every other
    # decision; the probe's FUTEX_WAKE there wakes it (and says 1) with the sender's bit
    _, texts = pair(kind, "futex_send", "futex_probe")
    woken = reports(texts[1], "woken")
    assert len(woken) > 4 and set(woken) == {0}


@pytest.mark.xfail(strict=True, reason="/proc/self/smaps counts a mapped page as shared when another process maps "
                   "it too (any process, in any namespace, mapping the same file): a process may always read its "
                   "own smaps: see docs/security.md")
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_whether_another_bot_maps_a_shared_files_page_is_not_seen(kind):
    # the sender holds a runtime file's first page mapped for four decisions, then not for four, ...; the probe
    # maps it and reads its own /proc/self/smaps: "shared" x4, "private" x4, ... (/proc/self/pagemap's exclusive
    # bit says the same to a cmd: bot; a Python bot's game, not dumpable, cannot open its pagemap)
    _, texts = pair(kind, "map_send", "map_probe")
    seen = [each["smaps"] for each in reports(texts[1], "mapped")]
    assert len(seen) > 8 and len(set(seen)) == 1


@pytest.mark.xfail(strict=True, reason="how long a seat thinks shows in the wall time between another's "
                   "decisions; hiding it would mean holding every decision to a fixed time: see docs/security.md")
def test_how_long_a_seat_thinks_tells_another_nothing():
    # the sender thinks 150 ms of CPU at every other decision; the probe reads the wall clock at each of its own
    _, texts = pair("cmd", "pace_send", "pace_probe")
    gaps = reports(texts[1], "gap_ms")
    assert len(gaps) > 4 and max(gaps) < 100


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_the_page_cache_of_a_shared_file_carries_nothing_between_seats(kind):
    # the sender loads a runtime file's pages at even decisions and evicts them at odd ones; the probe asks which
    # are cached without loading them. Before the filter refused them, posix_fadvise(DONTNEED) evicted and
    # preadv2(RWF_NOWAIT) answered "absent"/"cached" with the sender's bit; mincore and cachestat the kernel
    # answers only for a file's owner (mincore: every page resident; cachestat: EPERM)
    require("seccomp")
    _, texts = pair(kind, "cache_send", "cache_probe")
    assert reports(texts[0], "sent")[:2] == [1, 0]
    evictions = reports(texts[0], "evict")
    assert evictions and all(each == {"fadvise": "PermissionError", "pageout": "EPERM", "cold": "EPERM"}
                             for each in evictions)
    probes = reports(texts[1], "probe")
    assert probes and {json.dumps(each) for each in probes} == {json.dumps(probes[0])}  # the same at every look
    assert probes[0]["nowait"] == ["PermissionError", "PermissionError"]


def test_as_nobody_the_page_cache_of_a_shared_file_carries_nothing_between_seats(folder):  # noqa: F811
    texts = checked_kernel_games(folder, [("sender", "cache_send", []), ("probe", "cache_probe", [])], "cmd",
                                 ("seccomp",))
    evictions, probes = reports(texts[0], "evict"), reports(texts[1], "probe")
    assert evictions and all(each["fadvise"] == "PermissionError" for each in evictions)
    assert probes and all(each == probes[0] for each in probes) and probes[0]["nowait"][0] == "PermissionError"


def evict_rare() -> None:
    """Drop the pages of :data:`RARE` from the page cache (the runner may: it is not jailed)."""
    for path in RARE:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def agreement(sent: str, read: str) -> int:
    return sum(a == b for a, b in zip(sent, read, strict=True))


@pytest.mark.xfail(strict=True, reason="a page one bot reads is in the cache for the next to read fast: eviction "
                   "is refused, so each page carries one bit once, but loading a page cannot be refused (it is "
                   "reading the runtime): see docs/security.md")
@pytest.mark.parametrize("when", ["same game", "later game"])
def test_pages_one_bot_reads_are_not_found_faster_by_another(when):
    # the sender reads the first page of the files whose bit is 1 at its start; the probe times the first read of
    # each at its first decision, and reads in /proc/self/io whether the disk was read for it. Nothing else reads
    # these files during a run; the runner evicts them first
    require("namespaces", "filesystem", "seccomp")
    assert len(RARE) == len(BITS)
    evict_rare()
    if when == "same game":
        _, texts = play([cmd("cache_time_send", BITS, *RARE, name="sender"),
                         cmd("cache_time_probe", FAST_US, *RARE, name="probe"), honest()])
        probe = texts[1]
    else:
        pool = SeatPool(get_plugins(), "process", LIMITS)
        try:
            play([cmd("cache_time_send", BITS, *RARE, name="sender"), honest()], seed=1, pool=pool)
            _, texts = play([cmd("cache_time_probe", FAST_US, *RARE, name="probe"), honest()], seed=2, pool=pool)
        finally:
            pool.close()
        probe = texts[0]
    timed, counted = reports(probe, "time_read"), reports(probe, "io_read")
    assert len(timed) == len(counted) == 1
    read = counted[0] if counted[0] != "unreadable" else timed[0]  # /proc/self/io: no clock, no noise of the load
    assert agreement(BITS, read) <= 6  # no better than a guess: 8 of 8 when the channel works


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_shared_files_times_do_not_move_with_another_bots_reads(kind):
    # the runtime is bound read-only: a read updates no access time there, and no bot can set a time
    require("filesystem")
    _, texts = pair(kind, "atime_send", "atime_probe")
    tried = reports(texts[0], "atime_sent")
    assert tried and "set" not in tried
    times = reports(texts[1], "times")
    assert len(times) > 2 and all(each == times[0] for each in times)


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_no_signal_priority_or_cpu_choice_reaches_another_seat(kind):
    # kill(-1) and kill, setpriority, getpriority and sched_setaffinity of every pid below 4096 and every user id
    # near its own (PRIO_USER): the other seat's processes are in another PID namespace, out of sight
    require("namespaces")
    _, texts = pair(kind, "neighbours_send", "neighbours_probe")
    reached = reports(texts[0], "neighbours")
    assert reached and all(value in ("ProcessLookupError", ["ProcessLookupError"])
                           for each in reached for value in each.values())
    probed = reports(texts[1], "received")
    assert probed and set(probed) == {0}
    assert set(reports(texts[1], "nice")) == {0} and set(reports(texts[1], "cpus")) == {os.cpu_count()}


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_message_queue_is_found_neither_by_another_seat_nor_by_a_later_game(kind):
    # a cmd: bot has an IPC namespace of its own every game; a Python bot's games share their template's, where
    # the filter lets no queue be made
    require("namespaces", "ipc")
    missing = "ENOENT" if kind == "cmd" else "EPERM"
    _, texts = pair(kind, "queue_leave", "queue_find")
    assert reports(texts[0], "queue_left") == [{"mq": "made" if kind == "cmd" else "EPERM",
                                                "msg": "made" if kind == "cmd" else "EPERM"}]
    found = reports(texts[1], "queue_found")
    assert found and all(each == {"mq": missing, "msg": missing} for each in found)
    pool = SeatPool(get_plugins(), "process", LIMITS)
    try:
        records = [play([KINDS[kind]("queue_remember"), honest()], seed=seed, pool=pool) for seed in (1, 2)]
    finally:
        pool.close()
    assert all(record["faults"] == [] for record, _ in records)
    later = reports(records[1][1][0], "queue_found")
    assert later and all(each == {"mq": missing, "msg": missing} for each in later)


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_full_count_of_pending_signals_tells_another_seat_nothing(kind):
    # the sender queues 200,000 real-time signals to itself with kill (counted per user id, beyond the limit);
    # under a root runner each seat has a user id of its own, so the probe's sigqueue still succeeds
    if not protections().own_user:
        pytest.fail("bots have no user id of their own here (the runner is not root)")
    _, texts = pair(kind, "sigpending_fill", "sigpending_probe")
    assert reports(texts[0], "signals_queued") == [200_000]
    probes = reports(texts[1], "signal_probe")
    assert probes and set(probes) == {"queued"}


@pytest.mark.xfail(strict=True, reason="an unprivileged runner's bots share its user id, and the kernel counts "
                   "pending signals per user id across user namespaces (kill() passes the limit yet counts): one "
                   "bot filling the count makes another's sigqueue fail. Run as root for a user id per seat: see "
                   "docs/security.md")
def test_as_nobody_a_full_count_of_pending_signals_tells_another_seat_nothing(folder):  # noqa: F811
    played = checked_kernel_games(folder, [("sender", "sigpending_fill", []), ("probe", "sigpending_probe", [])],
                                  "cmd", ("namespaces",))
    assert set(reports(played[1], "signal_probe")) == {"queued"}


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_the_calls_that_watch_or_reach_other_processes_are_refused(kind):
    require("seccomp")
    _, texts = pair(kind, "refused", "none")
    tried = reports(texts[0], "refused")
    assert len(tried) == 1 and set(tried[0]) >= {"perf_event_open", "userfaultfd", "io_uring_setup", "bpf", "kcmp",
                                                  "name_to_handle_at", "open_by_handle_at", "io_setup",
                                                  "process_vm_readv", "madvise(MADV_MERGEABLE)",
                                                  "prctl(PR_SET_MEMORY_MERGE)"}
    assert set(tried[0].values()) == {"EPERM"}

