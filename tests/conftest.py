"""Test isolation: every test gets its own working folder and a clean plugin environment."""

from __future__ import annotations

import pytest

from arena.plugins import get_plugins, reset_plugins


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Run each test in a temporary folder (so ``results/`` lands there) with default plugins."""
    monkeypatch.chdir(tmp_path)
    for variable in ("ARENA_LOAD_PLUGINS", "ARENA_DISABLE_PLUGINS", "ARENA_TRACE_PLUGINS"):
        monkeypatch.delenv(variable, raising=False)
    yield tmp_path


@pytest.fixture
def plugins():
    """The process-wide plugin manager (games and bots registered)."""
    return get_plugins()


@pytest.fixture
def fresh_plugins():
    """A plugin manager loaded anew after the test changed the environment."""
    reset_plugins()
    yield get_plugins
    reset_plugins()
