"""``arena run``: parallel play, the store, resume, --fresh, SIGKILL, Ctrl-C, the log file, export + replay."""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.runs import play as runs_play
from arena.tournament.config import load_tournament
from arena.tournament.runner import run_tournament
from arena.runs.store import open_store
from arena_bots.random_bot import RandomBot

import tournament_files
from tournament_files import session_processes, stored_count, stored_records

TESTS = Path(__file__).parent


class LoggingBot(RandomBot):
    """A random bot that logs one line per game, from inside a worker."""

    def start(self, info: dict) -> None:
        super().start(info)
        logging.getLogger("logbot").warning("hello from seat %d", info["seat"])


class SlowBot(RandomBot):
    """A random bot that takes a millisecond per decision, so a run lasts long enough to interrupt."""

    def decide(self, request: dict) -> dict:
        time.sleep(0.001)
        return super().decide(request)


MIXED = ("random", "trader", "r2=py:arena_bots.random_bot:RandomBot", "r3=py:arena_bots.random_bot:RandomBot")


def write_tournament(folder: Path, name: str = "cup", deals: int = 2, bots: tuple = MIXED,
                     games: str = "modern-art:3,silk-road:3", seed: int = 5) -> str:
    return tournament_files.write_tournament(folder, bots, games, deals=deals, name=name, seed=seed)


def run(*args: str) -> object:
    result = CliRunner().invoke(cli, ["run", *args], catch_exceptions=False)
    return result


def test_a_run_stores_every_game_and_writes_the_leaderboards(tmp_path):
    path = write_tournament(tmp_path, bots=MIXED)
    result = run(path, "-j", "2", "--sandbox", "none")
    assert result.exit_code == 0, result.output
    folder = tmp_path / "results" / "cup"
    records = stored_records(folder)
    # modern-art: random, r2, r3 at one table (trader does not play it); silk-road: C(4, 3) tables
    assert len(records) == 1 * 2 * 3 + 4 * 2 * 3
    assert records[0]["id"] == "cup/modern-art/random+r2+r3/d1/r1"
    assert records[-1]["id"] == "cup/silk-road/trader+r2+r3/d2/r3"
    assert {"leaderboard.md", "leaderboard.csv", "leaderboard.json", "results.sqlite", "arena.log"} <= {
        p.name for p in folder.iterdir()}
    assert "Tournament cup: 30 of 30 games played" in result.output
    assert "trader is left out: it does not play modern-art" in result.output


def test_one_and_two_workers_give_identical_records_and_ratings(tmp_path):
    path = write_tournament(tmp_path, bots=MIXED, deals=3)
    assert run(path, "-j", "1", "--sandbox", "none", "--results", "one").exit_code == 0
    assert run(path, "-j", "2", "--sandbox", "none", "--results", "two").exit_code == 0
    one, two = tmp_path / "one" / "cup", tmp_path / "two" / "cup"
    assert stored_records(one) == stored_records(two)
    assert (one / "leaderboard.json").read_text() == (two / "leaderboard.json").read_text()
    assert (one / "leaderboard.md").read_text() == (two / "leaderboard.md").read_text()


def test_workers_make_the_specs_they_play_and_store_what_an_in_process_run_stores(tmp_path, monkeypatch):
    """A fresh run's main process makes no spec but the first (its sandbox says whether to pin workers): the
    workers make the specs they play from the schedule they inherit. The records, keys and leaderboard are an
    in-process run's (-j 0, which makes every spec itself)."""
    from arena.runs import deals

    made: list[tuple[int, int]] = []  # (process, first order) of each deal block made; a worker's are its own copy
    real = deals.TableDeal.specs

    def counted(self, first_order, rotations=None):
        made.append((os.getpid(), first_order))
        return real(self, first_order, rotations)

    monkeypatch.setattr(deals.TableDeal, "specs", counted)
    path = write_tournament(tmp_path, bots=MIXED, deals=3)
    assert run(path, "-j", "2", "--sandbox", "none", "--results", "two").exit_code == 0
    assert made == [(os.getpid(), 0)]
    made.clear()
    again = run(path, "-j", "2", "--sandbox", "none", "--results", "two")  # a rerun reads every spec's key
    assert again.exit_code == 0 and "0 to play" in again.output
    assert sorted(made) == [(os.getpid(), order) for order in range(0, 45, 3)]  # each deal block made once
    assert run(path, "-j", "0", "--sandbox", "none", "--results", "inline").exit_code == 0
    two, inline = tmp_path / "two" / "cup", tmp_path / "inline" / "cup"
    assert len(stored_records(two)) == 45 and stored_records(two) == stored_records(inline)
    keys = []
    for folder in (two, inline):
        store = open_store(str(folder))
        try:
            keys.append(store.query("SELECT key FROM games ORDER BY current"))
        finally:
            store.close()
    assert keys[0] == keys[1] and len(keys[0]) == 45
    assert (two / "leaderboard.json").read_text() == (inline / "leaderboard.json").read_text()


