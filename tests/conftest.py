"""Test isolation: every test gets its own working folder and a clean plugin environment.

The suite tests arena's own plugins: the built-ins and the reference bots of
``bots/``. Other arena plugins installed in the same environment (the README's
tutorial installs one, ``my-bot``) are not loaded in the test process, so no
test sees a registry it did not expect (``arena new-bot my-bot`` refused as
taken, every registered bot run through the conformance check, ...).
"""

from __future__ import annotations

import importlib.metadata
import os

import pytest

import arena.plugins
from arena.plugins import ENTRY_POINT_GROUP, Plugins, get_plugins, reset_plugins

#: the distributions whose ``arena`` entry points the suite loads: this repository's
PROJECT_DISTRIBUTIONS = ("knizia-arena", "arena-bots")
SWITCHES = ("ARENA_LOAD_PLUGINS", "ARENA_DISABLE_PLUGINS", "ARENA_TRACE_PLUGINS")


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def project_plugins() -> Plugins:
    """A plugin manager of arena's own plugins only, whatever else is installed beside the checkout."""
    own = sorted({entry_point.name for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)
                  if entry_point.dist is not None
                  and _normal(entry_point.dist.metadata["Name"]) in PROJECT_DISTRIBUTIONS})
    saved = {variable: os.environ.pop(variable, None) for variable in SWITCHES}
    os.environ["ARENA_LOAD_PLUGINS"] = ",".join(own)
    try:
        return Plugins()
    finally:
        for variable, value in saved.items():
            os.environ.pop(variable, None)
            if value is not None:
                os.environ[variable] = value


PROJECT_PLUGINS = project_plugins()
arena.plugins._plugins = PROJECT_PLUGINS  # before the test modules are collected (some list the bots then)


@pytest.fixture(autouse=True)
def isolated(tmp_path, monkeypatch):
    """Run each test in a temporary folder (so ``results/`` lands there) with arena's own plugins."""
    monkeypatch.chdir(tmp_path)
    for variable in SWITCHES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(arena.plugins, "_plugins", PROJECT_PLUGINS)
    yield tmp_path


@pytest.fixture
def plugins():
    """The process-wide plugin manager (games and bots registered)."""
    return get_plugins()


@pytest.fixture
def fresh_plugins():
    """A plugin manager loaded anew after the test changed the environment (without a switch set by the
    test, arena's own plugins only, as :func:`isolated` gives)."""

    def load() -> Plugins:
        if not any(variable in os.environ for variable in SWITCHES):
            arena.plugins._plugins = project_plugins()
        return get_plugins()

    reset_plugins()
    yield load
    reset_plugins()
