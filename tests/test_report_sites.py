"""`arena report` on a tournament (a sample of replays), a comparison (verdict, SPRT trace) and a results root
(index)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.report.comparison import llr_trace, read_outcome
from tournament_files import write_tournament

pytest.importorskip("matplotlib")


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """A results root: a tournament of 8 games (one table) and a comparison decided by its SPRT."""
    where = tmp_path_factory.mktemp("results")
    path = write_tournament(where, ["random", "trader"], "silk-road:2", deals=4, name="cup", seed=3)
    assert run("run", path, "--results", str(where), "--sandbox", "none", "-j", "1").exit_code == 0
    compared = run("compare", "silk-road", "--candidate", "random", "--baseline", "trader", "--players", "2",
                   "--max-games", "200", "--sandbox", "none", "-j", "1", "--results", str(where), "--name", "duel")
    assert compared.exit_code == 1, compared.output  # random is a regression against trader
    Path(path).unlink()
    return where


def test_a_sample_of_replays_by_default_and_any_game_on_request(root, tmp_path):
    result = run("report", str(root / "cup"), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    pages = sorted(path.name for path in (tmp_path / "site" / "games").iterdir())
    assert len(pages) == 3  # the first three games of the one table
    games = (tmp_path / "site" / "games.html").read_text()
    assert games.count("<tr>") == 1 + 8 and games.count('href="games/') == 3  # every game listed, 3 linked
    assert "cup/silk-road" in games and "arena show FOLDER ID" in games
    assert "report cup: " in result.stderr and "pages" in result.stderr  # the progress display

    last = json.loads(run("export", str(root / "cup")).stdout.splitlines()[-1])["id"]
    again = run("report", str(root / "cup"), "--out", str(tmp_path / "site"), "--replays", "1", "--game", last)
    assert again.exit_code == 0, again.output
    pages = sorted(path.name for path in (tmp_path / "site" / "games").iterdir())
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", last)
    assert len(pages) == 2 and pages[-1].endswith(f"-{slug}.html")  # the earlier sample is gone

    unknown = run("report", str(root / "cup"), "--out", str(tmp_path / "site"), "--game", "cup/nope")
    assert unknown.exit_code == 2 and unknown.stderr.count("\n") == 1 and "no game 'cup/nope'" in unknown.stderr


def test_a_comparison_gets_its_verdict_and_sprt_trace(root, tmp_path):
    result = run("report", str(root / "duel"), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<h1>Comparison duel</h1>" in index and 'id="verdict"><strong>REGRESSION</strong>' in index
    assert 'src="plots/sprt.svg"' in index
    assert (tmp_path / "site" / "plots" / "sprt.svg").read_text().startswith("<?xml")
    outcome = read_outcome(str(root / "duel"))
    trace = llr_trace(str(root / "duel"), outcome)
    assert len(trace) == outcome["blocks"] and trace[-1] == pytest.approx(outcome["sprt"]["llr"])


def test_a_results_root_gets_an_index_of_its_tournaments_and_comparisons(root, tmp_path):
    result = run("report", str(root), "--out", str(tmp_path / "site"))
    assert result.exit_code == 0, result.output
    index = (tmp_path / "site" / "index.html").read_text()
    assert 'href="cup/index.html"' in index and 'href="duel/index.html"' in index
    assert "REGRESSION" in index and "tournament" in index and "comparison" in index
    assert (tmp_path / "site" / "cup" / "games.html").exists()
    assert (tmp_path / "site" / "duel" / "plots" / "sprt.svg").exists()
    assert result.stdout.strip().endswith(str(tmp_path / "site" / "index.html"))
