"""Bot specs: NAME=BOT, one bot entered twice, [[bots]] options and files, cmd: paths resolved once."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.entrants import parse_spec
from arena.errors import BadBotSpec, OptionError, TournamentFileError
from arena.tournament.config import parse_tournament
from tournament_files import tournament_data


def tournament(*bots: dict) -> dict:
    """The tables of a silk-road tournament file entering ``bots``."""
    return tournament_data(bots, "silk-road:2", name="specs", seed=1, deals=None)


# -- NAME=BOT --


@pytest.mark.parametrize("spec, name, target, options", [
    ("me=random", "me", "random", {}),
    ("strong=mcts:iterations=400", "strong", "mcts", {"iterations": 400}),
    ("weak=mcts:iterations=5,exploration=0.7", "weak", "mcts", {"iterations": 5, "exploration": 0.7}),
    ("random=random", "random", "random", {}),
])
def test_name_equals_bot_enters_a_registered_bot_under_that_name(plugins, spec, name, target, options):
    entrant = parse_spec(spec, plugins)
    assert (entrant.name, entrant.kind, entrant.target, entrant.options) == (name, "plugin", target, options)


@pytest.mark.parametrize("spec, message", [
    ("me=nobody", "after '=' expected cmd:COMMAND or py:MODULE:CLASS, or a registered bot"),
    ("me=mcts:depth=3", "bot mcts has no option 'depth'"),
    ("me=mcts:iterations", "option 'iterations' is not key=value"),
    ("random=appraiser", "'random' is the name of another registered bot"),
    ("my bot=random", "the name before '=' must be a plain word"),
    ("=random", "the name before '=' must be a plain word"),
    ("me=", "after '=' expected cmd:COMMAND or py:MODULE:CLASS, or a registered bot"),
])
def test_bad_name_equals_bot_specs_are_refused_in_one_line(plugins, spec, message):
    with pytest.raises((BadBotSpec, OptionError)) as caught:
        parse_spec(spec, plugins)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_one_bot_entered_twice_under_two_names_in_a_tournament(plugins):
    parsed = parse_tournament(tournament({"spec": "random"}, {"spec": "me=random"},
                                         {"spec": "strong=mcts", "options": {"iterations": 40}},
                                         {"spec": "weak=mcts", "options": {"iterations": 4}}), "t.toml", plugins)
    assert [(e.name, e.target, e.options) for e in parsed.entrants] == [
        ("random", "random", {}), ("me", "random", {}), ("strong", "mcts", {"iterations": 40}),
        ("weak", "mcts", {"iterations": 4})]


def test_two_entries_with_one_name_are_still_refused(plugins):
    with pytest.raises(TournamentFileError, match=r"bots\[2\].spec: the name 'random' is already taken by bots\[1\]"):
        parse_tournament(tournament({"spec": "random"}, {"spec": "random"}), "t.toml", plugins)
    with pytest.raises(TournamentFileError, match=r"bots\[2\].spec: the name 'me' is already taken"):
        parse_tournament(tournament({"spec": "me=random"}, {"spec": "me=trader"}), "t.toml", plugins)


def test_arena_play_takes_one_bot_twice_under_two_names():
    result = CliRunner().invoke(cli, ["play", "silk-road", "-b", "random", "-b", "me=random", "-b", "strong=trader",
                                      "--seed", "3", "--sandbox", "none", "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["players"] == ["random", "me", "strong"]


# -- cmd: paths --


@pytest.fixture
def cup(tmp_path, monkeypatch):
    """A tournament folder (``cup/``) with a bot script, a program and a data file; the test runs elsewhere."""
    folder = tmp_path / "cup"
    (folder / "bin").mkdir(parents=True)
    (folder / "my_bot.py").write_text("")
    (folder / "bin" / "bot").write_text("")
    (folder / "weights.bin").write_text("")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return folder


@pytest.mark.parametrize("command, argv", [
    ("python3 my_bot.py", ["python3", "{cup}/my_bot.py"]),
    ("./bin/bot --fast", ["{cup}/bin/bot", "--fast"]),
    ("bin/bot", ["{cup}/bin/bot"]),
    ("python3 my_bot.py --weights=weights.bin", ["python3", "{cup}/my_bot.py", "--weights={cup}/weights.bin"]),
    ("python3 -u my_bot.py missing.py level", ["python3", "-u", "{cup}/my_bot.py", "missing.py", "level"]),
    ("./missing", ["{cup}/missing"]),
    ("/usr/bin/env python3 my_bot.py", ["/usr/bin/env", "python3", "{cup}/my_bot.py"]),
    ("node . bin", ["node", "{cup}", "bin"]),
    ("node bin/", ["node", "{cup}/bin"]),
], ids=["script argument", "./program", "program in a folder", "--key=FILE", "words that are no files",
        "a missing program is still made absolute", "absolute paths stay", "the folder itself",
        "a folder written as one"])
def test_relative_cmd_paths_resolve_against_the_tournament_files_folder(plugins, cup, command, argv):
    data = tournament({"spec": f"mine=cmd:{command}"}, {"spec": "random"})
    entrant = parse_tournament(data, str(cup / "cup.toml"), plugins).entrants[0]
    assert entrant.command == [word.replace("{cup}", str(cup)) for word in argv]
    assert entrant.base_dir == str(cup)


def test_on_the_command_line_cmd_paths_resolve_against_the_current_folder(plugins, cup, monkeypatch):
    monkeypatch.chdir(cup)
    assert parse_spec("mine=cmd:python3 my_bot.py", plugins).command == ["python3", str(cup / "my_bot.py")]


@pytest.mark.parametrize("entry, message", [
    ({"spec": "mine=cmd:python3 my_bot.py", "files": "bot/**"}, r"bots\[1\].files: expected a list of glob patterns"),
    ({"spec": "mine=cmd:python3 my_bot.py", "files": ["nothing/**"]},
     r"bots\[1\].files: 'nothing/\*\*' matches no file"),
    ({"spec": "random", "files": ["my_bot.py"]}, r"bots\[1\].files: files = \[...\] is for cmd: bots"),
])
def test_bad_files_are_refused_naming_the_key(plugins, cup, entry, message):
    with pytest.raises(TournamentFileError, match=message):
        parse_tournament(tournament(entry, {"spec": "random"}), str(cup / "cup.toml"), plugins)


def test_files_are_kept_on_the_entry(plugins, cup):
    data = tournament({"spec": "mine=cmd:python3 my_bot.py", "files": ["bin/**", "*.bin"]}, {"spec": "random"})
    assert parse_tournament(data, str(cup / "cup.toml"), plugins).entrants[0].files == ("bin/**", "*.bin")
