"""The author's kit: ``arena new-bot``, ``arena check-bot`` and ``arena.testing.check_bot`` with its fixtures."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
import textwrap
import tomllib

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.errors import BadBotSpec
from arena.testing import check_bot


def run(*args):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


# -- bots misbehaving on purpose (entered as py: specs) --


class IllegalInSilkRoad:
    """Legal in Modern Art; in Silk Road it always delivers a card it does not hold."""

    def decide(self, request):
        legal = request["legal"]
        decision = request["decision"]
        if decision == "phase2":
            return {"action": "play", "cards": [999], "slots": [0]}
        if decision in ("play_card", "add_double"):
            return {"card": legal["cards"][0]}
        if decision in ("bid", "sealed_bid"):
            return {"bid": None} if decision == "bid" else {"bid": 0}
        if decision == "set_price":
            return {"price": legal["min"]}
        if decision == "accept_price":
            return {"accept": False}
        if decision == "flip_phantom":
            return {"flip": False}
        if decision == "load_ship":
            return {"good": legal["goods"][0]}
        if decision == "phase1":
            return {"action": "pass"}
        return {"count": 0}


class ClockDriven(IllegalInSilkRoad):
    """Legal everywhere, but draws its Silk Road choices from an unseeded generator."""

    def __init__(self):
        import random

        self.rng = random.Random()

    def decide(self, request):
        if request["decision"] == "phase2":
            return {"action": "draw"} if self.rng.random() < 0.5 else {
                "action": "play", "cards": [request["legal"]["play"][0]], "slots": [self.rng.randrange(6)]}
        return super().decide(request)


# -- arena new-bot --


def scaffold(tmp_path, name="my-bot"):
    result = run("new-bot", name, "--dir", str(tmp_path / name))
    assert result.exit_code == 0, result.output
    return tmp_path / name


def test_new_bot_writes_a_plugin_distribution(tmp_path):
    folder = scaffold(tmp_path, "sample-bot")  # not the README's my-bot: it may be installed here
    files = sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())
    assert files == [".github/arena-gate.sh", ".github/workflows/arena.yml", ".gitignore", "README.md",
                     "pyproject.toml", "sample_bot/__init__.py", "sample_bot/bot.py", "sample_bot/plugin.py",
                     "tests/test_sample_bot.py"]
    project = tomllib.loads((folder / "pyproject.toml").read_text())
    assert project["project"]["name"] == "sample-bot"
    # arena's name on the index, pinned to the running arena (a commit, a folder or a version)
    assert re.fullmatch(r"knizia-arena( @ \S+|==\S+)", project["project"]["dependencies"][0])
    assert project["project"]["optional-dependencies"]["test"] == ["pytest>=8"]  # what its README installs
    assert project["project"]["entry-points"]["arena"] == {"sample-bot": "sample_bot.plugin"}
    assert 'arena_check_bot("sample-bot")' in (folder / "tests" / "test_sample_bot.py").read_text()
    assert "arena check-bot sample-bot" in (folder / "README.md").read_text()


def test_the_scaffolded_bot_registers_and_plays_both_games_legally(tmp_path, monkeypatch, fresh_plugins):
    folder = scaffold(tmp_path, "fresh-bot")
    monkeypatch.syspath_prepend(str(folder))
    plugins = fresh_plugins()
    plugins.register_module(importlib.import_module("fresh_bot.plugin"), "fresh-bot")
    assert plugins.bot("fresh-bot").options == {"boldness": 0.5}
    report = check_bot("fresh-bot", games=3, sandbox="none", plugins=plugins)
    assert [check.game for check in report.checks] == ["modern-art", "silk-road"]
    assert all(check.games == 3 and check.deterministic for check in report.checks)
    bold = check_bot("fresh-bot:boldness=0.9", game="modern-art", games=2, sandbox="none", plugins=plugins)
    assert bold.bot == "fresh-bot:boldness=0.9"


@pytest.mark.parametrize("name, message", [
    ("random", "bot name 'random' is taken by plugin arena-bots"),
    ("My Bot", "expected lowercase letters and digits"),
    ("json", "a Python module 'json' is already installed"),
], ids=["taken", "not-a-word", "shadows-a-module"])
def test_new_bot_refuses_a_name_it_cannot_use(tmp_path, name, message):
    result = run("new-bot", name, "--dir", str(tmp_path / "out"))
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_new_bot_never_writes_into_a_folder_with_files(tmp_path):
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("mine")
    result = run("new-bot", "sample-bot", "--dir", str(tmp_path / "mine"))
    assert result.exit_code == 2 and "exists and is not empty" in result.output
    assert [path.name for path in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_new_bot_writes_into_a_new_folder_named_after_the_bot_by_default(isolated):
    result = run("new-bot", "other-bot")
    assert result.exit_code == 0
    assert (isolated / "other-bot" / "other_bot" / "bot.py").exists()


# -- arena check-bot --


def test_check_bot_reports_each_game_of_a_clean_bot():
    result = run("check-bot", "random", "--games", "3", "--sandbox", "none")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for game in ("modern-art", "silk-road"):
        row = next(line for line in lines if line.startswith(game))
        assert "3 vs random" in row and "none" in row and row.rstrip().endswith("yes")
    assert "OK: 6 games without a fault" in result.output


def test_check_bot_exits_1_and_quotes_the_first_faults():
    result = run("check-bot", "bad=py:test_authoring:IllegalInSilkRoad", "--games", "2", "--sandbox", "none")
    assert result.exit_code == 1
    assert "silk-road: illegal in check/silk-road/0" in result.output
    assert "modern-art: illegal" not in result.output
    assert "FAULTS" in result.output


def test_check_bot_json_gives_faults_by_kind_times_and_determinism():
    result = run("check-bot", "bad=py:test_authoring:IllegalInSilkRoad", "--games", "2", "--sandbox", "none",
                 "--json")
    report = json.loads(result.output)
    assert report["faulted"] is True
    by_game = {entry["game"]: entry for entry in report["games"]}
    assert by_game["modern-art"]["faults"] == {}
    silk = by_game["silk-road"]
    assert silk["faults"]["illegal"] >= 2 and len(silk["fault_examples"]) == 3
    assert silk["limits_ms"] == {"move": 1000, "bank": 10000}
    times = silk["time_ms"]
    assert times["p50"] <= times["p90"] <= times["p99"] <= times["max"]
    assert silk["repeated_games"] == 2 and silk["deterministic"] is True


def test_check_bot_says_when_the_same_seed_gives_other_moves():
    result = run("check-bot", "clock=py:test_authoring:ClockDriven", "--game", "silk-road", "--games", "2",
                 "--sandbox", "none")
    assert result.exit_code == 0  # not a fault: a clock-driven bot may still be a fine bot
    assert "silk-road: not deterministic: game check/silk-road/0, move" in result.output


def test_check_bot_runs_the_bot_in_the_process_sandbox_by_default():
    result = run("check-bot", "random", "--game", "silk-road", "--games", "2", "--json")
    assert json.loads(result.output)["sandbox"] == "process"
    assert json.loads(result.output)["games"][0]["games"] == 2


@pytest.mark.parametrize("args, message", [
    (["nobody"], "unknown bot 'nobody'"),
    (["random", "--game", "chess"], "unknown game 'chess'"),
    (["trader", "--game", "modern-art"], "bot trader does not play modern-art"),
    (["mcts:iterations=many"], "option iterations of bot mcts takes a value of type int (default 0)"),
], ids=["unknown-bot", "unknown-game", "not-its-game", "bad-option"])
def test_check_bot_refuses_bad_input_with_status_2(args, message):
    result = run("check-bot", *args)
    assert result.exit_code == 2 and message in result.output


# -- arena.testing.check_bot and the pytest plugin --


def test_check_bot_returns_the_report_of_a_class_checked_in_process():
    report = check_bot(IllegalInSilkRoad, game="modern-art", games=2, sandbox="none")
    assert report.games_played == 2 and not report.faulted


def test_check_bot_fails_with_the_report_when_the_bot_faulted():
    with pytest.raises(AssertionError, match="silk-road: illegal in check/silk-road/0"):
        check_bot(IllegalInSilkRoad, games=2, sandbox="none")


def test_a_bot_object_runs_in_the_process_sandbox_only_when_importable():
    with pytest.raises(BadBotSpec, match="not importable as MODULE:CLASS"):
        check_bot(lambda: IllegalInSilkRoad(), sandbox="process")


def test_the_pytest_plugin_gives_authors_a_one_line_test(tmp_path):
    (tmp_path / "test_author.py").write_text(textwrap.dedent('''
        def test_random_conforms(arena_check_bot):
            report = arena_check_bot("random")
            assert report.games_played == 2 * 2  # --arena-games 2, two games

        def test_a_faulty_bot_fails(arena_check_bot):
            arena_check_bot("bad=py:test_authoring:IllegalInSilkRoad", game="silk-road")

        def test_the_registry_is_a_fixture(arena_plugins):
            assert "random" in arena_plugins.bots
    '''))
    tests_folder = str(importlib.import_module("test_authoring").__file__).rsplit("/", 1)[0]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--arena-games", "2",
                           "--arena-sandbox", "none", str(tmp_path / "test_author.py")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": tests_folder})
    assert "1 failed, 2 passed" in done.stdout, done.stdout + done.stderr
    assert "test_a_faulty_bot_fails" in done.stdout and "illegal in check/silk-road/0" in done.stdout
