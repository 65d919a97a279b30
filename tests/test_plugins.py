"""Plugin loading: entry points, guards, environment switches, duplicates, hooks."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
import types

import pytest

from arena import hookimpl
from arena.errors import PluginError, UnknownBot, UnknownGame
from arena.plugins import Plugins


def test_builtin_games_and_reference_bots_come_through_the_hooks(plugins):
    assert {"modern-art", "silk-road"} <= set(plugins.games)
    random_bot = plugins.bot("random")
    assert set(random_bot.games) == {"modern-art", "silk-road"}
    # the reference bots are found through their installed entry point
    assert plugins.distribution_of(random_bot.plugin) == "arena-bots"
    assert plugins.infos["reference-bots"].hooks == ["register_bots"]


def test_unknown_names_list_the_known_ones(plugins):
    with pytest.raises(UnknownGame, match="unknown game 'chess'.*modern-art"):
        plugins.game("chess")
    with pytest.raises(UnknownBot, match="unknown bot 'nobody'.*random"):
        plugins.bot("nobody")


def test_disable_plugins_blocks_an_entry_point(monkeypatch, fresh_plugins):
    monkeypatch.setenv("ARENA_DISABLE_PLUGINS", "reference-bots")
    loaded = fresh_plugins()
    assert "random" not in loaded.bots
    assert "modern-art" in loaded.games  # built-ins are not entry points


def test_load_plugins_selects_entry_points(monkeypatch, fresh_plugins):
    monkeypatch.setenv("ARENA_LOAD_PLUGINS", "")
    assert fresh_plugins().bots == {}
    monkeypatch.setenv("ARENA_LOAD_PLUGINS", "reference-bots")
    from arena.plugins import reset_plugins

    reset_plugins()
    assert "random" in fresh_plugins().bots


def _fake_entry_point(name: str, value: str) -> importlib.metadata.EntryPoint:
    return importlib.metadata.EntryPoint(name=name, value=value, group="arena")


def test_a_plugin_that_fails_to_import_is_one_warning(monkeypatch, capsys):
    real = importlib.metadata.entry_points

    def entry_points(**kwargs):
        found = list(real(**kwargs))
        if kwargs.get("group") == "arena":
            found.append(_fake_entry_point("broken", "no_such_module_xyz"))
        return found

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    loaded = Plugins()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "plugin broken" in err and "failed to load" in err
    assert "random" in loaded.bots


def test_a_misspelt_hook_is_caught_by_check_pending(monkeypatch, capsys):
    module = types.ModuleType("misspelt_plugin")

    @hookimpl
    def register_bot(register):  # missing "s"
        pass

    module.register_bot = register_bot
    monkeypatch.setitem(sys.modules, "misspelt_plugin", module)
    real = importlib.metadata.entry_points

    def entry_points(**kwargs):
        found = list(real(**kwargs))
        if kwargs.get("group") == "arena":
            found.append(_fake_entry_point("misspelt", "misspelt_plugin"))
        return found

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    Plugins()
    assert "register_bot" in capsys.readouterr().err


def test_a_duplicate_bot_name_names_both_plugins(plugins):
    module = types.ModuleType("copycat")

    @hookimpl
    def register_bots(register):
        register("random", object, games=["modern-art"], description="a copy")

    module.register_bots = register_bots
    manager = Plugins()
    manager.register_module(module, "copycat")
    with pytest.raises(PluginError, match="'random'.*reference-bots.*copycat|'random'.*copycat.*reference-bots"):
        manager.bots  # noqa: B018


def test_a_duplicate_game_name_names_both_plugins():
    module = types.ModuleType("othergame")

    @hookimpl
    def register_games(register):
        game = types.SimpleNamespace(name="silk-road")
        register(game)

    module.register_games = register_games
    manager = Plugins()
    manager.register_module(module, "othergame")
    with pytest.raises(PluginError, match="silk-road.*arena.games.silk_road.plugin.*othergame|silk-road.*othergame"):
        manager.games  # noqa: B018


def test_a_plugin_failing_in_register_bots_is_skipped(capsys):
    module = types.ModuleType("faulty")

    @hookimpl
    def register_bots(register):
        raise RuntimeError("boom")

    module.register_bots = register_bots
    manager = Plugins()
    manager.register_module(module, "faulty")
    assert "random" in manager.bots
    assert "plugin faulty failed in register_bots" in capsys.readouterr().err


def test_a_plugin_adds_a_command_through_register_commands(monkeypatch, fresh_plugins, capsys):
    import click
    from click.testing import CliRunner

    import arena.cli

    module = types.ModuleType("greeter")

    @hookimpl
    def register_commands(cli):
        @cli.command()
        def hello() -> None:
            """Say hello."""
            click.echo("hello from a plugin")

    broken = types.ModuleType("broken")

    @hookimpl
    def register_commands_broken(cli):
        raise RuntimeError("no commands today")

    module.register_commands = register_commands
    broken.register_commands = register_commands_broken
    plugins = fresh_plugins()
    plugins.register_module(module, "greeter")
    plugins.register_module(broken, "broken")
    group = click.Group("arena")
    monkeypatch.setattr(arena.cli, "cli", group)
    arena.cli._register_plugin_commands()
    assert CliRunner().invoke(group, ["hello"]).output == "hello from a plugin\n"
    assert "plugin broken failed in register_commands: RuntimeError('no commands today')" in capsys.readouterr().err


def test_arena_help_survives_a_broken_plugin(tmp_path):
    """A real subprocess: a broken entry point on sys.path still leaves `arena --help` working."""
    dist = tmp_path / "broken_dist-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-dist\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[arena]\nbroken = broken_module_that_raises\n")
    (tmp_path / "broken_module_that_raises.py").write_text("raise ImportError('I am broken')\n")
    env = {**__import__("os").environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "arena", "--help"], capture_output=True, text=True, env=env)
    assert done.returncode == 0
    assert "Commands:" in done.stdout
    assert "plugin broken (broken-dist) failed to load" in done.stderr
