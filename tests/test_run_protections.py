"""What ``arena run`` says about the jail before playing, and the protections a tournament file can demand."""

from __future__ import annotations

from click.testing import CliRunner

from arena.cli import cli

FILE = '''[tournament]
name = "cup"
{seed}
[[games]]
name = "silk-road"
players = 2
[sandbox]
require = {require}
[[bots]]
spec = "random"
[[bots]]
spec = "r2=random"
'''


def run(isolated, seed: str, require: str, *args: str) -> object:
    (isolated / "cup.toml").write_text(FILE.format(seed=seed, require=require))
    return CliRunner().invoke(cli, ["run", "cup.toml", "-j", "1", *args])


def test_a_required_secret_seed_refuses_a_file_with_a_public_seed(isolated):
    result = run(isolated, "seed = 4", '["secret-seed"]', "--sandbox", "none")
    assert result.exit_code == 2
    assert result.output == ("Error: cup.toml requires a secret seed but sets seed = 4: remove the seed line "
                             "(a secret is then drawn and kept in the store)\n")
    assert not (isolated / "results").exists()  # refused before anything was made


def test_required_protections_refuse_the_unsandboxed_mode(isolated):
    result = run(isolated, "", '["namespaces", "memory"]', "--sandbox", "none")
    assert result.exit_code == 2
    assert "requires sandbox protections (namespaces, memory); --sandbox none turns them all off" in result.output
    assert not (isolated / "results").exists()


def test_an_unknown_protection_is_a_one_line_error(isolated):
    result = run(isolated, "", '["telepathy"]')
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "telepathy" in result.output


def test_a_run_says_where_its_deals_come_from(isolated):
    secret = run(isolated, "", '["secret-seed"]', "--sandbox", "none")
    assert secret.exit_code == 0, secret.output
    assert "deals follow from a secret kept in results/cup/results.sqlite" in secret.stderr
    public = run(isolated, "seed = 4", "[]", "--sandbox", "none", "--fresh")
    assert "deals follow from the public seed in the file: anyone holding it can compute them" in public.stderr
