"""Versions cover everything that decides a game: a bot's data files, an installed distribution's files,
a single-file module's folder as the sandbox shows it, and the game (its rules and arena's game loop)."""

from __future__ import annotations

import hashlib
import importlib
import os
import re
import shutil
import sys
import textwrap
import uuid

import pytest
from click.testing import CliRunner

from arena import versions
from arena.cli import cli
from arena.entrants import parse_spec
from arena.versions import entrant_version, game_version, version_changes

HASH = r"sha256:[0-9a-f]{12}"

BOT = textwrap.dedent("""
    import json, pathlib

    class Bot:
        def start(self, info):
            self.params = json.loads((pathlib.Path(__file__).parent / "params.json").read_text())

        def decide(self, request):
            return {}
""")


def unique(prefix: str) -> str:
    """A module name no other test has imported (``sys.modules`` outlives a test)."""
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


@pytest.fixture
def data_package(tmp_path):
    """A ``py:`` bot package that reads ``params.json`` beside its code."""
    name = unique("databot")
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(BOT)
    (package / "params.json").write_text('{"scale": 5}\n')
    return package


def version_of(spec: str, plugins) -> str:
    return entrant_version(parse_spec(spec, plugins), plugins)


def test_a_py_bots_data_file_is_part_of_its_version(plugins, data_package):
    spec = f"mine=py:{data_package.name}:Bot"
    before = version_of(spec, plugins)
    (data_package / "params.json").write_text('{"scale": 40}\n')
    after = version_of(spec, plugins)
    assert before != after and version_changes(before, after) == ("code",)


def test_caches_version_control_and_compiled_files_in_a_package_do_not_count(plugins, data_package):
    spec = f"mine=py:{data_package.name}:Bot"
    before = version_of(spec, plugins)
    for junk in ("__pycache__/__init__.cpython-311.pyc", "stale.pyc", ".git/HEAD", ".pytest_cache/v/x",
                 "games.log", "results/cup/results.sqlite", "node_modules/x/index.js"):
        path = data_package / junk
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("changes every run\n")
    assert version_of(spec, plugins) == before
    (data_package / "tables").mkdir()
    (data_package / "tables" / "opening.bin").write_bytes(b"\x00\x01")
    assert version_of(spec, plugins) != before, "a data file in a subfolder counts"


def write_single_module(folder, name: str) -> None:
    (folder / f"{name}.py").write_text(BOT)
    (folder / "params.json").write_text('{"scale": 5}\n')


def test_a_single_file_module_in_a_folder_of_its_own_is_known_by_the_folder(plugins, tmp_path):
    """The sandbox shows such a bot its whole folder, so what the bot can read is what its version covers."""
    folder = tmp_path / "bots"
    folder.mkdir()
    name = unique("loose")
    write_single_module(folder, name)
    sys.path.insert(0, str(folder))
    try:
        before = version_of(f"mine=py:{name}:Bot", plugins)
        (folder / "params.json").write_text('{"scale": 40}\n')
        assert version_of(f"mine=py:{name}:Bot", plugins) != before
    finally:
        sys.path.remove(str(folder))


def test_a_single_file_module_beside_a_tournament_file_is_known_by_its_file_alone(plugins, tmp_path):
    """A folder holding a tournament file (or results, a .git, the current folder) is never shown whole to a
    bot, so an edit elsewhere in it changes nothing the bot can read, and must not replay its games."""
    folder = tmp_path / "cup"
    folder.mkdir()
    (folder / "cup.toml").write_text("[tournament]\n")
    name = unique("beside")
    write_single_module(folder, name)
    spec = f"mine=py:{name}:Bot"
    entrant = parse_spec(spec, plugins, base_dir=str(folder))
    before = entrant_version(entrant, plugins)
    (folder / "params.json").write_text('{"scale": 40}\n')
    (folder / "cup.toml").write_text("[tournament]\nname = 'edited'\n")
    assert entrant_version(entrant, plugins) == before
    (folder / f"{name}.py").write_text(BOT + "# edited\n")
    assert entrant_version(entrant, plugins) != before


