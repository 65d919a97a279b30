"""docs/ci/arena-ci.sh, the CI script for arena's own repository (tournament, leaderboard changes, compare),
does what docs/ci/README.md says. The bot repository's workflow is tested in tests/test_ci_workflow.py."""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from arena_bots import modern_art_heuristic
from tournament_files import write_tournament

DOCS = Path(__file__).parents[1] / "docs" / "ci"
SCRIPT = DOCS / "arena-ci.sh"

pytestmark = [pytest.mark.skipif(shutil.which("arena") is None or shutil.which("git") is None,
                                 reason="needs the installed arena command and git"),
              pytest.mark.slow]  # real git repositories and several arena runs: ~30 s


@pytest.fixture
def project(tmp_path):
    """A small repository: a tournament file, and the appraiser's module committed as the baseline."""
    write_tournament(tmp_path, ["random", "appraiser"], "modern-art:3", deals=2, name="ci", seed=1)
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "appraiser.py").write_text(inspect.getsource(modern_art_heuristic))
    git = ["git", "-c", "user.name=ci", "-c", "user.email=ci@example.org"]
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "base"], cwd=tmp_path, check=True)
    return tmp_path


def run_script(project: Path, **settings: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "ARENA_TOURNAMENT": "ci.toml", "ARENA_JOBS": "2",
           "GITHUB_STEP_SUMMARY": str(project / "summary.md"),
           "ARENA_BASE_REF": "HEAD", "ARENA_BASE_FILE": "bots/appraiser.py", **settings}
    return subprocess.run(["bash", str(SCRIPT)], cwd=project, env=env, capture_output=True, text=True,
                          timeout=600)


def test_the_script_publishes_the_leaderboard_its_changes_and_the_comparison(project):
    first = run_script(project)
    assert first.returncode == 0, first.stderr
    summary = (project / "summary.md").read_text()
    assert summary.startswith("# Tournament ci: 6 of 6 games played")
    assert "### arena compare: appraiser vs base (modern-art, 4 players)" in summary and "not worse" in summary
    assert "Leaderboard changes" not in summary  # nothing to compare with yet

    second = run_script(project)
    assert second.returncode == 0, second.stderr
    comment = (project / "results" / "comment.md").read_text()
    assert comment.startswith("### Leaderboard changes: ci, 6 games (before: ci, 6 games)")
    assert "### arena compare: appraiser vs base" in comment
    assert "Leaderboard changes" in (project / "summary.md").read_text()


def test_the_script_fails_on_a_regression(project):
    result = run_script(project, ARENA_CANDIDATE="random")
    assert result.returncode == 1
    assert "::error::arena compare: random is a regression" in result.stdout
    assert "REGRESSION" in (project / "results" / "comment.md").read_text()


def test_a_bot_new_since_the_base_commit_is_not_compared(project):
    result = run_script(project, ARENA_BASE_FILE="bots/new_bot.py")
    assert result.returncode == 0
    assert "::notice::no bots/new_bot.py at 'HEAD'" in result.stdout
    assert (project / "summary.md").read_text().startswith("# Tournament ci")
