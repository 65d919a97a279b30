"""The sandbox as an unprivileged runner: still jailed (user namespaces), and honest about what is off.

The runner here is user ``nobody`` (65534); the folders it could not pass on
the way to its Python, its virtualenv and this checkout (root's home, where
this machine's Python lives; a CI run's 0700 temporary folder) are made
passable for it in a mount namespace of the test's own (as the runner's files
would be on a machine installed for that user).

The kernel channels of ``test_hostile_kernel.py`` (keyrings, locks, watches)
are tried again under this runner, where every bot shares the runner's user
id: the same attack bots, played by :func:`kernel_games` as ``nobody``. So
are the template attacks of ``test_hostile_template.py`` (:func:`template_games`),
without cgroups and in a cgroup v2 subtree delegated to ``nobody`` (as
systemd gives one), where the template's game slots belong to the bots' user.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import pytest

from conftest import BOTS, reports
from attacks import encode
from test_hostile_kernel import TOKEN, hostile_keys, keys_left
import arena
from arena.sandbox.limits import hidden_ancestors, open_folders
from arena.sandbox.syscalls import check, libc, mount

NOBODY = 65534


#: what the unprivileged runner must reach: its interpreter, its environment, arena and these tests
RUNNER_PATHS = [sys.executable, os.path.realpath(sys.executable), sys.prefix, sys.base_prefix,
                os.path.dirname(os.path.dirname(arena.__file__)), os.path.dirname(__file__)]


def as_nobody(argv: list[str], cwd: str, cgroup: str | None = None) -> subprocess.CompletedProcess:
    """``argv`` run by ``nobody`` in ``cwd`` (in the cgroup v2 folder ``cgroup`` delegated to it, if given)."""
    closed = hidden_ancestors(RUNNER_PATHS, NOBODY)

    def become_nobody() -> None:
        if cgroup is not None:
            with open(os.path.join(cgroup, "cgroup.procs"), "w") as handle:
                handle.write("0")
        check(libc.unshare(0x00020000), "unshare")  # a mount namespace of its own
        mount(None, "/", None, (1 << 14) | (1 << 18))  # recursive, private
        open_folders(closed)
        os.setgroups([])
        os.setresgid(NOBODY, NOBODY, NOBODY)
        os.setresuid(NOBODY, NOBODY, NOBODY)

    env = {"PATH": os.environ["PATH"], "HOME": cwd, "LANG": "C.UTF-8"}
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
                          preexec_fn=become_nobody)


@pytest.fixture(scope="module")
def folder():
    if os.geteuid() != 0:
        pytest.fail("this test makes an unprivileged runner from root; run the suite as root (CI does)")
    path = tempfile.mkdtemp(prefix="arena-nobody-")
    os.chmod(path, 0o777)
    yield path
    subprocess.run(["rm", "-rf", path])


def test_arena_sandbox_as_nobody_names_exactly_what_is_off(folder):
    code = ("from arena.sandbox.probe import protections; import json; p = protections(); "
            "print(json.dumps({'off': p.off(), 'namespaces': p.namespaces, 'filesystem': p.filesystem, "
            "'template': p.fork_template, 'root': p.root}))")
    result = as_nobody([sys.executable, "-c", code], folder)
    assert result.returncode == 0, result.stderr
    state = json.loads(result.stdout)
    assert not state["root"] and state["namespaces"] and state["filesystem"] and state["template"]
    assert [phrase.split(" ")[0] for phrase in state["off"]] == ["memory", "cpu"]  # no cgroup for nobody
    table = as_nobody([sys.executable, "-m", "arena", "sandbox"], folder)
    assert table.returncode == 0, table.stderr
    assert "off (no memory cgroup" in table.stdout and "private filesystem         on" in table.stdout
    # what holds the kernel channels below for this runner, shown as on (or, off, with its reason)
    rows = {line[:27].strip(): line[27:].split("  ")[0] for line in table.stdout.splitlines()}
    assert rows["system-call filter"] == rows["fresh keyring"] == "on"
    assert "without the freezer it is stopped (SIGSTOP) while they play" in table.stdout  # its template


def test_a_tournament_requiring_memory_is_refused_as_nobody(folder):
    toml = os.path.join(folder, "cup.toml")
    with open(toml, "w") as handle:
        handle.write('[tournament]\nname = "cup"\nseed = 1\n[[games]]\nname = "silk-road"\nplayers = 2\n'
                     '[sandbox]\nrequire = ["memory"]\n[[bots]]\nspec = "random"\n[[bots]]\nspec = "trader"\n')
    code = ("import sys; from arena.plugins import get_plugins; from arena.tournament.config import load_tournament;"
            "from arena.sandbox import check_required; from arena.errors import SandboxError\n"
            "t = load_tournament(sys.argv[1], get_plugins())\n"
            "try:\n    check_required(list(t.require))\nexcept SandboxError as e:\n    print('refused:', e)")
    result = as_nobody([sys.executable, "-c", code, toml], folder)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("refused: ") and "memory (" in result.stdout


def test_as_nobody_a_bot_still_cannot_read_the_runners_files_nor_keep_the_jail_apart(folder):
    secret = os.path.join(folder, "results.sqlite")
    with open(secret, "w") as handle:
        handle.write("every hand")
    os.chmod(secret, 0o666)
    spec = f"attacker=cmd:{sys.executable} {BOTS / 'hostile.py'} read {encode([secret, folder, '/root/.bashrc'])}"
    result = as_nobody([sys.executable, "-m", "arena", "play", "silk-road", "-b", spec, "-b", "random",
                        "--seed", "4", "--json"], folder)
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["faults"] == []  # a file it could read would make its start answer a fault naming it
    readable = f"attacker=cmd:{sys.executable} {BOTS / 'hostile.py'} read {encode([str(BOTS / 'attacks.py')])}"
    control = as_nobody([sys.executable, "-m", "arena", "play", "silk-road", "-b", readable, "-b", "random",
                         "--seed", "4", "--json"], folder)
    assert control.returncode == 2 and "leaked" in control.stderr  # its own files: read, so refused at the check
    probe = as_nobody([sys.executable, "-c", "import os; print(open(os.sys.argv[1]).read())", secret], folder)
    assert probe.stdout.strip() == "every hand"  # the runner itself (nobody) can read it: only the bot cannot


# -- the kernel's shared state (keyrings, locks, watches) with an unprivileged runner --


def kernel_games(folder: str, seats: list[tuple[str, str, list[str]]], kind: str, filtered: bool = True,
                 token: bool = False, seeds: tuple[int, ...] = (5,), proc: str = "full") -> dict:
    """Games played by ``nobody`` through the hostile tests' :func:`conftest.play`, one per seed with one seat
    pool: the attackers ``seats`` (name, attack, arguments) as ``kind`` bots, then ``random``; with ``token``, in
    a session keyring of its own holding the runner's token (:func:`test_hostile_kernel.in_session`); without
    ``filtered``, the filter off as on a machine that refuses it; ``proc``: the bots' ``/proc`` view
    (``[sandbox] proc``). Returns each game's record and seats' stderr (``games``) and what ``nobody``'s
    sandbox reports as off (``off``)."""
    job = json.dumps({"seats": seats, "kind": kind, "filtered": filtered, "token": token, "seeds": seeds,
                      "proc": proc})
    result = as_nobody([sys.executable, "-c", KERNEL_WORKER, os.path.dirname(__file__), job], folder)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.splitlines()[-1])


KERNEL_WORKER = """
import dataclasses, json, sys
sys.path.insert(0, sys.argv[1])
from conftest import KINDS, LIMITS, honest, play
from test_hostile_kernel import TOKEN, in_session
from arena.plugins import get_plugins
from arena.sandbox import seccomp
from arena.sandbox.probe import protections
from arena.seating import SeatPool
job = json.loads(sys.argv[2])
if not job["filtered"]:
    seccomp.refusal = lambda: "off for this test"