def test_a_bots_own_pyproject_toml_does_not_make_its_folder_private(plugins, tmp_path):
    """Only a tournament file's .toml is private: the sandbox shows a folder holding the bot's own
    pyproject.toml whole, so its data counts."""
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "pyproject.toml").write_text('[project]\nname = "mine"\n')
    name = unique("configured")
    write_single_module(folder, name)
    sys.path.insert(0, str(folder))
    try:
        before = version_of(f"mine=py:{name}:Bot", plugins)
        (folder / "params.json").write_text('{"scale": 40}\n')
        assert version_of(f"mine=py:{name}:Bot", plugins) != before
    finally:
        sys.path.remove(str(folder))


@pytest.mark.parametrize("why", ["too many entries to show", "a results folder below"])
def test_a_folder_the_sandbox_would_not_show_whole_leaves_a_module_its_file_alone(plugins, tmp_path, monkeypatch,
                                                                                  why):
    folder = tmp_path / "shared"
    folder.mkdir()
    name = unique("shared")
    write_single_module(folder, name)
    if why == "too many entries to show":
        monkeypatch.setattr(versions, "MAX_SHOWN_ENTRIES", 1)
    else:
        (folder / "cup" / "results").mkdir(parents=True)
    sys.path.insert(0, str(folder))
    try:
        before = version_of(f"mine=py:{name}:Bot", plugins)
        (folder / "params.json").write_text('{"scale": 40}\n')
        assert version_of(f"mine=py:{name}:Bot", plugins) == before
        (folder / f"{name}.py").write_text(BOT + "# edited\n")
        assert version_of(f"mine=py:{name}:Bot", plugins) != before
    finally:
        sys.path.remove(str(folder))


def test_a_package_too_big_knows_its_data_by_size_and_time(plugins, data_package, monkeypatch, caplog):
    monkeypatch.setattr(versions, "MAX_FOLDER_FILES", 1)
    spec = f"mine=py:{data_package.name}:Bot"
    before = version_of(spec, plugins)
    (data_package / "params.json").write_text('{"scale": 400}\n')  # another size
    assert version_of(spec, plugins) != before
    assert any("known by their size and modification time" in record.message for record in caplog.records)


# -- a distribution installed normally: its RECORD --


def install_distribution(site, name: str, editable: bool = False) -> None:
    """``name`` as pip installs it into ``site``: the package, and a dist-info whose RECORD lists its files."""
    package = site / name
    package.mkdir()
    files = {"__init__.py": BOT, "params.json": '{"scale": 5}\n'}
    lines = []
    for file, text in files.items():
        (package / file).write_text(text)
        digest = hashlib.sha256(text.encode()).hexdigest()
        lines.append(f"{name}/{file},sha256={digest},{len(text)}")
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    if editable:
        (info / "direct_url.json").write_text('{"dir_info": {"editable": true}, "url": "file:///src"}')
    lines += [f"{name}/__pycache__/__init__.cpython-311.pyc,,", f"{name}-1.0.dist-info/RECORD,,"]
    (info / "RECORD").write_text("\n".join(lines) + "\n")


@pytest.fixture
def site(tmp_path, monkeypatch):
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    importlib.invalidate_caches()
    return folder


def test_an_installed_distribution_is_known_by_its_record(site):
    name = unique("installed")
    install_distribution(site, name)
    roots = (str(site / name),)
    recorded = versions._package_hash(roots, name)
    assert recorded == versions._package_hash(roots, name)
    # pip checked the files against RECORD when it installed them: RECORD is what the version reads
    record = site / f"{name}-1.0.dist-info" / "RECORD"
    record.write_text(record.read_text().replace(f"{name}/params.json,sha256=", f"{name}/params.json,sha256=0"))
    assert versions._package_hash(roots, name) != recorded
    assert versions._package_hash(roots, name) != versions._package_hash(roots), "files hashed otherwise"


def test_an_editable_distribution_is_known_by_its_files(site):
    name = unique("editable")
    install_distribution(site, name, editable=True)
    roots = (str(site / name),)
    assert versions._package_hash(roots, name) == versions._package_hash(roots)
    before = versions._package_hash(roots, name)
    (site / name / "params.json").write_text('{"scale": 40}\n')
    assert versions._package_hash(roots, name) != before


# -- games --


def test_every_game_has_a_version_that_arena_games_shows(plugins):
    output = CliRunner().invoke(cli, ["games"]).output
    assert "version" in output.splitlines()[0]
    for game in ("silk-road", "modern-art"):
        version = game_version(game, plugins)
        assert re.fullmatch(f"\\S+ \\S+ {HASH}", version)
        line = next(line for line in output.splitlines() if line.startswith(game + " "))
        assert line.rstrip().endswith(version)


