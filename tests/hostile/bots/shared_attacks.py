"""Attacks through what the kernel shares and no namespace separates (test_hostile_shared_kernel.py).

Two seats of one game (a sender and a probe), or one game and a later one,
try to pass bits through: the page cache of a file both see (evicted with
``posix_fadvise``/``madvise``, probed with ``preadv2(RWF_NOWAIT)``,
``mincore``, ``cachestat`` or read timing), a file's times on the shared
read-only view, the machine's counters in /proc (threads, forks, memory,
open files, pressure), ``sysinfo``, signals and priorities of the other
seat's processes, POSIX and System V message queues, and calls the filter
refuses. Each is registered in ``attacks.ATTACKS`` and reports
``hostile: {json}`` lines on stderr, as the other attacks do.
"""

from __future__ import annotations

import ctypes
import errno
import json
import mmap
import os
import signal
import sys
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
PAGE = mmap.PAGESIZE
#: a file of the runner's Python every bot sees, read by nobody during a game (its pages carry the bits)
CACHED = os.path.join(os.path.dirname(os.__file__), "pydoc_data", "topics.py")
#: a file whose times a probe watches while a sender reads it
TIMED = os.path.join(os.path.dirname(os.__file__), "this.py")
MADV_RANDOM, MADV_MERGEABLE, MADV_COLD, MADV_PAGEOUT = 1, 12, 20, 21
SYS_PRCTL, PR_SET_MEMORY_MERGE = 157, 67
PROT_READ, PROT_WRITE, MAP_PRIVATE, MAP_ANONYMOUS = 1, 2, 2, 0x20
SYS_CACHESTAT, SYS_PERF_EVENT_OPEN, SYS_USERFAULTFD, SYS_IO_URING_SETUP, SYS_BPF = 451, 298, 323, 425, 321
SYS_KCMP, SYS_NAME_TO_HANDLE_AT, SYS_OPEN_BY_HANDLE_AT, SYS_PROCESS_VM_READV, SYS_SYSINFO = 312, 303, 304, 310, 99
SYS_MQ_OPEN, SYS_MSGGET, SYS_IO_SETUP = 240, 68, 206
MQ_NAME, SYSV_MSG_KEY = b"arena-hostile-queue", 0x41524E42
O_CREAT, O_RDWR, IPC_CREAT = 0o100, 2, 0o1000
#: files of the machine's state that any process may read and some process can move (a count of threads or forks,
#: free memory, open files, pressure, locks): what a probe reads
GLOBAL_FILES = ("/proc/loadavg", "/proc/stat", "/proc/meminfo", "/proc/vmstat", "/proc/pressure/cpu",
                "/proc/pressure/memory", "/proc/pressure/io", "/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr",
                "/proc/sys/kernel/random/entropy_avail", "/proc/locks", "/proc/diskstats", "/proc/interrupts",
                "/proc/softirqs", "/proc/schedstat", "/proc/key-users", "/proc/uptime", "/proc/net/unix",
                "/sys/fs/cgroup/cgroup.procs", "/sys/kernel/mm/transparent_hugepage/enabled")
STATE: dict = {"decisions": 0}


def report(**values) -> None:
    print("hostile: " + json.dumps(values), file=sys.stderr, flush=True)


def _errno_name(code: int) -> str:
    return errno.errorcode.get(code, str(code))


def _call(number: int, *args) -> str:
    """A raw system call: ``ok`` (its result), or the errno's name."""
    result = libc.syscall(ctypes.c_long(number), *args)
    return f"ok {result}" if result >= 0 else _errno_name(ctypes.get_errno())


def _tick() -> int:
    """This seat's decision number (0, 1, ...): senders alternate what they send on it."""
    count = STATE["decisions"]
    STATE["decisions"] = count + 1
    return count


# -- the page cache: a sender loads or evicts a shared file's pages, a probe asks which are there --------------