seats = [KINDS[job["kind"]](attack, *args, name=name) for name, attack, args in job["seats"]] + [honest()]

limits = dataclasses.replace(LIMITS, proc=job["proc"]) if job["proc"] != "full" else LIMITS

def games():
    pool = SeatPool(get_plugins(), "process", limits)
    try:
        return [play(seats, seed=seed, pool=pool, limits=limits) for seed in job["seeds"]]
    finally:
        pool.close()

played = in_session(games, token=TOKEN) if job["token"] else games()
print(json.dumps({"games": played, "off": protections().off()}))
"""


def checked_kernel_games(folder: str, seats: list[tuple[str, str, list[str]]], kind: str, needs: tuple[str, ...],
                         **settings) -> list[str]:
    """:func:`kernel_games` with the attack and without (each attacker plays ``none``): the attack's games must
    be the same, without a fault; each seat's stderr in the last game. A protection ``needs`` names that
    ``nobody``'s sandbox reports off fails the test with its reason (it is reported, never silently skipped)."""
    played = kernel_games(folder, seats, kind, **settings)
    control = kernel_games(folder, [(name, "none", []) for name, _, _ in seats], kind, **settings)
    off = [phrase for phrase in played["off"] if phrase.split(" ", 1)[0] in needs]
    if off:
        pytest.fail("protection off for an unprivileged runner, and reported so: " + "; ".join(off))
    for (record, _), (again, _) in zip(played["games"], control["games"], strict=True):
        assert record["faults"] == [] and record["moves"] == again["moves"]
    return played["games"][-1][1]