def test_a_rerun_resumes_without_playing_stored_games_again(tmp_path, plugins):
    tournament = load_tournament(write_tournament(tmp_path, bots=MIXED), plugins)
    first = run_tournament(tournament, plugins, jobs=2, sandbox="none", progress_stream=io.StringIO())
    assert (first.played, first.stored, first.total) == (30, 30, 30)
    again = run_tournament(tournament, plugins, jobs=2, sandbox="none", progress_stream=io.StringIO())
    assert (again.reused, again.played) == (30, 0)


def test_a_changed_file_plays_its_new_games_and_keeps_the_old_ones_as_history(tmp_path):
    path = write_tournament(tmp_path, seed=5)
    assert run(path, "-j", "1", "--sandbox", "none").exit_code == 0
    folder = tmp_path / "results" / "cup"
    before = stored_records(folder)
    write_tournament(tmp_path, seed=6)  # every deal changes
    again = run(path, "-j", "1", "--sandbox", "none")
    assert again.exit_code == 0, again.output
    after = stored_records(folder)
    assert len(after) == len(before) and all(a["setup"] != b["setup"] for a, b in zip(after, before))
    store = open_store(str(folder))
    try:
        assert store.header()["definition"]["seed"] == 6
        assert store.count_history() == len(before)  # kept, out of the standings
    finally:
        store.close()
    fresh = run(path, "-j", "1", "--sandbox", "none", "--fresh")
    assert fresh.exit_code == 0
    store = open_store(str(folder))
    try:
        assert store.count_history() == 0 and store.count() == len(after)
    finally:
        store.close()


def test_a_worker_log_line_reaches_the_log_file(tmp_path):
    path = write_tournament(tmp_path, bots=("random", "logbot=py:test_tournament_run:LoggingBot"),
                            games="silk-road:2", deals=2)
    assert run(path, "-j", "2", "--sandbox", "none").exit_code == 0
    lines = (tmp_path / "results" / "cup" / "arena.log").read_text().splitlines()
    hello = [line for line in lines if "hello from seat" in line]
    assert len(hello) == 4  # one per game: 1 table x 2 deals x 2 rotations
    for line in hello:
        assert " worker-" in line and " WARNING cup/silk-road/random+logbot/d" in line
        assert " logbot: hello from seat " in line
    finished = [line for line in lines if "finished in" in line]
    assert len(finished) == 4 and all(" worker-" in line and " INFO cup/silk-road/" in line for line in finished)


def test_export_writes_records_that_replay(tmp_path):
    path = write_tournament(tmp_path, bots=MIXED)
    assert run(path, "-j", "2", "--sandbox", "none").exit_code == 0
    exported = CliRunner().invoke(cli, ["export", "results/cup"])
    assert exported.exit_code == 0
    lines = exported.output.splitlines()
    assert [json.loads(line)["id"] for line in lines] == [r["id"] for r in stored_records(tmp_path / "results" / "cup")]
    replayed = CliRunner().invoke(cli, ["replay", "-", "--quiet"], input=exported.output)
    assert replayed.exit_code == 0, replayed.output
    assert replayed.output.strip() == "30 of 30 records replay exactly"


def test_export_and_leaderboard_need_a_results_folder(tmp_path):
    for command in ("export", "leaderboard"):
        result = CliRunner().invoke(cli, [command, str(tmp_path)])
        assert result.exit_code == 2
        assert result.output.strip() == (f"Error: {tmp_path}: no results.sqlite in it "
                                         f"(expected a tournament's results folder, e.g. results/demo)")


def test_a_game_that_fails_is_reported_not_stored_and_retried_on_rerun(tmp_path, monkeypatch):
    path = write_tournament(tmp_path, games="silk-road:2", bots=("random", "r2=py:arena_bots.random_bot:RandomBot"))
    real = runs_play.play_record

    def failing(spec):
        if spec.id == "cup/silk-road/random+r2/d2/r1":
            raise RuntimeError("the engine broke")
        return real(spec)

    monkeypatch.setattr(runs_play, "play_record", failing)  # the forked workers inherit it
    result = CliRunner().invoke(cli, ["run", path, "-j", "2", "--sandbox", "none"])
    assert result.exit_code == 1
    assert "failed: cup/silk-road/random+r2/d2/r1: RuntimeError: the engine broke" in result.stderr
    assert "1 games failed and were not stored" in result.stderr
    assert len(stored_records(tmp_path / "results" / "cup")) == 3
    log_text = (tmp_path / "results" / "cup" / "arena.log").read_text()
    assert "ERROR cup/silk-road/random+r2/d2/r1 arena.runs: game failed" in log_text
    assert "RuntimeError: the engine broke" in log_text  # with its traceback
    monkeypatch.setattr(runs_play, "play_record", real)
    assert run(path, "-j", "2", "--sandbox", "none").exit_code == 0
    assert len(stored_records(tmp_path / "results" / "cup")) == 4


