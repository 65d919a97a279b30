"""Which arena a new bot depends on: the one ``arena new-bot`` runs, pinned so that it installs anywhere.

A bot's repository installs arena through its own dependency, so that CI (the
workflow ``arena new-bot`` writes) plays the bot with the arena it was written
for, whatever has been pushed to arena since. ``knizia-arena`` on the package
index alone would not do: a bot may be scaffolded from a checkout or a fork.
The requirement is read from how the running arena was installed:

- from git (``pip install "knizia-arena @ git+URL"``, PEP 610's
  ``direct_url.json``): ``knizia-arena @ git+URL@COMMIT``, that very commit;
- from a folder (a checkout, editable or not): the folder's git commit, at its
  ``origin`` remote when it has one (``git+https://...@COMMIT``), else at the
  folder itself (``git+file://localhost/PATH@COMMIT``, for this machine);
  a folder outside git: ``file://localhost/PATH``;
- from the package index: ``knizia-arena==VERSION``.

The reference bots (``arena-bots``, in the ``bots`` folder of arena's
repository) are pinned the same way, for the leaderboard workflow.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import arena
from arena.errors import ScaffoldError

DISTRIBUTION = "knizia-arena"
REFERENCE_BOTS = "arena-bots"


@dataclass(frozen=True)
class Pin:
    """arena and its reference bots, each as a requirement pip understands (PEP 508)."""

    arena: str
    reference_bots: str


def running_arena_pin() -> Pin:
    """The pin of the arena running now (see the module docstring)."""
    direct = _direct_url()
    vcs = direct.get("vcs_info") or {}
    if vcs.get("vcs") == "git" and vcs.get("commit_id"):
        url = direct["url"]
        return _git_pin(url if url.startswith("git+") else f"git+{url}", vcs["commit_id"])
    folder = _local_folder(direct)
    if folder is not None:
        commit = _git(folder, "rev-parse", "HEAD")
        if commit:
            return _git_pin(_pip_git_url(_git(folder, "remote", "get-url", "origin"), folder), commit)
        return Pin(f"{DISTRIBUTION} @ file://localhost{folder}", f"{REFERENCE_BOTS} @ file://localhost{folder}/bots")
    return Pin(f"{DISTRIBUTION}=={arena.__version__}", f"{REFERENCE_BOTS}=={arena.__version__}")


def pin_of(requirement: str) -> Pin:
    """A pin given by hand (``arena new-bot --arena``): a URL (``git+URL@COMMIT``, ``file://...``), a folder
    (a checkout), a version, or ``knizia-arena`` followed by one of these."""
    text = requirement.strip()
    if text.startswith(DISTRIBUTION):
        text = text[len(DISTRIBUTION):].strip().lstrip("@").strip()
    if not text:
        raise ScaffoldError("--arena: expected git+URL@COMMIT, a folder, a version, or knizia-arena followed by one")
    if os.path.isdir(text):
        folder = os.path.abspath(text)
        return Pin(f"{DISTRIBUTION} @ file://localhost{folder}", f"{REFERENCE_BOTS} @ file://localhost{folder}/bots")
    if "://" in text:
        bots = f"{text}#subdirectory=bots" if text.startswith("git+") else f"{text.rstrip('/')}/bots"
        return Pin(f"{DISTRIBUTION} @ {text}", f"{REFERENCE_BOTS} @ {bots}")
    version = text if text[:1] in "=<>~!" else f"=={text}"
    return Pin(f"{DISTRIBUTION}{version}", f"{REFERENCE_BOTS}{version}")


def _pip_git_url(remote: str, folder: str) -> str:
    """The ``git+URL`` pip reads for a checkout's ``origin`` remote (``folder``: the checkout).

    A network remote is kept (``git@host:path``, git's short form for ssh, spelt out as pip needs it);
    a remote that is a folder on this machine, or none, gives the checkout itself, which surely
    holds its own commit (a local remote may not, and ``git+/path`` is no URL pip reads).
    """
    if "://" in remote:
        return f"git+file://localhost{folder}" if remote.startswith("file:") else f"git+{remote}"
    user_host, colon, path = remote.partition(":")
    if colon and "/" not in user_host and not os.path.isdir(remote):  # git's scp-like form, user@host:path
        return f"git+ssh://{user_host}/{path.lstrip('/')}"
    return f"git+file://localhost{folder}"


def _git_pin(url: str, commit: str) -> Pin:
    return Pin(f"{DISTRIBUTION} @ {url}@{commit}", f"{REFERENCE_BOTS} @ {url}@{commit}#subdirectory=bots")


def _direct_url() -> dict[str, Any]:
    """PEP 610's record of where the installed distribution came from (empty when none)."""
    try:
        text = importlib.metadata.distribution(DISTRIBUTION).read_text("direct_url.json")
    except importlib.metadata.PackageNotFoundError:
        return {}
    try:
        return json.loads(text) if text else {}
    except ValueError:
        return {}


def _local_folder(direct: dict[str, Any]) -> str | None:
    """The checkout arena was installed from: ``direct_url.json``'s folder, or the one above the running package."""
    url = direct.get("url", "")
    if url.startswith("file:"):
        path = unquote(urlparse(url).path)
        if os.path.isfile(os.path.join(path, "pyproject.toml")):
            return path
    folder = Path(arena.__file__).resolve().parent.parent
    try:
        with open(folder / "pyproject.toml", "rb") as handle:
            name = tomllib.load(handle).get("project", {}).get("name")
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return str(folder) if name == DISTRIBUTION else None


def _git(folder: str, *args: str) -> str:
    """A git command's output in ``folder`` (empty when git, the repository or the answer is missing)."""
    try:
        done = subprocess.run(["git", "-C", folder, *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