def evict(path: str) -> dict:
    """Drop ``path``'s pages from the page cache: ``posix_fadvise(DONTNEED)``, and ``madvise(MADV_PAGEOUT)`` /
    ``MADV_COLD`` on a mapping of it; each call's outcome."""
    done = {}
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            done["fadvise"] = "ok"
        except OSError as error:
            done["fadvise"] = type(error).__name__
        size = os.fstat(fd).st_size
        address = libc.mmap(None, size, PROT_READ, MAP_PRIVATE, fd, 0)
        try:
            for name, advice in (("pageout", MADV_PAGEOUT), ("cold", MADV_COLD)):
                done[name] = "ok" if libc.madvise(address, size, advice) == 0 else _errno_name(ctypes.get_errno())
        finally:
            libc.munmap(address, size)
    finally:
        os.close(fd)
    return done


def load(path: str) -> None:
    with open(path, "rb") as handle:
        while handle.read(1 << 16):
            pass


def cache_send(args: list[str]) -> None:
    """At even decisions load every page of the shared file, at odd ones evict them: a bit per decision."""
    bit = _tick() % 2 == 0
    if bit:
        load(CACHED)
        report(sent=1)
    else:
        report(sent=0, evict=evict(CACHED))


def cached_nowait(fd: int, offset: int) -> str:
    """Whether the page at ``offset`` is in the page cache, asked with a read that must not wait for the disk:
    ``cached``, ``absent`` (EAGAIN) or the error."""
    buffer = bytearray(1)
    try:
        os.preadv(fd, [buffer], offset, os.RWF_NOWAIT)
        return "cached"
    except BlockingIOError:
        return "absent"
    except OSError as error:
        return type(error).__name__


