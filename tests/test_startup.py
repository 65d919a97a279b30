"""Start-up of a run with nothing to play: what is imported, and how the sandbox's protections are probed.

Not timed (benchmarks/startup.py times it): these check the mechanisms that keep it short.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any, Iterator

import pytest

from arena import preflight
from arena.entrants import parse_spec
from arena.match import Limits
from arena.plugins import get_plugins
from arena.sandbox import probe

#: modules no command needs at start-up: each is imported where it is used
HEAVY = ("numpy", "scipy", "matplotlib", "openskill", "distributed", "dask", "selenium", "pandas")


def imported_after(code: str) -> list[str]:
    """The modules of :data:`HEAVY` a fresh interpreter holds after running ``code``."""
    done = subprocess.run([sys.executable, "-c", f"import sys, json\n{code}\n"
                           f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"],
                          capture_output=True, text=True, check=True)
    found: list[str] = json.loads(done.stdout.splitlines()[-1])
    return found


def test_starting_arena_imports_no_numpy_nor_any_heavy_library():
    assert imported_after("import arena.cli") == []
    assert imported_after("from arena.tournament.config import load_tournament") == []


def test_the_formats_are_still_there_at_their_first_use():
    assert imported_after("import arena.formats") == []
    assert imported_after("from arena.formats import sampled_tables, settled") == ["numpy"]
    with pytest.raises(ImportError):
        exec("from arena.formats import no_such_format")


@pytest.fixture
def fresh_probe() -> Iterator[list[tuple[Any, ...]]]:
    """The probe tried afresh, with every trial it starts listed (its arguments); forgotten again after, so that
    nothing after this test sees what it found."""
    started: list[tuple[Any, ...]] = []
    real = probe._trial

    def trial(*args: Any, **kwargs: Any) -> Any:
        started.append((*args, kwargs))
        return real(*args, **kwargs)

    probe.protections.cache_clear()
    probe._trial = trial  # type: ignore[assignment]
    try:
        yield started
    finally:
        probe._trial = real  # type: ignore[assignment]
        probe.protections.cache_clear()


def everything_on() -> bool:
    here = probe.protections()
    return here.namespaces and here.filesystem and here.fork_template


def test_a_machine_that_gives_every_protection_is_probed_with_one_interpreter(fresh_probe):
    found = probe.protections()
    if not (found.namespaces and found.filesystem and found.fork_template):
        pytest.skip(f"this machine does not give every protection: {found.off()}")
    assert len(fresh_probe) == 1  # the template's jail, which proves the namespaces and the private root too
    assert found.has("namespaces") and found.has("filesystem") and found.has("ipc")


def test_a_probe_started_ahead_is_the_one_collected(fresh_probe):
    probe.start_probe()  # as arena run and arena compare do first thing: the trial boots while they import
    assert len(fresh_probe) == 1
    found = probe.protections()
    if not (found.namespaces and found.filesystem and found.fork_template):
        pytest.skip(f"this machine does not give every protection: {found.off()}")
    assert len(fresh_probe) == 1 and probe._started is None
    probe.start_probe()  # known already: nothing more is started
    assert len(fresh_probe) == 1


def test_when_the_whole_trial_fails_each_protection_is_tried_on_its_own(fresh_probe, monkeypatch):
    if not everything_on():
        pytest.skip("this machine does not give the namespaces and the private root")
    probe.protections.cache_clear()
    fresh_probe.clear()
    # a private root that does not hide the runner's files: the whole trial fails, and so does this part alone
    monkeypatch.setattr(probe, "_FILESYSTEM_TRIAL", "raise SystemExit(3)")
    found = probe.protections()
    assert len(fresh_probe) == 4  # the whole, then the namespaces, the private root and the fork, at once
    assert found.namespaces and not found.filesystem and not found.fork_template
    assert "filesystem (mounting a private root refused)" in found.off()
    assert not found.has("ipc")


def test_a_command_ends_without_collecting_every_object_again():
    # the last exit handler to run (registered before arena's) sees the objects frozen: the interpreter's final
    # collections skip them
    code = ("import atexit, gc\n"
            "atexit.register(lambda: print('frozen at exit', gc.get_freeze_count()))\n"
            "from arena.cli import cli\n"
            "cli.main(['games'], standalone_mode=False)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    frozen = int(done.stdout.rsplit("frozen at exit", 1)[1])
    assert frozen > 10_000  # every module's objects (about 27,000 here), not a handful


@pytest.fixture
def opened(monkeypatch) -> Iterator[list[str]]:
    """The names of the entrants whose process the check starts (each really started), from a folder a bot's
    own user id may read."""
    names: list[str] = []
    real = preflight.open_seat

    def open_seat(entrant: Any, *args: Any, **kwargs: Any) -> Any:
        names.append(entrant.name)
        return real(entrant, *args, **kwargs)

    monkeypatch.setattr(preflight, "open_seat", open_seat)
    folder = tempfile.mkdtemp(prefix="arena-startup-")
    os.chmod(folder, 0o755)
    monkeypatch.chdir(folder)
    yield names
    os.rmdir(folder)


def check(*specs: str) -> dict[str, str]:
    plugins = get_plugins()
    return preflight.broken_entrants([parse_spec(spec, plugins) for spec in specs], "silk-road", plugins,
                                     "process", Limits(start_ms=5000, move_ms=1000, bank_ms=5000))


def test_one_bot_entered_under_several_names_is_started_once(opened):
    assert check("random", "b2=random", "trader", "b3=random") == {}
    assert opened == ["random", "trader"]


def test_each_name_of_a_broken_bot_is_named_with_the_cause(opened):
    # cat answers start with the start message itself: not the protocol
    broken = check("random", "a=cmd:cat", "b=cmd:cat")
    assert opened == ["random", "a"]
    assert list(broken) == ["a", "b"]
    assert broken["a"] == broken["b"] and "does not answer start in the protocol" in broken["a"]
