"""Bots checked before play: each broken bot refused in one line (exit 2) before a game is played."""

from __future__ import annotations

import json
import shutil
import tempfile
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena import preflight
from arena.cli import cli
from arena.entrants import parse_spec
from arena.errors import BotCheckFailed
from arena.match import Limits
from arena.preflight import check_entrants
from arena.tournament.config import GameEntry
from tournament_files import write_tournament

READY_BOT = """
import json, sys, time
time.sleep({delay})
for line in sys.stdin:
    if json.loads(line)["type"] == "start":
        print(json.dumps({{"type": "ready"}}), flush=True)
"""

BOTS = {
    "ready.py": READY_BOT.format(delay=0),
    "sub/ready.py": READY_BOT.format(delay=0),
    "slow_start.py": READY_BOT.format(delay=3),
    "one_second.py": READY_BOT.format(delay=1),
    "chatter.py": "import sys\nfor line in sys.stdin:\n    print('hello, I am a bot', flush=True)\n",
    "broken_import.py": ("import not_a_module_anywhere\n\nclass Bot:\n"
                         "    def decide(self, request):\n        return {}\n"),
    "start_raises.py": textwrap.dedent("""
        class Bot:
            def start(self, info):
                raise RuntimeError("no opening book")
            def decide(self, request):
                return {}
    """),
    "good_py.py": "class Bot:\n    def decide(self, request):\n        return {}\n",
    "slow_py.py": textwrap.dedent("""
        import time
        class Bot:
            def start(self, info):
                time.sleep(0.5)
            def decide(self, request):
                return {}
    """),
}


