"""A Python bot's template is the bot's: whatever it sends, computes or maps, no game fails and no game gains.

The attacker here is ``py:hostile_template:Bot`` (bots/hostile_template.py),
whose module code runs at import in its template and changes what the
template does. Each test checks that the attack failed and that every game
is what it would have been with a seat that plays like ``random`` and
crashes where the attacker's seat recorded its crash.
"""

from __future__ import annotations

import dataclasses
import random
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.entrants import parse_spec
from arena.match import InProcessBot, derive_seed, play_game
from arena.plugins import get_plugins
from arena.sandbox.probe import protections
from arena.seating import SeatPool
from arena_bots.random_bot import RandomBot
from conftest import LIMITS, honest, play, reports, require
from hostile_template import GARBAGE, LOST
from tournament_files import stored_records, write_tournament

ATTACKS = {"garbage": {"kinds": list(GARBAGE)}, "losing": {"losing": True}}
#: garbage sent after the template's true answer: the runner holds (freezes) the template once it read the answer,
#: so this may be sent only when it is let run again, for the next game, and be that game's crash
AFTER = {"twice", "status-as-text", "status-out-of-range"}


def attacker(**options: Any):
    return parse_spec("attacker=py:hostile_template:Bot", options=options)


class CrashAt:
    """Plays like ``random`` until its ``crash``-th decision (0: its start), where it raises."""

    def __init__(self, crash: int) -> None:
        self.crash = crash
        self.decisions = 0
        self.bot = RandomBot()

    def start(self, info: dict) -> None:
        if self.crash == 0:
            raise RuntimeError("crashed at start")
        self.bot.start(info)

    def decide(self, request: dict) -> dict:
        self.decisions += 1
        if self.decisions == self.crash:
            raise RuntimeError("crashed")
        return self.bot.decide(request)


def reference(record: dict, seat: int, seed: int) -> dict:
    """``record``'s game replayed in this process: ``random`` in every seat, the attacker's ``seat`` crashing
    where it crashed (at start, or at its N-th decision), never if it did not."""
    faults = [fault for fault in record["faults"] if fault["seat"] == seat]
    crash = -1
    if faults:
        move = faults[0]["move"]
        crash = 0 if move is None else 1 + sum(1 for played in record["moves"][:move] if played["seat"] == seat)
    plugins = get_plugins()
    rules = plugins.game(record["game"])
    seats = [InProcessBot(lambda: CrashAt(crash)) if number == seat else InProcessBot(RandomBot)
             for number in range(len(record["players"]))]
    return play_game(rules, record["options"], record["setup"], seats, record["players"], game_id=record["id"],
                     seed=seed, bot_seeds=[derive_seed(seed, number) for number in range(len(seats))], limits=LIMITS)


def test_template_garbage_of_every_kind_is_a_crash_of_its_seat_and_the_others_play_on():
    """Non-JSON, invalid UTF-8, wrong shapes and types, a huge message, an empty one, a second ready, a message
    out of place or extra, no or a wrong descriptor, a closed channel: each a crash fault of the attacker's
    seat in the game it reached (its bot is forked once the game before ended: the garbage with game N's answer
    is game N's), the honest seat's game the same as against a bot that crashed there."""
    require("namespaces")
    pool = SeatPool(get_plugins(), "process", LIMITS)
    records = []
    try:
        for seed in range(1, len(GARBAGE) + 2):  # the last kind's garbage may reach the game after it
            record, _ = play([attacker(**ATTACKS["garbage"]), honest()], seed=seed, pool=pool)
            records.append((seed, record))
    finally:
        pool.close()
    kinds = [list(GARBAGE)[(seed - 1) % len(GARBAGE)] for seed, _ in records]
    hit = [bool(record["faults"]) for _, record in records]
    for number, kind in enumerate(kinds[:len(GARBAGE)]):
        if kind in AFTER:  # sent after the true answer: the template may be held before it sends it
            assert hit[number] or hit[number + 1], kind
        elif kind != "clean":
            assert hit[number], kind
    for seed, record in records:
        if not record["faults"]:
            assert record["moves"] == reference(record, 0, seed)["moves"]
            continue
        assert [fault["seat"] for fault in record["faults"]] == [0], record["faults"]
        assert record["faults"][0]["kind"] == "crash"
        assert record["faults"][0]["detail"].startswith("its template sent ")
        expected = reference(record, 0, seed)
        assert expected["faults"][0]["move"] == record["faults"][0]["move"]
        assert (record["moves"], record["result"]) == (expected["moves"], expected["result"])


