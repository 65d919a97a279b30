"""The regression gate ``arena new-bot`` writes into a bot's repository: a GitHub Actions workflow and its script.

They are the same files as arena's ``docs/ci/arena.yml`` and ``docs/ci/arena-gate.sh`` (a test keeps
them equal), so a bot author gets the recipe of docs/ci/README.md unchanged, by construction. Nothing
in them names arena's repository: arena comes from the bot's own ``pyproject.toml``, whose
``knizia-arena`` dependency :mod:`arena.authoring.pin` wrote.
"""

from __future__ import annotations

from importlib.resources import files

#: where each file goes in the bot's repository
WORKFLOW_PATH = ".github/workflows/arena.yml"
SCRIPT_PATH = ".github/arena-gate.sh"


def _text(name: str) -> str:
    """One of the gate's files as arena ships it (package data: arena/authoring/gate_files/)."""
    return files("arena.authoring").joinpath("gate_files", name).read_text(encoding="utf-8")


#: the workflow (.github/workflows/arena.yml) and the script it runs (.github/arena-gate.sh)
WORKFLOW = _text("arena.yml")
SCRIPT = _text("arena-gate.sh")

#: path in the bot's repository -> text, and whether it is executable
FILES = {WORKFLOW_PATH: (WORKFLOW, False), SCRIPT_PATH: (SCRIPT, True)}