def test_as_nobody_a_key_cannot_carry_a_hand_from_one_seat_to_another(folder):
    before = hostile_keys()
    texts = checked_kernel_games(folder, [("leaver", "key_leave", ["seat-0"]), ("finder", "key_find", [])], "cmd",
                                ("seccomp",))
    assert reports(texts[0], "key_leave") == [{"add": "PermissionError", "setperm": "none"}]
    found = reports(texts[1], "key_find")
    assert found and all(each["session"] == each["user"] == "PermissionError" for each in found)
    assert "hand-of" not in texts[1]
    assert keys_left(before) == set()  # nobody's user keyring holds no key of the run either


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_as_nobody_keys_do_not_survive_into_a_later_game(folder, kind):
    # the bots of every game share the runner's user id, so its user keyring: only the filter keeps it closed
    before = hostile_keys()
    (text, _) = checked_kernel_games(folder, [("attacker", "key_remember", [])], kind, ("seccomp",), seeds=(1, 2))
    found, left = reports(text, "key_find"), reports(text, "key_left")
    assert found and left
    assert all(each == {"session": "PermissionError", "user": "PermissionError"} for each in left)
    assert all(each["session"] == each["user"] == "PermissionError" for each in found)
    assert "memory-" not in text
    assert keys_left(before) == set()


@pytest.mark.parametrize("filtered", [True, False], ids=["filter on", "filter off"])
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_as_nobody_a_bot_cannot_read_the_token_in_the_runners_session_keyring(folder, kind, filtered):
    texts = checked_kernel_games(folder, [("attacker", "key_token", [])], kind,
                                ("keyring", "seccomp") if filtered else ("keyring",), filtered=filtered, token=True)
    # the bot shares the runner's user id, so /proc/keys may list the runner's key to it (its name, not its
    # payload); it possesses none of the runner's keyrings, and the filter refuses it every keyring call
    (token,) = reports(texts[0], "token")
    assert token["session"] == ("PermissionError" if filtered else "OSError")
    assert set(token["listed"].values()) <= {"PermissionError"}
    assert TOKEN.decode() not in texts[0]


