"""Bots cannot pass anything through the kernel's shared state: keyrings, file locks and watches.

Keyrings belong to no namespace, and every bot sees the same inodes of the
runtime: a key with other-read permission, a lock held on a shared file or a
watch on it would carry a hand from one seat to another, or from one game to
the next. The system-call filter (arena/sandbox/seccomp.py) refuses them; a
fresh session keyring per bot process (arena/sandbox/keyring.py) keeps the
runner's keys out of reach even where the filter is off.
"""

from __future__ import annotations

import ctypes
import threading
import time
import uuid

import pytest

from conftest import KINDS, cmd, honest, play, reports, require
from kernel_attacks import KEY_NAME, TOKEN_NAME
from arena.plugins import get_plugins
from arena.sandbox import seccomp
from arena.seating import SeatPool
from conftest import LIMITS

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_SYS_ADD_KEY, _SYS_KEYCTL, _KEYCTL_JOIN_SESSION_KEYRING, _KEY_SPEC_SESSION_KEYRING = 248, 250, 1, -3
TOKEN = b"token-5f1c0ffee"


def in_session(function, token: bytes | None = None):
    """``function()`` run by a runner thread that holds a session keyring of its own (as a login or service
    session does), holding ``token`` in a key named TOKEN_NAME; its result (or its exception, raised here)."""
    outcome: dict = {}

    def run() -> None:
        try:
            name = f"arena-test-{uuid.uuid4().hex}".encode()
            if _libc.syscall(_SYS_KEYCTL, _KEYCTL_JOIN_SESSION_KEYRING, name) < 0:
                raise OSError(ctypes.get_errno(), "cannot join a session keyring")
            if token is not None and _libc.syscall(_SYS_ADD_KEY, b"user", TOKEN_NAME.encode(), token,
                                                   ctypes.c_size_t(len(token)),
                                                   ctypes.c_long(_KEY_SPEC_SESSION_KEYRING)) < 0:
                raise OSError(ctypes.get_errno(), "cannot add the token")
            outcome["value"] = function()
        except BaseException as error:  # noqa: BLE001 - handed to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def hostile_keys(name: str = KEY_NAME) -> set[str]:
    """The serials of the keys named ``name`` in /proc/keys (all of them: the test runs as root)."""
    with open("/proc/keys") as handle:
        return {line.split()[0] for line in handle.read().splitlines() if name in line}


#: seconds the kernel's key garbage collector may take to free the keys of bots that are gone: it runs as a
#: deferred job after RCU grace periods, about 1 s on a quiet machine and over 2 s under load (a 2 s wait failed)
KEY_GC_S = 30


def keys_left(before: set[str]) -> set[str]:
    """The hostile keys in the kernel that were not there ``before``, once the kernel's garbage collector freed
    what it will (empty as soon as it has; keys of an older run are not this test's)."""
    deadline = time.monotonic() + KEY_GC_S
    while True:
        left = hostile_keys() - before
        if not left or time.monotonic() >= deadline:
            return left
        time.sleep(0.05)


def filter_off(monkeypatch) -> None:
    """Run this test's bots without the system-call filter, as on a machine that refuses it."""
    monkeypatch.setattr(seccomp, "refusal", lambda: "off for this test")


def test_a_key_cannot_carry_a_hand_from_one_seat_to_another():
    # cmd: only: a Python bot's game is in a user namespace of its own, where /proc/keys hides other users' keys
    require("seccomp")
    before = hostile_keys()
    record, texts = play([cmd("key_leave", "seat-0", name="leaver"), cmd("key_find", name="finder"), honest()])
    control, _ = play([cmd("none", name="leaver"), cmd("none", name="finder"), honest()])
    assert reports(texts[0], "key_leave") == [{"add": "PermissionError", "setperm": "none"}]
    found = reports(texts[1], "key_find")
    assert found and all(each["session"] == each["user"] == "PermissionError" for each in found)
    assert "hand-of" not in texts[1]  # keys another run left (any that /proc/keys lists) are not readable either
    assert record["faults"] == [] and record["moves"] == control["moves"]
    assert keys_left(before) == set()


@pytest.mark.parametrize("filtered", ["filter on", "filter off"])
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_keys_do_not_survive_into_a_later_game(kind, filtered, monkeypatch):
    # without the filter the keys are made, in a fresh session keyring and the user keyring of a pool id (cleared
    # when the id goes back) or of the game's own user namespace: the later game finds none, the kernel keeps none
    require("keyring", *(["seccomp"] if filtered == "filter on" else []))
    if filtered == "filter off":
        filter_off(monkeypatch)
    make = KINDS[kind]
    before = hostile_keys()

    def two_games(attack: str):
        pool = SeatPool(get_plugins(), "process", LIMITS)
        try:
            first, _ = play([make(attack), honest()], seed=1, pool=pool)
            second, texts = play([make(attack), honest()], seed=2, pool=pool)
        finally:
            pool.close()
        return first, second, texts[0]

    first, second, text = in_session(lambda: two_games("key_remember"))
    control_first, control_second, _ = two_games("none")
    found, left = reports(text, "key_find"), reports(text, "key_left")
    assert found and left
    if filtered == "filter on":
        assert all(each == {"session": "PermissionError", "user": "PermissionError"} for each in left)
        assert all(each["session"] == each["user"] == "PermissionError" for each in found)
        assert "memory-" not in text
    else:  # made (and, open to all, readable by serial while they live: only the filter stops that), in keyrings
        # the next game does not hold (ENOKEY), and cleared with the pool id when the bot is gone
        assert all(each["session"].isdigit() and each["user"].isdigit() for each in left)
        assert all(each["session"] == each["user"] == "OSError" for each in found)
    assert first["moves"] == control_first["moves"] and second["moves"] == control_second["moves"]
    assert first["faults"] == second["faults"] == []
    assert keys_left(before) == set()


