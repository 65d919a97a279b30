"""The sandbox's keys in a tournament file: ``[limits] reuse`` and ``[sandbox] require``; and what is required."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.errors import SandboxError
from arena.plugins import get_plugins
from arena.sandbox import check_required, protections, weaknesses
from arena.tournament.config import load_tournament

BASE = ('[tournament]\nname = "cup"\nseed = 1\n[[games]]\nname = "silk-road"\nplayers = 2\n{extra}'
        '[[bots]]\nspec = "random"\n[[bots]]\nspec = "trader"\n')


def write(tmp_path, extra: str) -> str:
    path = tmp_path / "cup.toml"
    path.write_text(BASE.format(extra=extra))
    return str(path)


def test_reuse_is_off_by_default_and_read_from_limits(tmp_path):
    assert load_tournament(write(tmp_path, ""), get_plugins()).limits.reuse is False
    tournament = load_tournament(write(tmp_path, "[limits]\nreuse = true\n"), get_plugins())
    assert tournament.limits.reuse is True
    assert "reuse" in tournament.definition()["limits"]


def test_a_definition_without_reuse_keeps_its_digest(tmp_path):
    plain = load_tournament(write(tmp_path, ""), get_plugins())
    assert "reuse" not in plain.definition()["limits"]


def test_require_is_kept_and_unknown_names_are_one_line_errors(tmp_path):
    tournament = load_tournament(write(tmp_path, '[sandbox]\nrequire = ["namespaces", "secret-seed"]\n'), get_plugins())
    assert tournament.require == ("namespaces", "secret-seed")
    result = CliRunner().invoke(cli, ["run", write(tmp_path, '[sandbox]\nrequire = ["magic"]\n')])
    assert result.exit_code == 2
    assert "sandbox.require: unknown protection 'magic'" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(cli, ["run", write(tmp_path, "[limits]\nreuse = 1\n")])
    assert result.exit_code == 2 and "limits.reuse: expected true or false" in result.output


def test_check_required_names_what_is_off_and_accepts_what_is_on():
    state = protections()
    on = [name for name in ("namespaces", "filesystem", "ipc", "memory", "cpu") if state.has(name)]
    check_required(on + ["secret-seed"])
    off = [name for name in ("namespaces", "filesystem", "ipc", "memory", "cpu") if not state.has(name)]
    if off:
        with pytest.raises(SandboxError, match=off[0]):
            check_required(off)
        assert off[0] in weaknesses()
    else:
        assert weaknesses().startswith("sandbox: every protection is on")
    with pytest.raises(SandboxError, match="unknown sandbox protection 'magic'"):
        check_required(["magic"])
