"""A broken entry: refused by default (CI), or disqualified so that the rest play (organisers).

Four entries in a 4-seat Modern Art field (the game needs at least 3 players):
one program crashes before it answers ``start``. By default the run is
refused with one line and nothing is stored; with ``--disqualify-broken`` (or
``on_broken_entry = "disqualify"`` in the file) the three others play, and the
leaderboards (every format) and the report list the broken entry as not
entered, with the reason.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from tournament_files import write_tournament

GOOD = ["random", "appraiser", "random2=random"]
CRASH = '''import sys
print("cannot load my weights", file=sys.stderr, flush=True)
sys.exit(4)
'''


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def cup(tmp_path: Path) -> Path:
    """A tournament file whose first entry crashes at start, and a results root beside it."""
    (tmp_path / "crash.py").write_text(CRASH)
    return Path(write_tournament(tmp_path, ["crash=cmd:python3 crash.py", *GOOD], "modern-art:4", deals=1,
                                 seed=5))


def seated_bots(folder: Path) -> set[str]:
    with sqlite3.connect(folder / "results.sqlite") as db:
        return {bot for (bot,) in db.execute("SELECT DISTINCT bot FROM seats")}


def test_by_default_a_broken_entry_refuses_the_run_and_stores_nothing(cup, tmp_path):
    result = run("run", str(cup), "--results", str(tmp_path / "results"), "--sandbox", "none", "-j", "2")
    assert result.exit_code == 2
    assert "bot crash cannot play" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "results" / "cup").exists()


def test_disqualified_the_three_others_play_and_the_leaderboard_says_why(cup, tmp_path):
    root = tmp_path / "results"
    result = run("run", str(cup), "--results", str(root), "--sandbox", "none", "-j", "2", "--disqualify-broken")
    assert result.exit_code == 0, result.output
    assert "disqualified: bot crash cannot play, the others play on" in result.stderr
    folder = root / "cup"
    # one table of the three good entries filling four seats, every rotation of the one deal
    assert seated_bots(folder) == {"random", "appraiser", "random2"}
    assert "Tournament cup: 4 of 4 games played" in result.stdout
    line = "crash is not entered: disqualified before play, it cannot play:"
    assert line in result.stdout and "exit" in result.stdout.split(line, 1)[1].splitlines()[0]
    assert line in (folder / "leaderboard.md").read_text()
    board = json.loads((folder / "leaderboard.json").read_text())
    assert [entry["bot"] for entry in board["not_entered"]] == ["crash"]
    assert "crash" not in [row["bot"] for section in board["sections"] for row in section["standings"]]
    shown = run("leaderboard", str(folder), "--format", "html")
    assert shown.exit_code == 0 and "crash is not entered" in shown.output


def test_the_tournament_file_can_ask_for_it_and_a_fixed_entry_plays_again(cup, tmp_path):
    root = tmp_path / "results"
    cup.write_text(cup.read_text().replace("[tournament]\n", '[tournament]\non_broken_entry = "disqualify"\n'))
    first = run("run", str(cup), "--results", str(root), "--sandbox", "none", "-j", "2")
    assert first.exit_code == 0, first.output
    assert "crash is not entered" in first.stdout
    (tmp_path / "crash.py").write_text("import sys\nsys.path.insert(0, %r)\n" % str(Path(__file__).parent / "bots")
                                       + "from protocol_bot import run\nrun()\n")
    again = run("run", str(cup), "--results", str(root), "--sandbox", "none", "-j", "2")
    assert again.exit_code == 0, again.output
    assert "not entered" not in again.stdout
    assert seated_bots(root / "cup") >= {"crash", "random", "appraiser", "random2"}


def test_a_field_too_small_without_the_broken_entries_is_refused(tmp_path):
    (tmp_path / "crash.py").write_text(CRASH)
    path = write_tournament(tmp_path, ["crash=cmd:python3 crash.py", "crash2=cmd:python3 crash.py", "random"],
                            "modern-art:3", deals=1, seed=5)
    result = run("run", path, "--results", str(tmp_path / "results"), "--sandbox", "none", "--disqualify-broken")
    assert result.exit_code == 2
    assert "without crash, crash2, disqualified" in result.output and "at least 2" in result.output
    assert not (tmp_path / "results" / "cup").exists()


def test_an_unknown_on_broken_entry_is_one_line(tmp_path):
    path = write_tournament(tmp_path, GOOD, "modern-art:3", deals=1, seed=5, on_broken_entry="skip")
    result = run("run", path, "--results", str(tmp_path / "results"))
    assert result.exit_code == 2
    assert "tournament.on_broken_entry: expected one of refuse, disqualify, got 'skip'" in result.output


def test_the_report_lists_the_entry_as_not_entered(cup, tmp_path):
    pytest.importorskip("matplotlib")
    root = tmp_path / "results"
    assert run("run", str(cup), "--results", str(root), "--sandbox", "none", "-j", "2",
               "--disqualify-broken").exit_code == 0
    result = run("report", str(root / "cup"), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    pages = "".join(page.read_text() for page in (tmp_path / "site").glob("*.html"))
    assert "crash is not entered: disqualified before play" in pages
