"""The core commands through click's CliRunner, plus real runs of the installed `arena`."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from arena.cli import cli

MA4 = ["modern-art", "-b", "random", "-b", "appraiser", "-b", "random", "-b", "appraiser"]
SR3 = ["silk-road", "-b", "random", "-b", "trader", "-b", "random"]


def run(*args, input=None):
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def test_games_lists_both_games_with_counts_and_options():
    out = run("games").output
    assert "modern-art" in out and "3-5" in out and "phantom" in out and "double_split" in out
    assert "silk-road" in out and "2-4" in out and "start_money" in out


def test_bots_lists_the_reference_bots_and_filters_by_game():
    out = run("bots").output
    assert "random" in out and "appraiser" in out and "trader" in out and "arena-bots" in out
    only = run("bots", "--game", "silk-road").output
    assert "trader" in only and "appraiser" not in only


def test_plugins_lists_hooks():
    out = run("plugins").output
    assert "reference-bots" in out and "register_bots" in out and "register_games" in out


@pytest.mark.parametrize("args", [MA4, SR3], ids=["modern-art", "silk-road"])
def test_play_prints_an_account_and_the_final_result(args):
    result = run("play", *args, "--seed", "7", "--sandbox", "none")
    assert result.exit_code == 0, result.output
    assert "Final result:" in result.output
    assert "Faults: none" in result.output


@pytest.mark.parametrize("args", [MA4, SR3], ids=["modern-art", "silk-road"])
def test_play_json_record_replays(args, tmp_path):
    record_file = tmp_path / "game.json"
    result = run("play", *args, "--seed", "3", "--sandbox", "none", "--json", "--record", str(record_file))
    record = json.loads(result.output)
    assert record["seed"] == 3 and record["players"] == args[2::2]
    assert json.loads(record_file.read_text()) == record
    replayed = run("replay", str(record_file))
    assert replayed.exit_code == 0 and "1 of 1 records replay exactly" in replayed.output


def test_the_same_seed_gives_the_same_game():
    first = json.loads(run("play", *MA4, "--seed", "11", "--sandbox", "none", "--json").output)
    second = json.loads(run("play", *MA4, "--seed", "11", "--sandbox", "none", "--json").output)
    assert first == second


def test_replay_reports_a_tampered_record_with_status_1(tmp_path):
    record = json.loads(run("play", *MA4, "--seed", "5", "--sandbox", "none", "--json").output)
    record["result"]["money"][0] += 1
    result = run("replay", "-", input=json.dumps(record))
    assert result.exit_code == 1
    assert "MISMATCH" in result.output and "result differs" in result.output


def test_replay_reads_json_lines_from_stdin():
    lines = [run("play", *SR3, "--seed", str(seed), "--sandbox", "none", "--json").output.strip()
             for seed in (1, 2)]
    result = run("replay", "-", input="\n".join(lines) + "\n")
    assert result.exit_code == 0 and "2 of 2 records replay exactly" in result.output


def test_play_with_a_setup_file(tmp_path):
    setup = {"players": 3, "hands": [[0, 12], [25, 39], [54]], "deck": [], "first": 0}
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(setup))
    result = run("play", "modern-art", "-b", "random", "-b", "random", "-b", "random",
                 "--setup", str(path), "--sandbox", "none", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["setup"] == setup


BAD_INPUT = [
    (["play", "chess", "-b", "random"], "unknown game 'chess'"),
    (["play", "modern-art", "-b", "random", "-b", "nobody", "-b", "random"], "unknown bot 'nobody'"),
    (["play", "modern-art", "-b", "random", "-b", "random"], "modern-art takes 3 to 5 players, got 2"),
    (["play", *MA4, "--option", "colour=blue"], "has no option 'colour'"),
    (["play", *MA4, "--option", "phantom=true"], "phantom"),
    (["play", *MA4, "--option", "phantom=maybe"], "takes a bool"),
    (["play", *MA4, "--option", "phantom"], "expected K=V"),
    (["play", "silk-road", "-b", "appraiser", "-b", "random"], "does not play silk-road"),
    (["play", *MA4, "--setup", "missing.json"], "cannot read setup file"),
    (["bots", "--game", "go"], "unknown game 'go'"),
    (["play", "modern-art", "-b", "x=zap:foo", "-b", "random", "-b", "random"], "bot spec"),
]


@pytest.mark.parametrize("args,message", BAD_INPUT, ids=[" ".join(a[:1] + [m]) for a, m in BAD_INPUT])
def test_bad_input_is_one_line_and_status_2(args, message):
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and message in errors[0]  # one line says what to fix


SETUP_REFUSALS = [
    ({"players": 3, "hands": [[0], [0], [1]], "deck": [], "first": 0}, "twice"),
    ({"players": 3, "hands": [[0], [70], [1]], "deck": [], "first": 0}, "70"),
    ({"players": 3, "hands": [[0], [1]], "deck": [], "first": 0}, "hands"),
    ({"players": 3, "hands": [[0], [1], [2]], "deck": [], "first": 0, "money": [10, -1, 5]}, "negative"),
    ({"players": 3, "hands": [[0], [1], [2]], "deck": [], "first": 3}, "first"),
]


@pytest.mark.parametrize("setup,message", SETUP_REFUSALS, ids=[m for _, m in SETUP_REFUSALS])
def test_a_refused_setup_file_is_status_2(setup, message, tmp_path):
    path = tmp_path / "setup.json"
    path.write_text(json.dumps(setup))
    result = run("play", "modern-art", "-b", "random", "-b", "random", "-b", "random",
                 "--setup", str(path), "--sandbox", "none")
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output


def test_a_setup_file_that_is_not_json_is_status_2(tmp_path):
    path = tmp_path / "setup.json"
    path.write_text("{hands: ")
    result = run("play", *MA4, "--setup", str(path), "--sandbox", "none")
    assert result.exit_code == 2 and "is not JSON" in result.output


@pytest.mark.skipif(shutil.which("arena") is None, reason="the arena command is not installed")
def test_the_installed_command_plays_and_replays(tmp_path):
    record = tmp_path / "r.json"
    done = subprocess.run(["arena", "play", *MA4, "--seed", "9", "--sandbox", "none", "--record", str(record)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "Final result:" in done.stdout
    check = subprocess.run(["arena", "replay", str(record)], capture_output=True, text=True)
    assert check.returncode == 0 and "1 of 1 records replay exactly" in check.stdout
    module = subprocess.run(["python", "-m", "arena", "games"], capture_output=True, text=True)
    assert module.returncode == 0 and "silk-road" in module.stdout


def test_play_records_faults_and_stops_asking_after_max_faults(tmp_path):
    (tmp_path / "flybot.py").write_text(
        "class Fly:\n    def decide(self, request):\n        return {'action': 'fly'}\n")
    result = run("play", "modern-art", "-b", "random", "-b", "random", "-b", "fly=py:flybot:Fly",
                 "--seed", "2", "--sandbox", "none", "--max-faults", "2", "--json")
    record = json.loads(result.output)
    assert [(f["seat"], f["kind"]) for f in record["faults"]] == [(2, "malformed"), (2, "malformed")]
    # after the second fault the seat plays defaults unasked: the game still finishes and replays
    assert sum(1 for move in record["moves"] if move["seat"] == 2) > 2
    assert run("replay", "-", input=json.dumps(record)).exit_code == 0