def test_with_template_garbage_every_game_of_a_run_is_stored_and_the_run_exits_0(tmp_path: Path):
    """The garbage of every kind, and a bot that exits when losing and whose template would send garbage instead
    of its exit status: `arena run` stores every game, the attackers' crashes in them, and exits 0."""
    require("namespaces")
    entries = [{"spec": "attacker=py:hostile_template:Bot",
                "options": {**ATTACKS["garbage"], "losing": True, "spare": 2}},
               {"spec": "loser=py:hostile_template:Bot", "options": ATTACKS["losing"]}, "random"]
    path = write_tournament(tmp_path, entries, "silk-road:2", deals=len(GARBAGE) // 6 + 1, name="garbage", seed=3)
    done = CliRunner().invoke(cli, ["run", path, "-j", "1", "--results", str(tmp_path / "results")])
    assert done.exit_code == 0, done.output
    played = stored_records(tmp_path / "results" / "garbage")
    assert len(played) == 6 * (len(GARBAGE) // 6 + 1)  # three pairs, both seatings, every deal
    faults: dict[str, list[dict]] = {"attacker": [], "loser": [], "random": []}
    for record in played:
        for fault in record["faults"]:
            faults[record["players"][fault["seat"]]].append(fault)
    attacked = [record for record in played if "attacker" in record["players"]]
    hit = [record for record in attacked if any(record["players"][f["seat"]] == "attacker" for f in record["faults"])]
    assert len(hit) >= len(attacked) - 2  # its first game is clean, its second may be (garbage from the third)
    assert faults["random"] == []
    for fault in faults["attacker"]:  # its garbage, or its exit when losing
        assert fault["kind"] == "crash" and (fault["detail"].startswith("its template sent ")
                                             or fault["detail"] == f"exited with status {LOST}"), fault
    # the loser's bot exits when behind (a crash); its template, which would send garbage instead of that exit
    # status, never hears it (its reaper does, and tells the runner): every crash is the exit itself
    assert faults["loser"] and all(fault["kind"] == "crash" and fault["detail"] == f"exited with status {LOST}"
                                   for fault in faults["loser"]), faults["loser"]


def test_the_reference_replays_a_sandboxed_game_exactly():
    """The comparison above can fail: a sandboxed game of random against random is replayed move for move."""
    record, _ = play([honest("a"), honest("b")], seed=4)
    assert reference(record, 0, 4)["moves"] == record["moves"]
    wrong = dict(record, faults=[{"seat": 0, "move": 3}])
    assert reference(wrong, 0, 4)["moves"] != record["moves"]


def attacker_games(seeds: range, **options: Any) -> tuple[list[tuple[int, dict]], str]:
    """Games (one per seed, in turn on one seat pool) of the attacker with ``options`` against an honest bot:
    each seed with its record, and all the attacker's seat said on its stderr."""
    pool = SeatPool(get_plugins(), "process", LIMITS)
    records, texts = [], []
    try:
        for seed in seeds:
            record, said = play([attacker(**options), honest()], seed=seed, pool=pool)
            records.append((seed, record))
            texts.append(said[0])
    finally:
        pool.close()
    return records, "".join(texts)


def games_of(key: str, games: int, **options: Any) -> list[Any]:
    """``games`` games (seeds 1, 2, ...) of the attacker with ``options`` against an honest bot, one seat pool:
    the last ``key`` the attacker reported in each (its seat's stderr holds earlier games' lines too). Every
    game is checked to be without fault and, for the attacker's seat, random's game."""
    require("namespaces")
    pool = SeatPool(get_plugins(), "process", LIMITS)
    found, records = [], []
    try:
        for seed in range(1, games + 1):
            record, texts = play([attacker(**options), honest()], seed=seed, pool=pool)
            found.append(reports(texts[0], key)[-1])
            records.append((seed, record))
    finally:
        pool.close()
    for seed, record in records:
        assert record["faults"] == []
        assert record["moves"] == reference(record, 0, seed)["moves"]
    return found


def test_a_shared_page_read_only_at_import_and_made_writable_in_each_game_carries_no_notes():
    """The template maps a page shared and read-only; each game's bot mprotects it writable to read and add
    notes: every game finds it gone (every shared mapping is dropped in a game, whatever its protection)."""
    assert games_of("notes", 4, notes=True) == ["gone"] * 4


def test_a_template_cannot_write_into_its_games_bots_through_proc_pid_mem():
    """The template writes a mark into each game's bot it forked before through /proc/PID/mem: a game's bot is
    not dumpable (and reaped before its template runs again), so every write fails and every game's bot finds
    its buffer as it was forked."""
    assert games_of("poked", 4, poke=True) == ["untouched"] * 4


def cpu_of(pid: int) -> int:
    """CPU time (ns) process ``pid`` has used, all its threads (0 once it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
    except (OSError, ValueError):
        return 0


class Watcher:
    """The honest seat, sampling the attacker's template's CPU time over a pause after each of its answers."""

    def __init__(self, seat, attacker) -> None:
        self.seat, self.attacker, self.gained_ns = seat, attacker, 0
        self.clock = seat.clock

    def start(self, info, limit_ms):
        self.seat.start(info, limit_ms)

    def decide(self, request, limit_ms):
        answer = self.seat.decide(request, limit_ms)  # the attacker stays stopped until it is asked again
        pid = self.attacker.launcher.template_pid
        before = cpu_of(pid)
        time.sleep(0.03)
        self.gained_ns += max(cpu_of(pid) - before, 0)
        return answer

    def end(self, info):
        self.seat.end(info)

    def close(self):
        self.seat.close()


def test_a_template_computes_nothing_while_others_think_and_what_it_computes_is_charged_to_its_bot():
    """The template raises its soft CPU limit at import and computes 1.5 s on each fork: it is frozen while
    the honest bot thinks (no CPU time of it there), what it computes is charged to its bot (each start over
    start_ms: a timeout on the CPU clock), and the honest seat's game is as against a crash at start."""
    require("cpu", "namespaces")
    limits = dataclasses.replace(LIMITS, start_ms=1000)
    plugins = get_plugins()
    pool = SeatPool(plugins, "process", limits)
    rules = plugins.game("silk-road")
    records, gained = [], 0
    try:
        for seed in range(1, 4):
            options = rules.check_options(2, {})
            setup = rules.random_setup(2, options, random.Random(seed))
            seats = pool.seats([attacker(burn=1.5), honest()])
            watcher = Watcher(seats[1], seats[0])
            try:
                record = play_game(rules, options, setup, [seats[0], watcher], ["attacker", "honest"],
                                   game_id=f"hostile/{seed}", seed=seed,
                                   bot_seeds=[derive_seed(seed, seat) for seat in range(2)], limits=limits)
            finally:
                pool.release(seats)
            gained += watcher.gained_ns
            records.append((seed, record))
    finally:
        pool.close()
    assert gained < 5e6, f"the template computed {gained / 1e6:.0f} ms while the honest bot thought"
    charged = [fault for _, record in records for fault in record["faults"]]
    assert [(fault["seat"], fault["decision"]) for fault in charged] == [(0, "start")] * 3
    # its start charged with what it computed (on a loaded machine the wait for its fork may end first)
    assert all(fault["kind"] == "timeout" and "of CPU time, limit 1000 ms (cpu clock)" in fault["detail"]
               or fault["kind"] == "crash" and "did not fork a game" in fault["detail"] for fault in charged), charged
    for seed, record in records:
        assert record["moves"] == reference(record, 0, seed)["moves"]


@pytest.mark.parametrize("helper", ["thread", "process"])
def test_a_template_that_starts_a_thread_or_a_process_at_import_is_refused_in_one_line(tmp_path: Path, helper):
    require("cpu", "namespaces")
    path = write_tournament(tmp_path, [{"spec": "attacker=py:hostile_template:Bot", "options": {"helper": helper}},
                                       "random"], "silk-road:2", deals=1, name="helper", seed=3)
    done = CliRunner().invoke(cli, ["run", path, "-j", "1", "--results", str(tmp_path / "results")])
    assert done.exit_code == 2, done.output
    said = [line for line in done.output.splitlines() if "attacker" in line]
    assert len(said) == 1 and f"1 {helper} started at import" in said[0], done.output
    assert "Traceback" not in done.output


PATCHED = {  # a part of the games' jail the template turns off, the attack it opens, what the runner sees held
    "unmap": ({"notes": True}, "a shared mapping"),
    "dumpable": ({"poke": True}, "a way into its memory"),
    "scratch": ({"tmp_notes": True}, "its scratch"),
    "descriptors": ({}, "an open file, pipe or socket"),
}


@pytest.mark.parametrize("part", list(PATCHED))
def test_a_template_that_changes_its_games_jail_gets_no_game_started(part):
    """The bot's import changes the host's code in its template so that its games keep their shared mapping,
    stay dumpable, keep its /tmp or its descriptors: the runner checks each game's bot from outside before its
    start, finds what it holds of its template and stops it there: no note is ever read, no mark found."""
    require("namespaces", "filesystem")
    options, held = PATCHED[part]
    records, said = attacker_games(range(1, 4), patch=[part], **options)
    assert reports(said, "notes") == [] and reports(said, "poked") == []
    for seed, record in records:
        assert [(fault["seat"], fault["kind"], fault["decision"]) for fault in record["faults"]] == [
            (0, "crash", "start")]
        assert held in record["faults"][0]["detail"] and "changed the jail" in record["faults"][0]["detail"]
        assert record["moves"] == reference(record, 0, seed)["moves"]


def test_a_template_that_keeps_what_a_request_brought_gets_no_game_started():
    """The template keeps a copy of every descriptor a request brings (its game's pipes, the game's cgroup slot)
    to read its games' CPU time from the slots' cpu.stat and what a game left unread in its stdin: the runner
    finds the copies once it answered, before the game starts, and stops it there (a crash at start, the
    template started afresh): no game's bot ever reports what its template read."""
    require("namespaces")
    records, said = attacker_games(range(1, 4), keep=True)
    assert reports(said, "kept") == []
    for seed, record in records:
        assert [(fault["seat"], fault["kind"], fault["decision"]) for fault in record["faults"]] == [
            (0, "crash", "start")]
        assert "its template kept" in record["faults"][0]["detail"], record["faults"][0]["detail"]
        assert record["moves"] == reference(record, 0, seed)["moves"]


def test_a_template_reads_nothing_through_the_cgroup_slot_a_request_brings():
    """The template opens, through the slot folder each request brings (to clone the game's bot into it), the
    slots' cpu.stat (its earlier games' CPU time) and looks up from it (other seats' cgroups): the slot's folder
    lets no one but the runner look into it, so every open fails and every game is random's."""
    require("namespaces", "cpu")
    if not protections().own_user:
        pytest.skip("bots share the runner's user id here, and the template is sent no slot folder: "
                    "test_hostile_unprivileged.py's as-nobody case tries this attack there")
    assert games_of("kept", 4, peek=True) == [[]] * 4


def test_with_threads_allowed_a_templates_threads_are_let_be_and_still_compute_nothing_while_others_think():
    """`[limits] threads = 4` lets numeric libraries start threads at import: the template is not refused, and
    its thread, frozen and charged with it, computes nothing while the honest bot thinks."""
    require("cpu", "namespaces")
    limits = dataclasses.replace(LIMITS, threads=4)
    plugins = get_plugins()
    pool = SeatPool(plugins, "process", limits)
    rules = plugins.game("silk-road")
    try:
        options = rules.check_options(2, {})
        setup = rules.random_setup(2, options, random.Random(1))
        seats = pool.seats([attacker(helper="thread"), honest()])
        watcher = Watcher(seats[1], seats[0])
        try:
            record = play_game(rules, options, setup, [seats[0], watcher], ["attacker", "honest"],
                               game_id="hostile/1", seed=1, bot_seeds=[derive_seed(1, seat) for seat in range(2)],
                               limits=limits)
        finally:
            pool.release(seats)
    finally:
        pool.close()
    assert not any("started at import" in fault["detail"] for fault in record["faults"]), record["faults"]
    assert watcher.gained_ns < 5e6, f"the template's thread computed {watcher.gained_ns / 1e6:.0f} ms meanwhile"


def test_a_game_tells_the_games_after_it_nothing_through_its_exit_status():
    """Each game's bot exits after its game's end with a status it chose from its seed; the template (the bot's
    import-time code) keeps the statuses it would reap and each later game's bot reports them: none arrives (the
    games' parent is the template's reaper, which tells only the runner). Exiting after the end is no fault."""
    found = games_of("statuses", 6, statuses=True)
    assert found == [[]] * 6, f"statuses heard by later games: {found}"


def saw_nothing(looks: list[dict]) -> None:
    """What a template's probes found at each of its requests (the last game's bot reports them all): at the
    request after ``index`` games, every earlier game's bot gone and unreadable, and each new bot the same id."""
    for index, seen in enumerate(looks):
        ids = seen.pop("ids")
        assert seen == {"waitid": "no child", "children_cpu_ms": 0, "kill": ["gone"] * index,
                        "cpu_clock": ["refused"] * index, "proc": [], "reaper": "hidden",
                        "pidfds": [True] * index}, (index, seen)
        assert len(set(ids)) <= 1, f"the games' bots got ids {ids}: the games before took some"


def test_a_template_learns_nothing_of_the_games_it_forked_whatever_it_asks():
    """At each request the template asks the kernel about every game's bot it forked before: ``waitid``, its
    children's CPU time, ``kill(pid, 0)``, their CPU clocks, its ``/proc`` (theirs, and its parent's: the reaper,
    with its children's CPU time), the pidfds it kept, and the id each new game's bot got (threads and processes
    of a game take ids in the template's namespace). After its game's end each game's bot burns CPU, starts
    threads and exits, as much as its seed says. Every game's template saw the same, before every fork: nothing."""
    found = games_of("probed", 5, probes=True)
    assert [len(seen) for seen in found] == [1, 2, 3, 4, 5]  # each bot reports every look of its template so far
    saw_nothing(found[-1])


def test_a_template_that_moves_a_process_into_its_games_slots_gets_no_game_started():
    """At its second request the template forks a helper that moves into the game's cgroup slot (it may write
    the slot's cgroup.procs: it forks its games there), out of its frozen cell, and counts the process ids the
    games take while they play, for the template to hand to later games: the runner finds it in the slot
    before the next game's start and stops that game (a crash at start, the template started afresh with its
    helper), so no game's bot ever hears what a helper saw."""
    require("namespaces", "cpu")
    records, said = attacker_games(range(1, 5), slot_helper=True)
    assert all(seen == [] for seen in reports(said, "watched"))
    crashed = [seed for seed, record in records if record["faults"]]
    assert crashed == [2, 4], [record["faults"] for _, record in records]  # each template's second game
    for seed, record in records:
        if record["faults"]:
            assert [(fault["seat"], fault["kind"], fault["decision"]) for fault in record["faults"]] == [
                (0, "crash", "start")]
            detail = record["faults"][0]["detail"]
            assert "beside its games, in their cgroup slots" in detail, detail
        assert record["moves"] == reference(record, 0, seed)["moves"]


@pytest.mark.parametrize("when", ["import_burn", "ready_burn"])
def test_what_a_template_computes_before_its_first_game_counts_in_that_games_start(when):
    """The template computes 1.5 s at import (before it says ready) or right after it said ready (before it reads
    its first request), while the runner is busy elsewhere and reads that ready only at its first game's start:
    that start, over its 1000 ms, is a timeout on the CPU clock (the first start of a process includes its own
    start-up, a template's import too), and the honest seat's game is as against a crash at start. What a
    template used until the runner read its ready was once free import time: that game was played as if nothing."""
    require("cpu", "namespaces")
    limits = dataclasses.replace(LIMITS, start_ms=1000)
    plugins = get_plugins()
    pool = SeatPool(plugins, "process", limits)
    rules = plugins.game("silk-road")
    try:
        options = rules.check_options(2, {})
        setup = rules.random_setup(2, options, random.Random(1))
        seats = pool.seats([attacker(**{when: 1.5}), honest()])
        try:
            template = seats[0].launcher.template_pid
            deadline, last = time.monotonic() + 30, -1
            while time.monotonic() < deadline:  # until it computed its 1.5 s and went idle (the runner elsewhere)
                used = cpu_of(template)
                if used > 1.5e9 and used - last < 5e6:
                    break
                last = used
                time.sleep(0.2)
            assert cpu_of(template) > 1.5e9, "the template did not compute"
            record = play_game(rules, options, setup, seats, ["attacker", "honest"], game_id="hostile/1", seed=1,
                               bot_seeds=[derive_seed(1, seat) for seat in range(2)], limits=limits)
        finally:
            pool.release(seats)
    finally:
        pool.close()
    assert [(fault["seat"], fault["kind"], fault["decision"]) for fault in record["faults"]] == [
        (0, "timeout", "start")], record["faults"]
    assert "of CPU time, limit 1000 ms (cpu clock)" in record["faults"][0]["detail"], record["faults"][0]
    assert record["moves"] == reference(record, 0, 1)["moves"]
