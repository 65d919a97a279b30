"""`arena compare` asks either question: is the candidate worse (the default), or is it better (--improvement)?

Real games through the command line, with bots of clearly different strength
(the appraiser beats random): the exit status, the summary, the step summary
and compare.json say which question was asked and which answer came.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli

MA4 = ["compare", "modern-art", "--players", "4", "--sandbox", "none", "-j", "2", "--seed", "3"]


def run(*args: str, env: dict | None = None):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False, env=env)


def test_a_stronger_candidate_is_an_improvement_exit_0(tmp_path):
    summary = tmp_path / "summary.md"
    result = run(*MA4, "--candidate", "appraiser", "--baseline", "random", "--improvement",
                 "--results", str(tmp_path), env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Question: is the candidate better than the baseline? (an improvement test)" in out
    assert "SPRT: H0 Elo-like = 0 (no gain) against H1 = 20 (improvement)" in out
    assert "Verdict: IMPROVEMENT: the SPRT accepted H1, an improvement" in out and "Exit status 0." in out
    stored = json.loads((tmp_path / "compare-modern-art-appraiser-vs-random" / "compare.json").read_text())
    assert stored["question"] == "improvement" and stored["verdict"] == "improvement"
    assert (stored["sprt"]["elo0"], stored["sprt"]["elo1"]) == (0, 20)
    assert "**✅ IMPROVEMENT**: the SPRT accepted H1, an improvement" in summary.read_text()


def test_a_weaker_candidate_is_not_better_exit_1(tmp_path):
    result = run(*MA4, "--candidate", "random", "--baseline", "appraiser", "--improvement", "--json",
                 "--results", str(tmp_path))
    assert result.exit_code == 1, result.output
    outcome = json.loads(result.stdout)
    assert (outcome["question"], outcome["verdict"]) == ("improvement", "not-better")
    assert outcome["sprt"]["llr"] <= outcome["sprt"]["lower"]


def test_bounds_above_elo0_ask_for_an_improvement_without_the_flag(tmp_path):
    result = run(*MA4, "--candidate", "appraiser", "--baseline", "random", "--sprt", "5,40", "--json",
                 "--results", str(tmp_path))
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert (outcome["question"], outcome["verdict"]) == ("improvement", "improvement")
    assert (outcome["sprt"]["elo0"], outcome["sprt"]["elo1"]) == (5, 40)


def test_the_default_question_is_still_a_regression_test(tmp_path):
    better = run(*MA4, "--candidate", "appraiser", "--baseline", "random", "--json", "--results", str(tmp_path))
    worse = run(*MA4, "--candidate", "random", "--baseline", "appraiser", "--json", "--results", str(tmp_path))
    assert (better.exit_code, worse.exit_code) == (0, 1)
    assert [(json.loads(r.stdout)["question"], json.loads(r.stdout)["verdict"]) for r in (better, worse)] == [
        ("regression", "not-worse"), ("regression", "regression")]
    assert (json.loads(better.stdout)["sprt"]["elo0"], json.loads(better.stdout)["sprt"]["elo1"]) == (0, -20)


def test_fixed_size_improvement_reads_the_interval(tmp_path):
    common = [*MA4, "--no-sprt", "--deals", "4", "--improvement", "--json", "--results", str(tmp_path)]
    better = run(*common, "--candidate", "appraiser", "--baseline", "random")
    worse = run(*common, "--candidate", "random", "--baseline", "appraiser")
    assert (better.exit_code, worse.exit_code) == (0, 1), better.output + worse.output
    assert json.loads(better.stdout)["verdict"] == "improvement"
    assert json.loads(better.stdout)["score_difference"]["low"] > 0
    assert json.loads(worse.stdout)["verdict"] == "not-better"
    assert "sprt" not in json.loads(better.stdout)


def test_contradicting_the_flag_is_one_line_exit_2(tmp_path):
    for args, message in ((["--improvement", "--sprt", "0,-20"], "ELO1 must be above ELO0"),
                          (["--sprt", "10,10"], "ELO1 must differ from ELO0")):
        result = CliRunner().invoke(cli, [*MA4, "--candidate", "appraiser", "--baseline", "random", *args,
                                          "--results", str(tmp_path)])
        assert result.exit_code == 2
        assert message in result.output and "Traceback" not in result.output
        assert not any(Path(tmp_path).iterdir())  # refused before anything is made


def test_the_report_of_an_improvement_test_says_which_question_it_answered(tmp_path):
    pytest.importorskip("matplotlib")
    result = run(*MA4, "--candidate", "appraiser", "--baseline", "random", "--improvement", "--name", "gain",
                 "--results", str(tmp_path))
    assert result.exit_code == 0, result.output
    site = run("report", str(tmp_path / "gain"), "--out", str(tmp_path / "site"))
    assert site.exit_code == 0, site.output
    page = (tmp_path / "site" / "index.html").read_text()
    assert "<strong>IMPROVEMENT</strong>: the SPRT accepted H1, an improvement" in page
    assert "is the candidate better than the baseline? (an improvement test)" in page
    assert "H1, improvement (Elo-like 20)" in page and "H0, no gain (0)" in page
