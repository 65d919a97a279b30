"""`arena compare` on real games: verdicts, determinism across -j, resume, storage, outputs, bad input."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.runs.store import open_store
from arena.compare.stats import MIN_BLOCKS
from arena_bots import modern_art_random
from arena_bots.modern_art_heuristic import ModernArtHeuristic
from arena_bots.random_bot import RandomBot


class HalfRandomAppraiser:
    """The appraiser, made to play a random legal action at half of its decisions: a weakened copy."""

    def start(self, info: dict) -> None:
        self.appraiser = ModernArtHeuristic()
        self.rng = random.Random(info["seed"])

    def decide(self, request: dict) -> dict:
        action = self.appraiser.decide(request)
        return modern_art_random.choose(request, self.rng) if self.rng.random() < 0.5 else action


class OtherSeedRandom(RandomBot):
    """The random bot drawing other random numbers: a change that makes it neither better nor worse."""

    def start(self, info: dict) -> None:
        super().start({**info, "seed": info["seed"] + 1})


class SlowRandom(RandomBot):
    """The random bot taking two milliseconds per decision, so that a comparison lasts long enough to stop."""

    def decide(self, request: dict) -> dict:
        time.sleep(0.002)
        return super().decide(request)


MA4 = ["compare", "modern-art", "--players", "4", "--sandbox", "none", "-j", "2", "--seed", "1"]


def run(*args, env=None):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, env=env)


def outcome_of(result) -> dict:
    return json.loads(result.stdout)


def test_a_bot_against_itself_is_accepted_as_no_regression_in_the_process_sandbox():
    result = run("compare", "modern-art", "--candidate", "appraiser", "--baseline", "appraiser", "--players", "4",
                 "-j", "2", "--json")
    assert result.exit_code == 0, result.output
    outcome = outcome_of(result)
    assert outcome["verdict"] == "not-worse"
    assert outcome["candidate"] == "appraiser (candidate)" and outcome["baseline"] == "appraiser (baseline)"
    assert outcome["field"] == ["appraiser"] * 3
    # identical bots play identical twins: every pair drawn, decided as early as the test allows
    assert outcome["blocks"] == MIN_BLOCKS and outcome["games"] == MIN_BLOCKS * 8
    assert (outcome["wins"], outcome["draws"], outcome["losses"]) == (0, MIN_BLOCKS * 4, 0)
    assert outcome["sprt"]["llr"] <= outcome["sprt"]["lower"]


def test_a_neutral_change_is_not_taken_for_a_regression_over_several_seeds():
    verdicts = []
    for seed in range(1, 7):
        result = run(*MA4, "--candidate", "other=py:test_compare_run:OtherSeedRandom", "--baseline", "random",
                     "--sprt", "0,-40", "--seed", str(seed), "--name", f"seed{seed}", "--json")
        verdicts.append(outcome_of(result)["verdict"])
        assert result.exit_code == {"not-worse": 0, "regression": 1, "no-verdict": 3}[verdicts[-1]]
    assert "no-verdict" not in verdicts
    assert verdicts.count("regression") <= 1  # alpha = 0.05: a generous margin over 6 runs


@pytest.mark.parametrize("candidate", ["random", "weak=py:test_compare_run:HalfRandomAppraiser"])
def test_a_weaker_candidate_is_found_to_regress(candidate):
    result = run(*MA4, "--candidate", candidate, "--baseline", "appraiser", "--json")
    assert result.exit_code == 1, result.output
    outcome = outcome_of(result)
    assert outcome["verdict"] == "regression"
    assert outcome["sprt"]["llr"] >= outcome["sprt"]["upper"]
    assert outcome["score_difference"]["high"] < 0 and outcome["losses"] > outcome["wins"]
    assert outcome["games"] < 2000


def test_a_stronger_candidate_is_accepted_and_the_summary_says_why():
    result = run(*MA4, "--candidate", "appraiser", "--baseline", "random")
    assert result.exit_code == 0
    out = result.stdout
    assert "candidate appraiser, baseline random, field random, random, random" in out
    assert "Verdict: not worse: the SPRT accepted H0" in out and "Exit status 0." in out
    assert "rank score difference per pair" in out and "Elo-like difference" in out and "money difference" in out


def test_the_verdict_and_its_games_are_the_same_for_any_number_of_workers():
    outcomes = []
    for jobs in ("1", "2"):
        result = run("compare", "silk-road", "--candidate", "trader", "--baseline", "random", "--sandbox", "none",
                     "-j", jobs, "--name", f"j{jobs}", "--seed", "5", "--json")
        outcomes.append({key: value for key, value in outcome_of(result).items()
                         if key not in ("comparison", "results", "played_now", "reused")})
    assert outcomes[0] == outcomes[1]


def test_a_comparison_resumes_and_ends_as_an_uninterrupted_one(isolated):
    args = [*MA4, "--candidate", "weak=py:test_compare_run:HalfRandomAppraiser", "--baseline", "appraiser"]
    short = run(*args, "--max-games", "40", "--json")
    assert short.exit_code == 3 and outcome_of(short)["verdict"] == "no-verdict"
    assert "the most --max-games allows" in run(*args, "--max-games", "40").stdout
    resumed = outcome_of(run(*args, "--json"))
    whole = outcome_of(run(*args, "--name", "whole", "--json"))
    # the 40 stored games are not played again: every game played now is a new one in the store
    # (games still in flight when the verdict came finish and are stored, uncounted)
    assert resumed["played_now"] >= resumed["games"] - 40
    assert resumed["reused"] == 40
    # the folder's current games are the verdict's; the uncounted ones are kept as history
    assert len(run("export", resumed["results"]).stdout.splitlines()) == resumed["games"]
    assert len(run("export", resumed["results"], "--history").stdout.splitlines()) == 40 + resumed["played_now"]
    run_only = ("comparison", "results", "played_now", "reused")
    assert {k: v for k, v in resumed.items() if k not in run_only} == \
           {k: v for k, v in whole.items() if k not in run_only}
    again = outcome_of(run(*args, "--json"))
    assert again["played_now"] == 0 and again["verdict"] == whole["verdict"]


def test_a_fixed_size_comparison_plays_every_deal_asked():
    result = run(*MA4, "--candidate", "appraiser", "--baseline", "random", "--no-sprt", "--deals", "3", "--json")
    outcome = outcome_of(result)
    assert result.exit_code == 0 and outcome["mode"] == "fixed" and "sprt" not in outcome
    assert outcome["games"] == 24 and outcome["pairs"] == 12 and outcome["verdict"] == "not-worse"


def test_results_are_stored_like_a_tournament_and_replay(isolated):
    result = run(*MA4, "--candidate", "appraiser", "--baseline", "random", "--no-sprt", "--deals", "2",
                 "--name", "stored")
    assert result.exit_code == 0
    folder = isolated / "results" / "stored"
    exported = run("export", str(folder))
    records = [json.loads(line) for line in exported.stdout.splitlines()]
    assert len(records) == 16 and records[0]["id"] == "stored/modern-art/t1/d1/r1"
    replayed = CliRunner().invoke(cli, ["replay", "-", "--quiet"], input=exported.stdout)
    assert replayed.exit_code == 0 and "16 of 16 records replay exactly" in replayed.output
    board = run("leaderboard", str(folder)).stdout
    assert "appraiser" in board and "random" in board
    assert json.loads((folder / "compare.json").read_text())["games"] == 16
    assert (folder / "compare.md").read_text().startswith("### arena compare: appraiser vs random")


def test_a_changed_comparison_under_the_same_name_plays_anew_and_keeps_the_old_games(isolated):
    args = [*MA4, "--candidate", "appraiser", "--baseline", "random", "--no-sprt", "--deals", "2", "--name", "x",
            "--seed", "7"]
    assert run(*args).exit_code == 0
    changed = run(*args[:-1], "8", "--json")
    assert changed.exit_code == 0
    assert json.loads(changed.stdout)["played_now"] == 16  # other deals: nothing reused
    again = run(*args[:-1], "8", "--json")
    assert json.loads(again.stdout)["played_now"] == 0
    store = open_store(str(isolated / "results" / "x"))
    try:
        assert (store.count(), store.count_history()) == (16, 16)
    finally:
        store.close()
    assert run(*args, "--fresh").exit_code == 0


def test_without_a_seed_each_comparison_draws_its_own_secret_and_keeps_it(isolated):
    args = [*[a for a in MA4 if a not in ("--seed", "1")], "--candidate", "appraiser", "--baseline", "random",
            "--no-sprt", "--deals", "1", "--json"]
    first = json.loads(run(*args, "--name", "a").stdout)
    again = json.loads(run(*args, "--name", "a").stdout)
    json.loads(run(*args, "--name", "b").stdout)  # a second comparison, in folder b
    assert first["seed"] is None and again["played_now"] == 0  # the kept secret gives the same games
    deals = [[json.loads(line)["setup"] for line in run("export", f"results/{name}").stdout.splitlines()]
             for name in ("a", "b")]
    assert deals[0] != deals[1]  # another folder, another secret
    store = open_store("results/a")
    try:
        secret = store.meta("secret")
    finally:
        store.close()
    assert len(bytes.fromhex(secret)) == 16
    for shown in (run("export", "results/a").stdout, (isolated / "results" / "a" / "compare.json").read_text(),
                  run("leaderboard", "results/a", "--format", "json").stdout):
        assert secret not in shown


def test_markdown_goes_to_the_github_step_summary(isolated):
    summary = isolated / "summary.md"
    summary.write_text("# earlier step\n")
    result = run(*MA4, "--candidate", "random", "--baseline", "appraiser",
                 env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 1
    text = summary.read_text()
    assert text.startswith("# earlier step\n### arena compare: random vs appraiser (modern-art, 4 players)")
    assert "**❌ REGRESSION**" in text and "| rank score difference per pair" in text


@pytest.mark.parametrize("args, message", [
    (["--sprt", "0"], "expected ELO0,ELO1"),
    (["--sprt", "0,0"], "ELO1 must differ from ELO0"),
    (["--alpha", "0.7"], "alpha must be between 0 and 0.5"),
    (["--max-games", "5"], "less than one deal"),
    (["--field", "random", "--field", "random", "--field", "random", "--field", "random"], "do not fit"),
    (["--players", "7"], "modern-art takes 3 to 5 players, got 7"),
    (["--option", "phantom=true"], "phantom"),
    (["--field", "trader"], "does not play modern-art"),
    (["--field", "nobody"], "unknown bot 'nobody'"),
])
def test_bad_input_is_one_line_and_exit_status_2(args, message):
    result = run("compare", "modern-art", "--candidate", "appraiser", "--baseline", "random", "--players", "4",
                 "--sandbox", "none", *args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.skipif(shutil.which("arena") is None, reason="the arena command is not installed")
def test_the_installed_command_exits_with_the_verdict(isolated):
    completed = subprocess.run(
        ["arena", "compare", "silk-road", "--candidate", "random", "--baseline", "trader", "--sandbox", "none",
         "-j", "2"], capture_output=True, text=True, cwd=isolated, timeout=300)
    assert completed.returncode == 1, completed.stderr
    assert "Verdict: REGRESSION" in completed.stdout
    with sqlite3.connect(isolated / "results" / "compare-silk-road-random-vs-trader" / "results.sqlite") as db:
        assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] >= 8


def stored_orders(folder: Path) -> set[int]:
    """Schedule places of the stored current games, read without creating or locking anything."""
    if not (folder / "results.sqlite").exists():
        return set()
    try:
        db = sqlite3.connect(f"file:{folder / 'results.sqlite'}?mode=ro", uri=True)
        try:
            return {order for (order,) in db.execute("SELECT current FROM games WHERE current IS NOT NULL")}
        finally:
            db.close()
    except sqlite3.Error:
        return set()


@pytest.mark.skipif(shutil.which("arena") is None, reason="the arena command is not installed")
def test_ctrl_c_keeps_the_finished_games_and_the_same_command_goes_on(isolated):
    command = ["arena", "compare", "modern-art", "--players", "4", "--candidate", "slow=py:test_compare_run:SlowRandom",
               "--baseline", "random", "--sandbox", "none", "-j", "2", "--no-sprt", "--name", "stop"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    folder = isolated / "results" / "stop"
    process = subprocess.Popen([*command, "--deals", "500"], cwd=isolated, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while len(stored_orders(folder)) < 10 and time.monotonic() < deadline:
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "run the same command again to go on" in err
    kept = stored_orders(folder)
    assert len(kept) >= 10
    again = subprocess.run([*command, "--deals", "3", "--json"], cwd=isolated, env=env, capture_output=True,
                           text=True, timeout=120)
    outcome = json.loads(again.stdout)
    assert outcome["games"] == 24
    assert outcome["played_now"] == len(set(range(24)) - kept)  # only what was missing is played
    assert stored_orders(folder) == set(range(24))  # the verdict's games are current; the others history
