"""Bot versions: what changes a bot's version and what does not, for every kind of bot."""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import sys
import textwrap

import pytest
from click.testing import CliRunner

from arena import hookimpl
from arena.cli import cli
from arena.entrants import parse_spec
from arena.tournament.config import parse_tournament
from arena import versions
from arena.versions import cmd_files, entrant_version, entrant_versions, version_change, version_changes

HASH = r"sha256:[0-9a-f]{12}"


def cmd_version(spec: str, plugins, base_dir) -> str:
    return entrant_version(parse_spec(spec, plugins, base_dir=str(base_dir)), plugins)


@pytest.fixture
def bot_folder(tmp_path):
    """A tournament folder holding a bot of its own (``bot/``), a bot file beside the tournament file, and other
    things."""
    (tmp_path / "bot").mkdir()
    (tmp_path / "bot" / "main.py").write_text("print('ready')\n")
    (tmp_path / "bot" / "helper.py").write_text("WEIGHT = 1\n")
    (tmp_path / "loose_bot.py").write_text("print('ready')\n")
    (tmp_path / "notes.txt").write_text("unrelated\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "thing.py").write_text("X = 1\n")
    return tmp_path


# -- cmd: bots --


def test_a_cmd_version_is_the_command_and_its_files_hashed(plugins, bot_folder):
    assert re.fullmatch(f"cmd {HASH}", cmd_version("mine=cmd:python3 bot/main.py", plugins, bot_folder))


@pytest.mark.parametrize("edit", ["bot/main.py", "bot/helper.py"], ids=["the program", "a file in its folder"])
def test_editing_a_cmd_bots_program_or_folder_changes_its_version(plugins, bot_folder, edit):
    before = cmd_version("mine=cmd:python3 bot/main.py", plugins, bot_folder)
    (bot_folder / edit).write_text((bot_folder / edit).read_text() + "# changed strategy\n")
    after = cmd_version("mine=cmd:python3 bot/main.py", plugins, bot_folder)
    assert before != after and version_changes(before, after) == ("code",)


@pytest.mark.parametrize("edit", ["notes.txt", "other/thing.py", "loose_bot.py"])
def test_editing_an_unrelated_file_keeps_a_cmd_bots_version(plugins, bot_folder, edit):
    before = cmd_version("mine=cmd:python3 bot/main.py", plugins, bot_folder)
    (bot_folder / edit).write_text("something else entirely\n")
    assert cmd_version("mine=cmd:python3 bot/main.py", plugins, bot_folder) == before


def test_a_bot_beside_the_tournament_file_is_known_by_the_files_its_command_names(plugins, bot_folder):
    """Its folder is shared (tournament file, results, other bots): editing those must not replay its games."""
    spec = "loose=cmd:python3 loose_bot.py"
    before = cmd_version(spec, plugins, bot_folder)
    (bot_folder / "notes.txt").write_text("edited\n")
    (bot_folder / "bot" / "main.py").write_text("print('edited')\n")
    assert cmd_version(spec, plugins, bot_folder) == before
    (bot_folder / "loose_bot.py").write_text("print('ready')  # edited\n")
    assert cmd_version(spec, plugins, bot_folder) != before


def test_a_bot_given_as_its_folder_is_known_by_the_folders_files(plugins, bot_folder):
    before = cmd_version("mine=cmd:node bot/", plugins, bot_folder)
    (bot_folder / "bot" / "helper.py").write_text("WEIGHT = 2\n")
    assert cmd_version("mine=cmd:node bot/", plugins, bot_folder) != before


def test_results_caches_and_hidden_files_in_a_bots_folder_do_not_count(plugins, bot_folder):
    before = cmd_version("mine=cmd:python3 bot/main.py", plugins, bot_folder)
    for junk in ("__pycache__/main.cpython-311.pyc", ".git/HEAD", "results/cup/results.sqlite",
                 "results/cup/leaderboard.md", "run.log"):
        path = bot_folder / "bot" / junk
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("changes every run\n")
    assert cmd_version("mine=cmd:python3 bot/main.py", plugins, bot_folder) == before


def test_the_same_bot_in_a_moved_folder_keeps_its_version(plugins, bot_folder, tmp_path_factory):
    moved = tmp_path_factory.mktemp("elsewhere") / "cup"
    shutil.copytree(bot_folder, moved)
    assert (cmd_version("mine=cmd:python3 bot/main.py", plugins, moved)
            == cmd_version("mine=cmd:python3 bot/main.py", plugins, bot_folder))


def test_a_version_does_not_depend_on_the_folder_arena_runs_in(plugins, bot_folder, monkeypatch):
    entrant = parse_spec("mine=cmd:python3 bot/main.py", plugins, base_dir=str(bot_folder))
    before = entrant_version(entrant, plugins)
    monkeypatch.chdir(bot_folder / "bot")
    assert entrant_version(entrant, plugins) == before


def test_a_changed_command_line_changes_the_version(plugins, bot_folder):
    assert (cmd_version("mine=cmd:python3 bot/main.py --fast", plugins, bot_folder)
            != cmd_version("mine=cmd:python3 bot/main.py", plugins, bot_folder))


def test_options_change_the_version_as_options(plugins, bot_folder):
    entrant = parse_spec("mine=cmd:python3 bot/main.py", plugins, {"depth": 2}, base_dir=str(bot_folder))
    deeper = parse_spec("mine=cmd:python3 bot/main.py", plugins, {"depth": 3}, base_dir=str(bot_folder))
    first, second = entrant_version(entrant, plugins), entrant_version(deeper, plugins)
    assert first.endswith(' options={"depth":2}')
    assert version_changes(first, second) == ("options",)


def test_files_in_a_tournament_entry_name_the_bots_files(plugins, bot_folder):
    (bot_folder / "data").mkdir()
    (bot_folder / "data" / "book.json").write_text("{}\n")
    data = {"tournament": {"name": "cup", "seed": 1}, "games": [{"name": "silk-road", "players": 2}],
            "bots": [{"spec": "mine=cmd:python3 loose_bot.py", "files": ["data/**"]}, {"spec": "random"}]}
    entrant = parse_tournament(data, str(bot_folder / "cup.toml"), plugins).entrants[0]
    assert entrant.files == ("data/**",)
    assert [path.rpartition("/")[2] for path in cmd_files(entrant)] == ["book.json", "loose_bot.py"]
    before = entrant_version(entrant, plugins)
    (bot_folder / "data" / "book.json").write_text('{"opening": 1}\n')
    assert entrant_version(entrant, plugins) != before


def test_a_folder_too_big_to_be_a_bots_own_falls_back_to_the_named_files(plugins, bot_folder, monkeypatch, caplog):
    monkeypatch.setattr(versions, "MAX_FOLDER_FILES", 1)
    entrant = parse_spec("mine=cmd:python3 bot/main.py", plugins, base_dir=str(bot_folder))
    assert [path.rpartition("/")[2] for path in cmd_files(entrant)] == ["main.py"]
    assert any("too big to be a cmd: bot's own folder" in record.message for record in caplog.records)


# -- py: bots --


def write_module(folder, name: str, strategy: str) -> None:
    (folder / f"{name}.py").write_text(textwrap.dedent(f"""
        class Bot:
            STRATEGY = {strategy!r}
            def decide(self, request):
                return {{}}
    """))


def test_editing_a_py_module_changes_its_version(plugins, tmp_path):
    write_module(tmp_path, "versioned_single", "greedy")
    entrant = parse_spec("me=py:versioned_single:Bot", plugins)
    before = entrant_version(entrant, plugins)
    assert re.fullmatch(f"py {HASH}", before)
    write_module(tmp_path, "versioned_single", "careful!")
    assert version_change(before, entrant_version(entrant, plugins)) == "code"


def test_a_py_module_in_a_package_is_known_by_the_whole_package(plugins, tmp_path):
    package = tmp_path / "versioned_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    write_module(package, "bot", "greedy")
    write_module(package, "tables", "lookup")
    entrant = parse_spec("me=py:versioned_pkg.bot:Bot", plugins)
    before = entrant_version(entrant, plugins)
    write_module(package, "tables", "another lookup")
    assert entrant_version(entrant, plugins) != before


def test_a_py_bot_installed_in_editable_mode_is_found(plugins):
    version = entrant_version(parse_spec("me=py:arena_bots.random_bot:RandomBot", plugins), plugins)
    assert re.fullmatch(f"py {HASH}", version)


# -- registered bots --


def test_a_registered_bot_names_its_distribution_and_version(plugins):
    expected = importlib.metadata.version("arena-bots")
    version = entrant_version(parse_spec("random", plugins), plugins)
    assert re.fullmatch(f"arena-bots {re.escape(expected)} {HASH}", version)


def test_a_registered_bot_under_another_name_or_with_options_runs_the_same_code(plugins):
    plain, renamed, strong = entrant_versions(
        [parse_spec(spec, plugins) for spec in ("mcts", "me=mcts", "strong=mcts:iterations=400")], plugins)
    assert plain == renamed
    assert strong == plain + ' options={"iterations":400}'
    assert version_changes(plain, strong) == ("options",)


def test_bots_of_one_package_share_its_hash(plugins):
    random_version, mcts_version = entrant_versions([parse_spec("random", plugins), parse_spec("mcts", plugins)],
                                                    plugins)
    assert random_version == mcts_version


class Echo:
    def decide(self, request):
        return {}


@hookimpl
def register_bots(register):
    register("echo-versioned", Echo, games=["silk-road"])


def test_a_plugin_registered_directly_is_known_by_its_module_package(fresh_plugins):
    plugins = fresh_plugins()
    plugins.register_module(sys.modules[__name__], "echo-plugin")
    version = entrant_version(parse_spec("echo-versioned", plugins), plugins)
    assert re.fullmatch(f"echo-plugin - {HASH}", version)


def test_arena_bots_shows_each_bots_version():
    output = CliRunner().invoke(cli, ["bots"]).output
    line = next(line for line in output.splitlines() if line.startswith("random "))
    assert re.search(f"arena-bots {re.escape(importlib.metadata.version('arena-bots'))} {HASH}", line)


# -- why two versions differ --


@pytest.mark.parametrize("old, new, why", [
    ("arena-bots 0.1.0 sha256:aaaaaaaaaaaa", "arena-bots 0.1.0 sha256:aaaaaaaaaaaa", ()),
    ("arena-bots 0.1.0 sha256:aaaaaaaaaaaa", "arena-bots 0.1.0 sha256:bbbbbbbbbbbb", ("code",)),
    ("arena-bots 0.1.0 sha256:aaaaaaaaaaaa", "arena-bots 0.2.0 sha256:aaaaaaaaaaaa", ("version",)),
    ("arena-bots 0.1.0 sha256:aaaaaaaaaaaa", "arena-bots 0.2.0 sha256:bbbbbbbbbbbb", ("version", "code")),
    ('cmd sha256:aaaaaaaaaaaa options={"a":1}', 'cmd sha256:aaaaaaaaaaaa options={"a":2}', ("options",)),
    ("cmd sha256:aaaaaaaaaaaa", 'cmd sha256:bbbbbbbbbbbb options={"a":2}', ("code", "options")),
    ("py sha256:aaaaaaaaaaaa", "cmd sha256:aaaaaaaaaaaa", ("version",)),
    ("something old", "py sha256:aaaaaaaaaaaa", ("version",)),
], ids=["same", "code", "distribution version", "version and code", "options", "code and options",
        "another kind", "unreadable"])
def test_version_changes_says_why(old, new, why):
    assert version_changes(old, new) == why
    assert version_change(old, new) == ", ".join(why)