@pytest.fixture(autouse=True)
def tmp_path(monkeypatch):
    """A working folder holding the bots above, readable by a sandboxed bot's own user id.

    (pytest's own tmp_path sits in a folder only root may read: a ``py:`` module
    there imports in-process but not in the sandbox, the case tested last.)
    """
    folder = Path(tempfile.mkdtemp(prefix="arena-preflight-"))
    folder.chmod(0o755)
    for name, text in BOTS.items():
        path = folder / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(text)
    monkeypatch.chdir(folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def play(*specs: str, sandbox: str = "process", extra: tuple = ()):
    args = ["play", "silk-road", "--seed", "1", "--sandbox", sandbox, "--record", "game.json", *extra]
    for spec in specs:
        args += ["-b", spec]
    return CliRunner().invoke(cli, args)


REFUSED = [
    ("missing program", "m=cmd:./no_such_program", "process",
     "bot m cannot play: cannot start '{tmp}/no_such_program': No such file or directory "
     "(relative paths resolve against {tmp})"),
    ("missing script", "m=cmd:python3 no_such_bot.py", "process", "no_such_bot.py': [Errno 2] No such file"),
    ("missing py module, sandboxed", "m=py:no_such_module:Bot", "process",
     "bot m cannot play: cannot find module 'no_such_module' for py:no_such_module:Bot"),
    ("missing py module, in-process", "m=py:no_such_module:Bot", "none",
     "bot m cannot play: cannot import module 'no_such_module' for py:no_such_module:Bot"),
    ("import error, sandboxed", "m=py:broken_import:Bot", "process", "No module named 'not_a_module_anywhere'"),
    ("import error, in-process", "m=py:broken_import:Bot", "none", "No module named 'not_a_module_anywhere'"),
    ("garbage instead of the protocol", "m=cmd:python3 chatter.py", "process",
     "bot m cannot play: does not answer start in the protocol: start: not one JSON object on one line"),
    ("JSON but not ready", "m=cmd:cat", "process",
     'bot m cannot play: does not answer start in the protocol: start: expected {"type": "ready"}'),
    ("start raises, sandboxed", "m=py:start_raises:Bot", "process", "RuntimeError('no opening book')"),
    ("start raises, in-process", "m=py:start_raises:Bot", "none", "RuntimeError('no opening book')"),
]


@pytest.mark.parametrize("case, spec, sandbox, message", REFUSED, ids=[case for case, *_ in REFUSED])
def test_a_broken_bot_is_refused_in_one_line_before_play(tmp_path, case, spec, sandbox, message):
    result = play("random", spec, sandbox=sandbox)
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: bot m cannot play: "), result.output
    assert message.replace("{tmp}", str(tmp_path)) in lines[0]
    assert not (tmp_path / "game.json").exists()  # refused before any game


@pytest.mark.parametrize("spec, sandbox, limit", [
    ("m=cmd:python3 slow_start.py", "process", "100"),
    ("m=py:slow_py:Bot", "none", "50"),
], ids=["sandboxed program", "in-process class"])
def test_a_bot_too_slow_to_start_is_refused(tmp_path, spec, sandbox, limit):
    result = play("random", spec, sandbox=sandbox, extra=("--start-ms", limit))
    assert result.exit_code == 2, result.output
    assert "bot m cannot play: too slow to start" in result.output
    assert not (tmp_path / "game.json").exists()


@pytest.mark.parametrize("sandbox", ["process", "none"])
def test_good_bots_of_every_kind_pass_and_play(sandbox):
    result = play("random", "me=random", "mine=cmd:python3 ready.py", "py=py:good_py:Bot", sandbox=sandbox,
                  extra=("--move-ms", "20", "--bank-ms", "0"))
    # the cmd: bot only answers start: it faults in its decisions, but it was fit to be entered
    assert result.exit_code == 0, result.output


def test_a_relative_path_resolves_the_same_from_another_folder(plugins, tmp_path, monkeypatch):
    entrant = parse_spec("mine=cmd:python3 sub/ready.py", plugins)
    monkeypatch.chdir(tmp_path / "sub")
    check_entrants([entrant], "silk-road", plugins, "process", Limits())


def test_every_failing_bot_is_named(plugins):
    entrants = [parse_spec(spec, plugins) for spec in ("a=cmd:./gone", "random", "b=py:no_such_module:Bot")]
    with pytest.raises(BotCheckFailed, match=r"^bot a cannot play: .*\(also failing: b\)$"):
        check_entrants(entrants, "silk-road", plugins, "process", Limits())


def test_entrants_start_in_parallel(plugins):
    entrants = [parse_spec(f"slow{n}=cmd:python3 one_second.py", plugins) for n in range(4)]
    began = time.monotonic()
    check_entrants(entrants, "silk-road", plugins, "process", Limits(start_ms=2000))
    assert time.monotonic() - began < 3.5  # one after another: at least 4 s


class FakeSeat:
    def __init__(self, log: list) -> None:
        self.log = log

    def start(self, info: dict, limit_ms: float) -> None:
        self.log.append(("start", info, limit_ms))

    def close(self) -> None:
        self.log.append(("close",))


def test_each_entrant_is_started_once_on_a_game_it_plays_then_closed(plugins, monkeypatch):
    log: list = []
    opened = []

    def open_seat(entrant, sandbox, limits, plugins_):
        opened.append((entrant.name, sandbox))
        return FakeSeat(log)

    monkeypatch.setattr(preflight, "open_seat", open_seat)
    random_bot, appraiser = parse_spec("random", plugins), parse_spec("appraiser", plugins)
    games = [GameEntry("silk-road", 3, {"start_money": 0}), GameEntry("modern-art", 4, {})]
    check_entrants([random_bot, appraiser, random_bot], games, plugins, "process", Limits(start_ms=1234))
    assert sorted(opened) == [("appraiser", "process"), ("random", "process")]
    starts = {info["players"][0]: (info, limit) for kind, *rest in log if kind == "start" for info, limit in [rest]}
    assert starts["random"][0]["game"] == "silk-road" and len(starts["random"][0]["players"]) == 3
    assert starts["appraiser"][0]["game"] == "modern-art" and len(starts["appraiser"][0]["players"]) == 4
    info, limit = starts["appraiser"]
    assert limit == 1234 and info["time"] == {"start_ms": 1234, "move_ms": 1000, "bank_ms": 10000}
    assert set(info) == {"type", "game", "seat", "players", "options", "time", "setup_public", "seed"}
    assert log.count(("close",)) == 2


# -- a py: module installed in editable mode (a finder, not a sys.path entry) --


def test_an_editable_installed_py_bot_plays_in_process():
    assert play("random", "me=py:arena_bots.random_bot:RandomBot", sandbox="none").exit_code == 0


def test_an_editable_installed_py_bot_plays_in_the_sandbox():
    result = play("random", "me=py:arena_bots.random_bot:RandomBot", sandbox="process")
    assert result.exit_code == 0, result.output


def test_a_py_bot_that_imports_here_but_not_in_the_sandbox_is_refused_with_the_reason(plugins, monkeypatch):
    from arena.errors import UnknownBot

    def unimportable(entrant, sandbox, limits, plugins_):
        raise UnknownBot(f"cannot find module 'arena_bots.random_bot' for py:{entrant.target}")

    monkeypatch.setattr(preflight, "open_seat", unimportable)
    with pytest.raises(BotCheckFailed, match="imports in this process but not in the sandbox"):
        check_entrants([parse_spec("me=py:arena_bots.random_bot:RandomBot", plugins)], "silk-road", plugins,
                       "process", Limits())


def test_a_py_module_the_sandboxed_bot_cannot_read_never_plays_a_broken_game(tmp_path_factory, monkeypatch):
    """A module in a folder only this user may read imports in-process; sandboxed, it plays or is refused."""
    private = tmp_path_factory.mktemp("private")
    private.chmod(0o700)
    (private / "private_bot.py").write_text(BOTS["good_py.py"])
    monkeypatch.chdir(private)
    result = play("random", "me=py:private_bot:Bot", sandbox="process", extra=("--json",))
    if result.exit_code == 0:  # the sandbox lets the bot read its module
        assert not [fault for fault in json.loads(result.output)["faults"] if fault["decision"] == "start"]
    else:
        assert result.exit_code == 2 and "imports in this process but not in the sandbox" in result.output


def test_a_tournament_with_a_broken_bot_stops_before_any_game_is_stored(tmp_path):
    path = write_tournament(tmp_path, ['spec = "random"', 'spec = "mine=cmd:./no_such_program"'], "silk-road:2")
    result = CliRunner().invoke(cli, ["run", path, "-j", "1", "--sandbox", "none"])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert errors == [f"Error: bot mine cannot play: cannot start '{tmp_path}/no_such_program': No such file or "
                      f"directory (relative paths resolve against {tmp_path})"]
    assert not (tmp_path / "results").exists()  # refused before the results folder (and its secret) was made