def test_a_worker_that_dies_loses_only_its_game(tmp_path, monkeypatch):
    path = write_tournament(tmp_path, games="silk-road:2", deals=3,
                            bots=("random", "r2=py:arena_bots.random_bot:RandomBot"))
    real = runs_play.play_record

    def dying(spec):
        if spec.id == "cup/silk-road/random+r2/d1/r2":
            os._exit(3)
        return real(spec)

    monkeypatch.setattr(runs_play, "play_record", dying)
    result = CliRunner().invoke(cli, ["run", path, "-j", "2", "--sandbox", "none"])
    assert result.exit_code == 1
    assert "failed: cup/silk-road/random+r2/d1/r2: its worker process died (exit code 3)" in result.stderr
    assert len(stored_records(tmp_path / "results" / "cup")) == 5


# -- real processes: SIGKILL and Ctrl-C --


def slow_tournament(folder: Path) -> str:
    slow = [f"s{i}=py:test_tournament_run:SlowBot" for i in range(1, 5)]
    return write_tournament(folder, games="silk-road:3", deals=4, bots=tuple(slow))  # 4 x 4 x 3 = 48 games


def start_run(path: str, root: str, folder: Path, jobs: int = 2) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen(["arena", "run", path, "-j", str(jobs), "--sandbox", "none", "--results", root],
                            cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def wait_for_games(folder: Path, count: int, process: subprocess.Popen) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        stored = stored_count(folder)
        if stored >= count:
            return stored
        time.sleep(0.01)
    raise AssertionError("the run did not store enough games in time")


def wait_until_gone(session: int) -> list[int]:
    deadline = time.monotonic() + 30
    while session_processes(session) and time.monotonic() < deadline:
        time.sleep(0.05)
    return session_processes(session)


@pytest.mark.slow  # three real runs of 48 slow games: ~8 s
def test_a_run_killed_with_sigkill_then_rerun_equals_an_uninterrupted_run(tmp_path):
    path = slow_tournament(tmp_path)
    process = start_run(path, "killed", tmp_path)
    stored = wait_for_games(tmp_path / "killed" / "cup", 6, process)
    process.kill()
    process.wait()
    assert stored < 48
    assert wait_until_gone(process.pid) == []  # its orphaned workers noticed and left
    assert 6 <= stored_count(tmp_path / "killed" / "cup") < 48
    rerun = start_run(path, "killed", tmp_path)
    assert rerun.wait(timeout=120) == 0, rerun.stderr.read()
    whole = start_run(path, "whole", tmp_path)
    assert whole.wait(timeout=120) == 0, whole.stderr.read()
    killed, uninterrupted = tmp_path / "killed" / "cup", tmp_path / "whole" / "cup"
    assert len(stored_records(killed)) == 48
    assert stored_records(killed) == stored_records(uninterrupted)
    assert (killed / "leaderboard.json").read_text() == (uninterrupted / "leaderboard.json").read_text()


@pytest.mark.parametrize("how, status", [("terminal", 130), ("main-process", 130), ("sigterm", 143),
                                         ("sigterm-group", 143)])
def test_ctrl_c_and_sigterm_stop_cleanly_keeping_finished_games(tmp_path, how, status):
    path = slow_tournament(tmp_path)
    process = start_run(path, "results", tmp_path)
    wait_for_games(tmp_path / "results" / "cup", 4, process)
    if how == "terminal":
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C on a terminal does: the whole group
    elif how == "main-process":
        os.kill(process.pid, signal.SIGINT)
    elif how == "sigterm":
        os.kill(process.pid, signal.SIGTERM)  # what `timeout` and a CI runner send
    else:
        os.killpg(process.pid, signal.SIGTERM)
    out, err = process.communicate(timeout=60)
    assert process.returncode == status, err
    assert session_processes(process.pid) == []  # workers (and their bots) are gone
    stored = stored_count(tmp_path / "results" / "cup")
    assert 4 <= stored < 48
    assert f"stopped: {stored} of 48 games stored in results/cup; run the same command again to resume" in err
    assert "Traceback" not in err
    assert f"Tournament cup: {stored} of 48 games played" in out
    assert (tmp_path / "results" / "cup" / "leaderboard.json").exists()
    assert len(stored_records(tmp_path / "results" / "cup")) == stored