def resident_around(fd: int, size: int) -> str:
    """How many of the file's first pages ``mincore`` says are resident in a private mapping of it after one
    read fault on its first page (the kernel maps the cached pages around a fault): a count, or the error."""
    pages = min(size // PAGE, 64)
    address = libc.mmap(None, pages * PAGE, PROT_READ, MAP_PRIVATE, fd, 0)
    try:
        libc.madvise(address, pages * PAGE, MADV_RANDOM)  # no read-ahead: the fault loads its own page only
        ctypes.string_at(address, 1)  # one read fault
        vector = ctypes.create_string_buffer(pages)
        if libc.mincore(address, pages * PAGE, vector) != 0:
            return _errno_name(ctypes.get_errno())
        return str(sum(byte & 1 for byte in vector.raw))
    finally:
        libc.munmap(address, pages * PAGE)


def cachestat(fd: int) -> str:
    """``cachestat(2)``: how many of the file's pages are cached (a count), or the error."""
    window = (ctypes.c_uint64 * 2)(0, 0)  # struct cachestat_range: the whole file
    found = (ctypes.c_uint64 * 5)()
    result = libc.syscall(ctypes.c_long(SYS_CACHESTAT), ctypes.c_long(fd), window, found, ctypes.c_long(0))
    return str(found[0]) if result == 0 else _errno_name(ctypes.get_errno())


def cache_probe(args: list[str]) -> None:
    """Ask, without loading them, whether the shared file's pages are cached: ``preadv2(RWF_NOWAIT)`` at pages
    1 and 100, ``mincore`` after a fault, ``cachestat``."""
    fd = os.open(CACHED, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        report(probe={"nowait": [cached_nowait(fd, PAGE), cached_nowait(fd, 100 * PAGE)],
                      "mincore": resident_around(fd, size), "cachestat": cachestat(fd)})
    finally:
        os.close(fd)


def timed_read(path: str) -> float:
    """Microseconds to read the first page of ``path`` (opened first)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        begin = time.perf_counter_ns()
        os.pread(fd, 1, 0)
        return (time.perf_counter_ns() - begin) / 1000
    finally:
        os.close(fd)


def cache_time_send(args: list[str]) -> None:
    """Read the first page of each file ``args[1:]`` whose bit in ``args[0]`` is 1 (a later reader finds those
    pages fast): one bit per file, with no call any filter could refuse."""
    for bit, path in zip(args[0], args[1:]):
        if bit == "1":
            timed_read(path)
    report(time_sent=args[0])


def cache_time_probe(args: list[str]) -> None:
    """Once, at its first decision: time the first read of each file ``args[1:]`` (a page in the cache is read
    in microseconds, one on the disk much slower) and read the bits as fast (1) or slow (0)."""
    if STATE.get("timed"):
        return
    STATE["timed"] = True
    micros, fetched = [], []
    for path in args[1:]:
        before = _read_bytes()
        micros.append(timed_read(path))
        fetched.append(_read_bytes() - before if before >= 0 else None)
    threshold = float(args[0])
    # /proc/self/io's read_bytes (what the disk gave this process) says the same without a clock
    report(time_read="".join("1" if each < threshold else "0" for each in micros), micros=micros,
           io_read="unreadable" if None in fetched else "".join("0" if each else "1" for each in fetched))


def _read_bytes() -> int:
    """The bytes storage gave this process so far (/proc/self/io), or -1 where it may not read that file."""
    try:
        with open("/proc/self/io") as handle:
            return next(int(line.split()[1]) for line in handle if line.startswith("read_bytes"))
    except (OSError, StopIteration):
        return -1


# -- a file's times on the shared read-only view ----------------------------------------------------------------


def atime_send(args: list[str]) -> None:
    """Read the watched file at every decision (on a writable mount its access time would move), and try to set
    its times."""
    load(TIMED)
    try:
        os.utime(TIMED, ns=(1, 1))
        touched = "set"
    except OSError as error:
        touched = type(error).__name__
    report(atime_sent=touched)


def atime_probe(args: list[str]) -> None:
    """Report the watched file's access, change and modification times at every decision."""
    seen = os.stat(TIMED)
    report(times=[seen.st_atime_ns, seen.st_ctime_ns, seen.st_mtime_ns])


# -- the machine's counters -------------------------------------------------------------------------------------


def global_send(args: list[str]) -> None:
    """At even decisions hold 30 more threads (asleep) and 16 MiB, at odd ones none: the machine's count of
    threads and its free memory move with the bit."""
    if _tick() % 2 == 0:
        release = threading.Event()
        threading.stack_size(1 << 16)  # small stacks: 30 of them fit under the bot's memory limit
        threads = [threading.Thread(target=release.wait, daemon=True) for _ in range(30)]
        for thread in threads:
            thread.start()
        STATE["held"] = (release, threads, bytearray(b"x" * (16 << 20)))
        report(sent=1)
    else:
        held = STATE.pop("held", None)
        if held is not None:
            held[0].set()
            for thread in held[1]:
                thread.join()
        report(sent=0)


def _sysinfo() -> str:
    """``sysinfo(2)``'s count of the machine's processes and its free memory in MiB, or the error."""
    found = (ctypes.c_long * 16)()  # struct sysinfo: uptime, loads[3], totalram, freeram, ..., procs (a short)
    result = libc.syscall(ctypes.c_long(SYS_SYSINFO), found)
    if result != 0:
        return _errno_name(ctypes.get_errno())
    procs = ctypes.cast(ctypes.byref(found, 10 * 8), ctypes.POINTER(ctypes.c_ushort))[0]
    unit = ctypes.cast(ctypes.byref(found, 13 * 8), ctypes.POINTER(ctypes.c_uint))[0] or 1
    return f"{procs} procs {found[5] * unit >> 20} MiB free"


def global_probe(args: list[str]) -> None:
    """Read each of :data:`GLOBAL_FILES` (its first line, or the error) and ``sysinfo``."""
    seen = {}
    for path in GLOBAL_FILES:
        try:
            with open(path) as handle:
                seen[path] = "read: " + handle.readline().strip()[:60]
        except OSError as error:
            seen[path] = type(error).__name__
    seen["sysinfo"] = _sysinfo()
    report(machine=seen)


# -- other seats' processes: signals, priorities, affinity -------------------------------------------------------


def _received(number: int, frame) -> None:
    STATE["signals"] = STATE.get("signals", 0) + 1


def neighbours_send(args: list[str]) -> None:
    """Signal every process it may (``kill(-1)``), and set the priority and CPUs of every process of every user
    id near its own and every process id up to 4096 it can name: what reached anything."""
    reached = {}
    try:
        os.kill(-1, signal.SIGUSR1)
        reached["kill(-1)"] = "sent"
    except OSError as error:
        reached["kill(-1)"] = type(error).__name__
    own = os.getuid()
    users = [uid for uid in range(max(own - 16, 0), own + 17) if uid != own]
    reached["setpriority(user)"] = sorted({_outcome(os.setpriority, os.PRIO_USER, uid, 19) for uid in users})
    reached["getpriority(user)"] = sorted({_outcome(os.getpriority, os.PRIO_USER, uid) for uid in users})
    others = [pid for pid in range(2, 4096) if pid != os.getpid()]
    reached["setpriority(pid)"] = sorted({_outcome(os.setpriority, os.PRIO_PROCESS, pid, 19) for pid in others})
    reached["sched_setaffinity"] = sorted({_outcome(os.sched_setaffinity, pid, {0}) for pid in others})
    reached["kill(pid)"] = sorted({_outcome(os.kill, pid, signal.SIGUSR1) for pid in others})
    report(neighbours=reached)


def _outcome(function, *args) -> str:
    try:
        function(*args)
        return "ok"
    except OSError as error:
        return type(error).__name__


def neighbours_probe(args: list[str]) -> None:
    """Count the signals it receives (SIGUSR1) and report its own priority and CPUs at each decision."""
    if "signals" not in STATE:
        STATE["signals"] = 0
        signal.signal(signal.SIGUSR1, _received)
    report(received=STATE["signals"], nice=os.getpriority(os.PRIO_PROCESS, 0),
           cpus=len(os.sched_getaffinity(0)))


# -- message queues --------------------------------------------------------------------------------------------


def queue_leave(args: list[str]) -> dict:
    """Make a POSIX message queue and a System V one under known names, for another seat or game to find."""
    mq = libc.syscall(ctypes.c_long(SYS_MQ_OPEN), MQ_NAME, ctypes.c_int(O_CREAT | O_RDWR), ctypes.c_int(0o666),
                      None)
    left = {"mq": "made" if mq >= 0 else _errno_name(ctypes.get_errno())}
    queue = libc.syscall(ctypes.c_long(SYS_MSGGET), ctypes.c_long(SYSV_MSG_KEY), ctypes.c_int(IPC_CREAT | 0o666))
    left["msg"] = "made" if queue >= 0 else _errno_name(ctypes.get_errno())
    report(queue_left=left)
    return {"mq": mq}


def queue_find(args: list[str]) -> None:
    """Look for :func:`queue_leave`'s queues."""
    mq = libc.syscall(ctypes.c_long(SYS_MQ_OPEN), MQ_NAME, ctypes.c_int(O_RDWR), ctypes.c_int(0), None)
    found = {"mq": "found" if mq >= 0 else _errno_name(ctypes.get_errno())}
    queue = libc.syscall(ctypes.c_long(SYS_MSGGET), ctypes.c_long(SYSV_MSG_KEY), ctypes.c_int(0))
    found["msg"] = "found" if queue >= 0 else _errno_name(ctypes.get_errno())
    report(queue_found=found)


def queue_remember(args: list[str]) -> dict:
    """Look for the queues an earlier game left, then leave them again."""
    queue_find(args)
    return queue_leave(args)


# -- the kernel's counter of inode numbers for pipes, sockets and memfds ----------------------------------------


def _pipes(count: int) -> int:
    """Make and close ``count`` pipes: the highest inode number they got (each takes the next of a counter the
    whole machine shares, handed to each CPU in batches of 1024)."""
    highest = 0
    for _ in range(count):
        read, write = os.pipe()
        highest = max(highest, os.fstat(read).st_ino)
        os.close(read)
        os.close(write)
    return highest


def inode_send(args: list[str]) -> None:
    """At even decisions take 20,000 inode numbers (pipes made and closed), at odd ones none."""
    bit = _tick() % 2 == 0
    if bit:
        _pipes(20_000)
    report(sent=int(bit))


def inode_probe(args: list[str]) -> None:
    """Take 1,100 inode numbers (past a batch) and report how far the counter moved since its last look."""
    highest = _pipes(1100)
    last = STATE.get("inode")
    STATE["inode"] = highest
    if last is not None:
        report(inode_moved=highest - last)


# -- futexes on a shared file's page ----------------------------------------------------------------------------


SYS_FUTEX, FUTEX_WAIT, FUTEX_WAKE, MAP_SHARED = 202, 0, 1, 1


def _shared_word() -> int:
    """The address of the first word of a read-only shared mapping of the shared runtime file (mapped once): a
    futex there is keyed by the file's inode, the same for every process on the machine that maps it."""
    if "word" not in STATE:
        fd = os.open(CACHED, os.O_RDONLY)
        STATE["word"] = libc.mmap(None, PAGE, PROT_READ, MAP_SHARED, fd, 0)
        os.close(fd)
    return STATE["word"]


def _futex(address: int, operation: int, value: int) -> int:
    return libc.syscall(ctypes.c_long(SYS_FUTEX), ctypes.c_void_p(address), ctypes.c_int(operation),
                        ctypes.c_uint32(value), None, None, ctypes.c_uint32(0))


def futex_send(args: list[str]) -> None:
    """At even decisions leave a thread waiting on the shared word, at odd ones wake it (itself): a bit."""
    address = _shared_word()
    value = ctypes.c_uint32.from_address(address).value
    waiter = STATE.get("waiter")
    if _tick() % 2 == 0:
        if waiter is None or not waiter.is_alive():
            threading.stack_size(1 << 16)
            STATE["calling"] = False
            waiter = threading.Thread(target=_wait_on, args=(address, value), daemon=True)
            waiter.start()
            STATE["waiter"] = waiter
            _until_waiting(waiter)
        report(sent=1)
    else:
        while waiter is not None and waiter.is_alive():
            _futex(address, FUTEX_WAKE, 1)
            waiter.join(0.01)
        report(sent=0)


def _wait_on(address: int, value: int) -> None:
    """The waiter thread: say it is about to wait, then wait on ``address`` until woken."""
    STATE["calling"] = True
    _futex(address, FUTEX_WAIT, value)


def _until_waiting(waiter: threading.Thread) -> None:
    """Return once ``waiter`` sleeps in its futex wait, not after a moment that a loaded machine may outlast
    (answered before its thread waits, the bot is frozen with nobody waiting and the probe wakes nobody): it said
    it calls, and its /proc/self/task/TID/stat (readable even to a bot that is not dumpable) says it sleeps at two
    looks with this thread's sleep between (asleep for the interpreter's lock, it would take it in that sleep)."""
    path = f"/proc/self/task/{waiter.native_id}/stat"
    deadline = time.monotonic() + 5
    asleep = 0
    while waiter.is_alive() and time.monotonic() < deadline and asleep < 2:
        try:
            with open(path) as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            time.sleep(0.01)
            return
        asleep = asleep + 1 if STATE.get("calling") and state == "S" else 0
        time.sleep(0.001)


def futex_probe(args: list[str]) -> None:
    """Wake one waiter on the shared word: how many it woke (1 when another bot waits there)."""
    report(woken=_futex(_shared_word(), FUTEX_WAKE, 1))


# -- how many processes map a shared file's page ----------------------------------------------------------------


#: a file of the runner's Python no process maps during a run (its pages carry the bits)
MAPPED = os.path.join(os.path.dirname(os.__file__), "pydoc_data", "_pydoc.css")


def map_send(args: list[str]) -> None:
    """Hold the shared file's first page mapped (and touched) for four decisions, then not for four, and so on
    (seats do not always take turns one by one: a bit lasts several of the probe's looks)."""
    if _tick() // 4 % 2 == 0:
        if "mapped" not in STATE:
            fd = os.open(MAPPED, os.O_RDONLY)
            address = libc.mmap(None, PAGE, PROT_READ, MAP_SHARED, fd, 0)
            os.close(fd)
            ctypes.string_at(address, 1)
            STATE["mapped"] = address
        report(sent=1)
    else:
        address = STATE.pop("mapped", None)
        if address is not None:
            libc.munmap(address, PAGE)
        report(sent=0)


def map_probe(args: list[str]) -> None:
    """Map and touch the shared file's first page, then read whether another process maps it too: its line in
    /proc/self/smaps (``Shared_Clean``) and its /proc/self/pagemap entry (bit 56, mapped exclusively)."""
    fd = os.open(MAPPED, os.O_RDONLY)
    address = libc.mmap(None, PAGE, PROT_READ, MAP_SHARED, fd, 0)
    os.close(fd)
    try:
        ctypes.string_at(address, 1)
        seen = {}
        try:
            with open("/proc/self/smaps") as handle:
                block = handle.read().split(f"{address:x}-", 1)[1]
            seen["smaps"] = "shared" if "Shared_Clean:          4 kB" in block.split("VmFlags", 1)[0] else "private"
        except (OSError, IndexError) as error:
            seen["smaps"] = type(error).__name__
        try:
            with open("/proc/self/pagemap", "rb") as handle:
                handle.seek(address // PAGE * 8)
                entry = int.from_bytes(handle.read(8), "little")
            seen["pagemap"] = "exclusive" if entry >> 56 & 1 else "shared"
        except OSError as error:
            seen["pagemap"] = type(error).__name__
        report(mapped=seen)
    finally:
        libc.munmap(address, PAGE)


# -- the pace of the game ---------------------------------------------------------------------------------------


def pace_send(args: list[str]) -> None:
    """Think 150 ms of CPU at even decisions, nothing at odd ones (well within its time)."""
    bit = _tick() % 2 == 0
    if bit:
        end = time.process_time() + 0.15
        while time.process_time() < end:
            pass
    report(sent=int(bit))


def pace_probe(args: list[str]) -> None:
    """The wall time in ms since its last decision (the others' thinking in between)."""
    now = time.monotonic()
    last = STATE.get("last")
    STATE["last"] = now
    if last is not None:
        report(gap_ms=round((now - last) * 1000, 1))


# -- per-user counts: queued signals ---------------------------------------------------------------------------


def sigpending_fill(args: list[str]) -> None:
    """Queue 200,000 real-time signals to itself, blocked, with ``kill`` (which the kernel lets pass its user's
    limit of pending signals, yet counts): its user's count, shared by every process of that user id in every user
    namespace, is then over the limit, so that another process's ``sigqueue`` is refused. They stay queued."""
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
    queued = 0
    try:
        while queued < 200_000:
            os.kill(os.getpid(), signal.SIGRTMIN)
            queued += 1
        outcome = "all"
    except OSError as error:
        outcome = _errno_name(error.errno or 0)
    report(signals_queued=queued, stopped_by=outcome)


def sigpending_probe(args: list[str]) -> None:
    """Queue one real-time signal to itself (blocked, with ``sigqueue``) and take it back: ``queued``, or the
    errno's name when its user's count of pending signals is full."""
    number = signal.SIGRTMIN + 1
    signal.pthread_sigmask(signal.SIG_BLOCK, [number])
    # sigqueue, not kill: the kernel holds a queued signal of a process's own (si_code below 0) to the limit
    found = "queued" if libc.sigqueue(os.getpid(), number, ctypes.c_void_p(0)) == 0 else _errno_name(
        ctypes.get_errno())
    while signal.sigtimedwait([number], 0) is not None:
        pass
    report(signal_probe=found)


# -- calls that reach another process or kernel code no bot needs ------------------------------------------------


def _advise(advice: int) -> str:
    """``madvise(advice)`` on a page of its own: ``ok`` or the errno's name."""
    address = libc.mmap(None, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    try:
        return "ok" if libc.madvise(address, PAGE, advice) == 0 else _errno_name(ctypes.get_errno())
    finally:
        libc.munmap(address, PAGE)


def refused(args: list[str]) -> None:
    """Try each call a bot could use to watch or reach another: each one's outcome (an errno name)."""
    attributes = (ctypes.c_uint32 * 32)(0, 128)  # struct perf_event_attr: hardware, its size; counts cycles
    handle = (ctypes.c_uint32 * 40)(128)  # struct file_handle: handle_bytes
    mount_id = ctypes.c_int()
    tried = {
        "perf_event_open": _call(SYS_PERF_EVENT_OPEN, attributes, ctypes.c_int(0), ctypes.c_int(-1),
                                 ctypes.c_int(-1), ctypes.c_ulong(0)),
        "userfaultfd": _call(SYS_USERFAULTFD, ctypes.c_int(0)),
        "io_uring_setup": _call(SYS_IO_URING_SETUP, ctypes.c_uint(1), (ctypes.c_uint32 * 30)()),
        "bpf": _call(SYS_BPF, ctypes.c_int(0), (ctypes.c_uint32 * 30)(), ctypes.c_uint(120)),
        "kcmp": _call(SYS_KCMP, ctypes.c_int(os.getpid()), ctypes.c_int(1), ctypes.c_int(0), ctypes.c_ulong(0),
                      ctypes.c_ulong(0)),
        "name_to_handle_at": _call(SYS_NAME_TO_HANDLE_AT, ctypes.c_int(-100), CACHED.encode(), handle,
                                   ctypes.byref(mount_id), ctypes.c_int(0)),
        "open_by_handle_at": _call(SYS_OPEN_BY_HANDLE_AT, ctypes.c_int(-100), handle, ctypes.c_int(0)),
        "io_setup": _call(SYS_IO_SETUP, ctypes.c_uint(1), ctypes.byref(ctypes.c_ulong(0))),
        "madvise(MADV_MERGEABLE)": _advise(MADV_MERGEABLE),
        "prctl(PR_SET_MEMORY_MERGE)": _call(SYS_PRCTL, ctypes.c_int(PR_SET_MEMORY_MERGE), ctypes.c_ulong(1),
                                            ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)),
        "process_vm_readv": _call(SYS_PROCESS_VM_READV, ctypes.c_int(1), None, ctypes.c_ulong(0), None,
                                  ctypes.c_ulong(0), ctypes.c_ulong(0)),
    }
    report(refused=tried)


#: attack name -> (phase, function), merged into attacks.ATTACKS
SHARED_ATTACKS = {
    "cache_send": ("decide", cache_send),
    "cache_probe": ("decide", cache_probe),
    "cache_time_send": ("start", cache_time_send),
    "cache_time_probe": ("decide", cache_time_probe),
    "atime_send": ("decide", atime_send),
    "atime_probe": ("decide", atime_probe),
    "global_send": ("decide", global_send),
    "global_probe": ("decide", global_probe),
    "neighbours_send": ("decide", neighbours_send),
    "neighbours_probe": ("decide", neighbours_probe),
    "queue_leave": ("start", queue_leave),
    "queue_find": ("decide", queue_find),
    "queue_remember": ("start", queue_remember),
    "refused": ("start", refused),
    "pace_send": ("decide", pace_send),
    "pace_probe": ("decide", pace_probe),
    "map_send": ("decide", map_send),
    "map_probe": ("decide", map_probe),
    "futex_send": ("decide", futex_send),
    "futex_probe": ("decide", futex_probe),
    "inode_send": ("decide", inode_send),
    "inode_probe": ("decide", inode_probe),
    "sigpending_fill": ("start", sigpending_fill),
    "sigpending_probe": ("decide", sigpending_probe),
}