@pytest.mark.parametrize("lock", ["flock", "lockf"])
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_as_nobody_a_lock_on_a_shared_file_carries_nothing(folder, kind, lock):
    texts = checked_kernel_games(folder, [("holder", "lock_hold", [lock]), ("prober", "lock_probe", [lock])], kind,
                                ("seccomp",))
    assert reports(texts[0], "lock") == ["PermissionError"]
    probes = reports(texts[1], "probe")
    assert probes and set(probes) == {"PermissionError"}


@pytest.mark.parametrize("watch", ["inotify", "dnotify"])
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_as_nobody_a_watch_on_a_shared_file_sees_nothing(folder, kind, watch):
    texts = checked_kernel_games(folder, [("toucher", "touch_shared", []), ("watcher", "watch", [watch])], kind,
                                ("seccomp",))
    watched, events = reports(texts[1], "watch"), reports(texts[1], "events")
    assert watched and set(watched) == {"PermissionError"} and set(events) == {0}


# -- the template attacks of test_hostile_template.py with an unprivileged runner --


def _cgroup2() -> str:
    """This process's cgroup v2 folder ("" where no cgroup2 is mounted)."""
    with open("/proc/self/mounts") as handle:
        mounts = [line.split()[1] for line in handle if line.split()[2] == "cgroup2"]
    if not mounts:
        return ""
    with open("/proc/self/cgroup") as handle:
        own = next((line.split(":", 2)[2].strip() for line in handle if line.startswith("0::")), "/")
    return mounts[0] + own.rstrip("/")