@pytest.mark.parametrize("filtered", ["filter on", "filter off"])
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_bot_cannot_read_the_token_in_the_runners_session_keyring(kind, filtered, monkeypatch):
    require("keyring", *(["seccomp"] if filtered == "filter on" else []))
    if filtered == "filter off":
        filter_off(monkeypatch)
    make = KINDS[kind]
    record, texts = in_session(lambda: play([make("key_token"), honest()]), token=TOKEN)
    control, _ = play([make("none"), honest()])
    token = reports(texts[0], "token")
    # under the filter keyctl is refused; without it the bot's session keyring is a fresh, empty one (ENOKEY)
    assert token == [{"session": "PermissionError" if filtered == "filter on" else "OSError", "listed": {}}]
    assert TOKEN.decode() not in texts[0]
    assert record["faults"] == [] and record["moves"] == control["moves"]


@pytest.mark.parametrize("lock", ["flock", "lockf"])
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_lock_on_a_shared_file_carries_nothing(kind, lock):
    # flock(LOCK_SH) held by one seat, probed with flock(LOCK_EX|LOCK_NB) or fcntl(F_GETLK) by the other
    require("seccomp")
    make = KINDS[kind]
    record, texts = play([make("lock_hold", lock, name="holder"), make("lock_probe", lock, name="prober"), honest()])
    control, _ = play([make("none", name="holder"), make("none", name="prober"), honest()])
    assert reports(texts[0], "lock") == ["PermissionError"]
    probes = reports(texts[1], "probe")
    assert probes and set(probes) == {"PermissionError"}
    assert record["faults"] == [] and record["moves"] == control["moves"]


@pytest.mark.parametrize("watch", ["inotify", "dnotify"])
@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_watch_on_a_shared_file_sees_nothing(kind, watch):
    # one seat opens and reads a runtime file at every decision; the other watches it (IN_OPEN) or its folder
    require("seccomp")
    make = KINDS[kind]
    record, texts = play([make("touch_shared", name="toucher"), make("watch", watch, name="watcher"), honest()])
    control, _ = play([make("none", name="toucher"), make("none", name="watcher"), honest()])
    watched, events = reports(texts[1], "watch"), reports(texts[1], "events")
    assert watched and set(watched) == {"PermissionError"} and set(events) == {0}
    assert record["faults"] == [] and record["moves"] == control["moves"]


@pytest.mark.parametrize("kind", ["cmd", "py"])
def test_a_bot_cannot_make_a_user_namespace(kind):
    # a Python bot's template may clone games into new namespaces: each game stacks the full filter on its own
    require("seccomp")
    record, texts = play([KINDS[kind]("userns"), honest()])
    control, _ = play([KINDS[kind]("none"), honest()])
    assert reports(texts[0], "userns") == [{"unshare": "EPERM", "clone": "EPERM", "clone3": "ENOSYS"}]
    assert record["faults"] == [] and record["moves"] == control["moves"]


def test_the_refused_calls_are_the_documented_ones():
    # docs/security.md lists every refused call: a call added to the filter and not documented fails here
    with open(__file__.rsplit("/tests/", 1)[0] + "/docs/security.md") as handle:
        text = handle.read()
    for kind in (seccomp.BOT, seccomp.TEMPLATE):
        for calls, _ in seccomp.refused_calls(kind):
            for call in calls.split(", "):
                assert f"`{call}`" in text, call
    for command in seccomp.LOCK_AND_NOTIFY_COMMANDS:
        assert f"`{command}`" in text, command


def test_a_machine_without_libseccomp_says_so_and_a_tournament_requiring_the_filter_is_refused(monkeypatch):
    from arena.errors import SandboxError
    from arena.sandbox import probe

    probe.check_required(["seccomp", "keyring"])  # on here

    def missing():
        raise seccomp.Unavailable("libseccomp not found (install libseccomp2)")

    monkeypatch.setattr(seccomp, "_library", missing)
    for cached in (seccomp.program, seccomp.refusal, probe.protections):
        cached.cache_clear()
    try:
        rows = {name: state for name, state, _ in probe.protections().rows()}
        assert rows["system-call filter"] == "off (libseccomp not found (install libseccomp2))"
        assert "seccomp (libseccomp not found" in probe.weaknesses()
        with pytest.raises(SandboxError, match="seccomp"):
            probe.check_required(["seccomp"])
    finally:
        for cached in (seccomp.program, seccomp.refusal, probe.protections):
            cached.cache_clear()