def test_editing_a_games_rules_changes_only_that_games_version(plugins, tmp_path, monkeypatch):
    import arena.games.silk_road as silk_road

    copy = tmp_path / "silk_road"
    shutil.copytree(silk_road.__path__[0], copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(silk_road, "__path__", [str(copy)])
    before = game_version("silk-road", plugins), game_version("modern-art", plugins)
    (copy / "game.py").write_text((copy / "game.py").read_text() + "\nSTART_MONEY_DOUBLED = True\n")
    after = game_version("silk-road", plugins), game_version("modern-art", plugins)
    assert after[0] != before[0] and version_changes(before[0], after[0]) == ("code",)
    assert after[1] == before[1]


def test_editing_arenas_game_loop_changes_every_games_version(plugins, tmp_path, monkeypatch):
    loop = tmp_path / "match.py"
    loop.write_text("def play_game(): ...\n")
    monkeypatch.setattr(versions, "ENGINE_FILES", (*versions.ENGINE_FILES[1:], str(loop)))
    before = {game: game_version(game, plugins) for game in ("silk-road", "modern-art")}
    loop.write_text("def play_game(): return 'another loop'\n")
    assert all(game_version(game, plugins) != version for game, version in before.items())


def test_every_sandbox_module_that_decides_what_a_bot_may_do_is_in_every_games_version():
    """A refused system call, a limit or the clock can change a bot's moves: their modules count, the sandbox's
    reports do not."""
    counted = set(versions.ENGINE_FILES)
    for module in ("seccomp", "limits", "jail", "clock", "freezer", "channel", "cgroups", "process", "host"):
        assert f"arena/sandbox/{module}.py" in counted
    assert not {f"arena/sandbox/{module}.py" for module in ("probe", "audit", "commands")} & counted


def test_arenas_deciding_modules_exist():
    """A module renamed away would silently leave the game loop out of every game's version."""
    root = os.path.dirname(os.path.dirname(versions.__file__))
    assert all(os.path.isfile(os.path.join(root, path)) for path in versions.ENGINE_FILES)


# -- what a CI cache key built from `arena bots` and `arena games` sees --


def test_arena_bots_and_arena_games_change_with_a_bots_data_and_the_engine(fresh_plugins, tmp_path, monkeypatch):
    """A cache key made of their output (with the tournament file) must change when anything deciding a game
    does: a registered bot's data file, or the game's rules."""
    name = unique("keybot")
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text(BOT + textwrap.dedent("""
        from arena import hookimpl

        @hookimpl
        def register_bots(register):
            register("keybot", Bot, games=["silk-road"])
    """))
    (package / "params.json").write_text('{"scale": 5}\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    plugins = fresh_plugins()
    plugins.register_module(module, name)

    def key() -> tuple[str, str]:
        bots, games = (CliRunner().invoke(cli, [command]) for command in ("bots", "games"))
        assert bots.exit_code == games.exit_code == 0
        return bots.stdout, games.stdout

    before = key()
    assert "keybot" in before[0]
    (package / "params.json").write_text('{"scale": 40}\n')
    after_data = key()
    assert after_data[0] != before[0] and after_data[1] == before[1]

    import arena.games.silk_road as silk_road

    copy = tmp_path / "silk_road"
    shutil.copytree(silk_road.__path__[0], copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(silk_road, "__path__", [str(copy)])
    unchanged = key()
    (copy / "game.py").write_text((copy / "game.py").read_text() + "\nSTART_MONEY_DOUBLED = True\n")
    assert key()[1] != unchanged[1]


def test_every_ci_recipe_keying_its_cache_on_arena_bots_names_the_games_versions_too():
    """docs/ci's workflows: a cache key made of `arena bots` and the tournament file missed an edited engine
    (an exact hit replayed nothing); with `arena games` in it, the key changes with the rules (test above)."""
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "ci")
    for name in sorted(os.listdir(root)):
        if not name.endswith((".yml", ".sh")):
            continue
        with open(os.path.join(root, name), encoding="utf-8") as handle:
            for line in handle:
                if "key=" in line and "arena bots" in line:
                    assert "arena games" in line, f"docs/ci/{name}: {line.strip()}"