@pytest.fixture(scope="module")
def delegated(folder):
    """A cgroup v2 subtree delegated to ``nobody``, as systemd's ``Delegate=yes`` gives one to a user's service
    (the folder and its ``cgroup.procs``, ``cgroup.subtree_control`` and ``cgroup.threads`` are its; docs/sandbox.md
    tells unprivileged runners to run so): there ``nobody`` times and freezes its bots with cgroups, and each
    template gets two slots for its games, folders its bots own as much as the runner does (they share its
    user id)."""
    parent = _cgroup2()
    if not parent:
        pytest.fail("no cgroup v2 hierarchy is mounted here: nothing can be delegated to an unprivileged runner")
    path = os.path.join(parent, f"arena-nobody-{os.getpid()}")
    os.mkdir(path)
    for name in ("", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"):
        os.chown(os.path.join(path, name), NOBODY, NOBODY)
    yield path
    for below, _, _ in sorted(os.walk(path), key=lambda entry: -entry[0].count("/")):
        try:
            os.rmdir(below)
        except OSError:
            pass


WHERE = {"delegated cgroup": True, "no cgroup": False}


def template_games(folder: str, options: dict, games: int, cgroup: str | None = None,
                   threads: int = 1) -> list[tuple[dict, str]]:
    """``games`` games (seeds 1, 2, ...) of ``py:hostile_template:Bot`` with ``options`` against ``random``, one
    seat pool (``[limits] threads``: ``threads``), played by ``nobody`` (in the delegated cgroup ``cgroup``, if
    given): each game's record and the
    attacker's stderr. Every game is checked to be without fault and, for the attacker's seat, random's game;
    in ``cgroup``, the runner must time and freeze its bots with cgroups (reported off, the test fails)."""
    from test_hostile_template import reference

    job = json.dumps({"options": options, "games": games, "threads": threads})
    result = as_nobody([sys.executable, "-c", TEMPLATE_WORKER, os.path.dirname(__file__), job], folder, cgroup)
    assert result.returncode == 0, result.stderr[-3000:]
    played = json.loads(result.stdout.splitlines()[-1])
    off = [phrase for phrase in played["off"] if phrase.split(" ", 1)[0] in ("cpu", "namespaces", "filesystem")]
    if cgroup and off:
        pytest.fail("protection off for an unprivileged runner in a delegated cgroup: " + "; ".join(off))
    for seed, (record, _) in enumerate(played["games"], start=1):
        assert record["faults"] == []
        assert record["moves"] == reference(record, 0, seed)["moves"]
    return [(record, text) for record, text in played["games"]]


TEMPLATE_WORKER = """
import dataclasses, json, sys
sys.path.insert(0, sys.argv[1])
from conftest import LIMITS, honest, play
from arena.entrants import parse_spec
from arena.plugins import get_plugins
from arena.sandbox.probe import protections
from arena.seating import SeatPool
job = json.loads(sys.argv[2])
limits = dataclasses.replace(LIMITS, threads=job.get("threads", 1))
pool = SeatPool(get_plugins(), "process", limits)
played = []
try:
    for seed in range(1, job["games"] + 1):
        attacker = parse_spec("attacker=py:hostile_template:Bot", options=job["options"])
        record, texts = play([attacker, honest()], limits=limits, seed=seed, pool=pool)
        played.append([record, texts[0]])
finally:
    pool.close()
print(json.dumps({"games": played, "off": protections().off()}))
"""


def last_reports(games: list[tuple[dict, str]], key: str) -> list:
    """What the attacker reported last under ``key`` in each game."""
    return [reports(text, key)[-1] for _, text in games]


@pytest.mark.parametrize("where", list(WHERE))
def test_as_nobody_a_game_tells_the_games_after_it_nothing_through_its_exit_status(folder, delegated, where):
    # the reaper is process 1 of the template's PID namespace in the runner's user namespace too
    games = template_games(folder, {"statuses": True}, 5, delegated if WHERE[where] else None)
    assert last_reports(games, "statuses") == [[]] * 5


@pytest.mark.parametrize("where", list(WHERE))
def test_as_nobody_a_template_learns_nothing_of_the_games_it_forked_whatever_it_asks(folder, delegated, where):
    # hidepid=2 holds in the template's user namespace: a game's bot, not dumpable, is hidden though it shares
    # the template's user id; the reaper sets ns_last_pid back (it owns the PID namespace's user namespace)
    from test_hostile_template import saw_nothing

    games = template_games(folder, {"probes": True}, 4, delegated if WHERE[where] else None)
    found = last_reports(games, "probed")
    assert [len(seen) for seen in found] == [1, 2, 3, 4]
    saw_nothing(found[-1])


@pytest.mark.parametrize("where", list(WHERE))
def test_as_nobody_a_template_that_keeps_what_a_request_brought_gets_no_game_started(folder, delegated, where):
    from test_hostile_template import reference

    job = json.dumps({"options": {"keep": True}, "games": 3})
    result = as_nobody([sys.executable, "-c", TEMPLATE_WORKER, os.path.dirname(__file__), job], folder,
                       delegated if WHERE[where] else None)
    assert result.returncode == 0, result.stderr[-3000:]
    played = json.loads(result.stdout.splitlines()[-1])["games"]
    assert reports("".join(text for _, text in played), "kept") == []
    for seed, (record, _) in enumerate(played, start=1):
        assert [(fault["seat"], fault["kind"], fault["decision"]) for fault in record["faults"]] == [
            (0, "crash", "start")]
        assert "its template kept" in record["faults"][0]["detail"], record["faults"][0]["detail"]
        assert record["moves"] == reference(record, 0, seed)["moves"]


@pytest.mark.parametrize("where", ["delegated cgroup", "no cgroup", "no cgroup, woken by its games"])
def test_as_nobody_a_template_counts_no_id_its_games_take_while_they_play(folder, delegated, where):
    # while it waits for each request the template forks children every few ms and sees which ids they get;
    # each game's bot starts 5, 10, 15 or 0 threads at its start (ids in the template's namespace too). Without a
    # cgroup freezer the template is stopped (SIGSTOP) from its answer to the next request; a game's bot, in a
    # session of its own and a PID namespace below the template's, cannot send it SIGCONT (kill(0), kill(-1))
    options = {"watch_ids": True, "wake": where.endswith("woken by its games")}
    games = template_games(folder, options, 5, delegated if where == "delegated cgroup" else None)
    assert last_reports(games, "watched")[-1] == [0, 0, 0, 0]


@pytest.mark.parametrize("where", list(WHERE))
def test_as_nobody_a_templates_thread_computes_nothing_while_its_games_play(folder, delegated, where):
    # [limits] threads = 4 lets the template's thread be; it computes half of every 20 ms (unstopped, over 100 ms a
    # game here; stopped, what it computes from a request to the runner reading its answer): frozen in its cell, or
    # without a freezer stopped with the template (SIGSTOP stops every thread), from its answer to the next request
    games = template_games(folder, {"helper": "thread", "cpu_marks": True}, 4, delegated if WHERE[where] else None,
                           threads=4)
    marks = last_reports(games, "marks")[-1]
    assert len(marks) == 3 and all(wall_ms >= 200 for _, wall_ms in marks), marks
    assert all(cpu_ms < 50 for cpu_ms, _ in marks), f"its template computed [CPU ms, wall ms] {marks} meanwhile"


@pytest.mark.parametrize("where", list(WHERE))
def test_as_nobody_a_template_woken_by_a_timer_of_its_own_forks_no_later_game(folder, delegated, where):
    # at import the template handles SIGCONT and arms a POSIX timer sending it one every 2 ms (a generated SIGCONT
    # continues a stopped process): a cgroup-frozen template stays frozen; one stopped with SIGSTOP runs, and is
    # found by its CPU clock, which moved while it was held, before the next request (ended, the next game's start a
    # crash, the game after it a new template's), or running beside a child it forked to count ids, before its
    # game's start. No game's bot reports an id its template saw taken
    from test_hostile_template import reference

    job = json.dumps({"options": {"watch_ids": True, "timer_wake": True}, "games": 5})
    result = as_nobody([sys.executable, "-c", TEMPLATE_WORKER, os.path.dirname(__file__), job], folder,
                       delegated if WHERE[where] else None)
    assert result.returncode == 0, result.stderr[-3000:]
    played = json.loads(result.stdout.splitlines()[-1])["games"]
    assert all(seen == [0] * len(seen) for seen in reports("".join(text for _, text in played), "watched"))
    crashed = [seed for seed, (record, _) in enumerate(played, start=1) if record["faults"]]
    # without cgroups a template woken while its game plays is ended, the next game's start a crash. Not every
    # game: a SIGSTOP that lands while the timer's SIGCONT is pending discards it, and the kernel re-arms a periodic
    # timer only once its signal is taken, so that template stays stopped through that game (as the runner wants;
    # it arms its timer again at the next request; before it did, no game crashed in 1 run of 5 under load)
    assert (crashed == []) if WHERE[where] else crashed != [], crashed
    for seed, (record, _) in enumerate(played, start=1):
        assert all((fault["seat"], fault["kind"], fault["decision"]) == (0, "crash", "start") and (
            "its template ran while it was stopped" in fault["detail"] or "ran beside 1 process" in fault["detail"])
            for fault in record["faults"]), record["faults"]
        assert record["moves"] == reference(record, 0, seed)["moves"]


def test_as_nobody_without_cgroups_a_template_whose_games_keep_its_process_group_gets_no_game_started(folder):
    # its games' bots skip their setsid (the template changed the host's code), so that stopping one between its
    # turns would stop its template with it and its SIGCONT (kill(0)) would wake it: found before each game's start
    from test_hostile_template import reference

    options = {"patch": ["session"], "watch_ids": True, "wake": True}
    job = json.dumps({"options": options, "games": 3})
    result = as_nobody([sys.executable, "-c", TEMPLATE_WORKER, os.path.dirname(__file__), job], folder)
    assert result.returncode == 0, result.stderr[-3000:]
    played = json.loads(result.stdout.splitlines()[-1])["games"]
    assert reports("".join(text for _, text in played), "watched") == []
    for seed, (record, _) in enumerate(played, start=1):
        assert [(fault["seat"], fault["kind"], fault["decision"]) for fault in record["faults"]] == [
            (0, "crash", "start")]
        assert "held its process group of its template" in record["faults"][0]["detail"], record["faults"]
        assert record["moves"] == reference(record, 0, seed)["moves"]


@pytest.mark.parametrize("helper", ["process", "orphan"])
def test_as_nobody_without_cgroups_a_template_that_starts_a_process_at_import_gets_no_game_started(folder, helper):
    # no cgroup lists the template's processes here: the runner walks its PID namespace (every process of it
    # descends from its reaper, whatever it does: an orphan in a session of its own is the reaper's child), at its
    # ready and before each game
    from test_hostile_template import reference

    job = json.dumps({"options": {"helper": helper}, "games": 2})
    result = as_nobody([sys.executable, "-c", TEMPLATE_WORKER, os.path.dirname(__file__), job], folder)
    assert result.returncode == 0, result.stderr[-3000:]
    played = json.loads(result.stdout.splitlines()[-1])["games"]
    for seed, (record, _) in enumerate(played, start=1):
        assert [(fault["seat"], fault["kind"], fault["decision"]) for fault in record["faults"]] == [
            (0, "crash", "start")]
        assert "1 process started at import" in record["faults"][0]["detail"], record["faults"]
        assert record["moves"] == reference(record, 0, seed)["moves"]


def test_as_nobody_a_template_reads_nothing_through_the_cgroup_slot_a_request_brings(folder, delegated):
    # the template shares the runner's user id, so a slot's folder is its own whatever its mode (and a game's bot,
    # holding capabilities in a user namespace mapping that id, passes any mode): it is never sent one, only the
    # slot's cgroup.procs and its own cell's, which open no folder
    games = template_games(folder, {"peek": True}, 4, delegated)
    assert last_reports(games, "kept") == [[]] * 4


def test_as_nobody_a_template_reads_nothing_of_its_slots_through_a_cgroup_namespace_of_its_own(folder, delegated):
    # a helper moves into the slot (its cgroup.procs the request brings) and clones a child into a cgroup namespace
    # rooted there, which would mount cgroup2 and read the slot's cpu.stat: clone with that flag is refused, and
    # clone3 (its flags in memory) to the template of a runner whose bots share its user id
    games = template_games(folder, {"mount_slot": True}, 4, delegated)
    assert last_reports(games, "kept") == [[]] * 4
    refused = last_reports(games, "refused")[-1]
    assert refused == ["clone refused (1, clone3 38)"] * 3, refused  # EPERM, then ENOSYS


def test_as_nobody_a_template_that_moves_a_process_into_its_games_slots_gets_no_game_started(folder, delegated):
    # the slot's cgroup.procs each request brings lets the template's helper in, out of its frozen cell: found
    # there before the next game's start (a crash at start), it never tells a game what it saw
    from test_hostile_template import reference

    job = json.dumps({"options": {"slot_helper": True}, "games": 4})
    result = as_nobody([sys.executable, "-c", TEMPLATE_WORKER, os.path.dirname(__file__), job], folder, delegated)
    assert result.returncode == 0, result.stderr[-3000:]
    played = json.loads(result.stdout.splitlines()[-1])["games"]
    assert all(seen == [] for seen in reports("".join(text for _, text in played), "watched"))
    assert [seed for seed, (record, _) in enumerate(played, start=1) if record["faults"]] == [2, 4]
    for seed, (record, _) in enumerate(played, start=1):
        assert all("beside its games, in their cgroup slots" in fault["detail"]
                   for fault in record["faults"]), record["faults"]
        assert record["moves"] == reference(record, 0, seed)["moves"]
