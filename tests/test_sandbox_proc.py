"""``[sandbox] proc``: what a jailed bot's ``/proc`` shows, ``full`` (the default) or ``processes`` only.

The view is carried in the tournament's limits (:attr:`arena.match.Limits.proc`), so that it reaches every
bot's jail and enters each game's key: stored games played under the other view are played again. What it
closes and what it breaks: tests/hostile/test_hostile_proc_view.py.
"""

from __future__ import annotations

from click.testing import CliRunner

from arena.cli import cli
from arena.plugins import get_plugins
from arena.runs.store import open_store
from arena.tournament.config import load_tournament

BASE = ('[tournament]\nname = "cup"\nseed = 1\ndeals = 1\n[[games]]\nname = "silk-road"\nplayers = 2\n{extra}'
        '[[bots]]\nspec = "random"\n[[bots]]\nspec = "trader"\n')


def write(tmp_path, extra: str) -> str:
    path = tmp_path / "cup.toml"
    path.write_text(BASE.format(extra=extra))
    return str(path)


def test_proc_is_full_by_default_and_processes_when_asked_and_a_default_file_keeps_its_digest(tmp_path):
    plain = load_tournament(write(tmp_path, ""), get_plugins())
    full = load_tournament(write(tmp_path, '[sandbox]\nproc = "full"\n'), get_plugins())
    narrow = load_tournament(write(tmp_path, '[sandbox]\nproc = "processes"\n'), get_plugins())
    assert plain.limits.proc == full.limits.proc == "full" and narrow.limits.proc == "processes"
    assert "proc" not in plain.definition()["limits"] and plain.digest() == full.digest()
    assert narrow.definition()["limits"]["proc"] == "processes" and narrow.digest() != plain.digest()


def test_a_bad_proc_is_one_line_and_exit_2(tmp_path):
    for value in ('"none"', "true", '["processes"]'):
        result = CliRunner().invoke(cli, ["run", write(tmp_path, f"[sandbox]\nproc = {value}\n")])
        assert result.exit_code == 2, result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and "sandbox.proc: expected one of 'full', 'processes', got" in lines[0], lines
        assert "Traceback" not in result.output


def test_a_changed_proc_plays_the_stored_games_again_and_the_records_say_which(tmp_path):
    results = str(tmp_path / "results")
    first = CliRunner().invoke(cli, ["run", write(tmp_path, ""), "-j", "1", "--results", results])
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(cli, ["run", write(tmp_path, ""), "-j", "1", "--results", results])
    assert again.exit_code == 0 and "2 stored and reused, 0 to play" in again.output, again.output
    narrow = CliRunner().invoke(cli, ["run", write(tmp_path, '[sandbox]\nproc = "processes"\n'), "-j", "1",
                                      "--results", results])
    assert narrow.exit_code == 0, narrow.output
    assert "2 games to play again: the tournament's seed, options or limits changed" in narrow.output, narrow.output
    assert "0 stored and reused, 2 to play" in narrow.output
    store = open_store(str(tmp_path / "results" / "cup"))
    try:  # the store's definition of the tournament says which view its games were played with
        assert store.meta("definition")["limits"]["proc"] == "processes"
    finally:
        store.close()
