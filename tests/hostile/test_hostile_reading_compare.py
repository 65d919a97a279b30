"""Every command that seats several entrants shows none of them another's files: ``arena compare`` too.

``arena run`` and ``arena play`` tell each entrant the others' files (``with_neighbours``); a command that
forgot to would show a bot whose program lies in a folder above another entrant's (``entries/alice.py``
beside ``entries/bob/``) that whole folder, the other bot with it. The attack, through the command line as a
competitor meets it: the candidate's program lives in the parent folder of the baseline's, and it tries to
read the baseline's program, notes and folder. A file it could read makes its start answer a fault that names
it (``hostile.py``): the comparison stores no fault, and its games are those of the same candidate not
attacking.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from click.testing import CliRunner

from conftest import require
from attacks import encode
from test_hostile_reading_own import copy_hostile
from arena.cli import cli


def compare(name: str, candidate: str, baseline: str, *field: str) -> list[dict]:
    """``arena compare`` of one deal in the process sandbox; the stored games, by id."""
    args = ["compare", "silk-road", "--candidate", candidate, "--baseline", baseline, "--seed", "4", "--deals", "1",
            "--no-sprt", "--name", name, "--start-ms", "20000"]
    for spec in field:
        args += ["--field", spec]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code in (0, 1, 3), result.output  # a verdict or none; never refused nor failed
    exported = CliRunner().invoke(cli, ["export", f"results/{name}"], catch_exceptions=False)
    return sorted((json.loads(line) for line in exported.stdout.splitlines()), key=lambda record: record["id"])


def game(record: dict) -> str:
    """A stored game's id without the comparison's name: ``silk-road/t1/d1/r1``."""
    return record["id"].split("/", 1)[1]


def test_a_compared_bot_cannot_read_the_baseline_through_the_folder_of_its_program(isolated):
    require("filesystem")
    entries = isolated / "entries"
    attacker = copy_hostile(entries)  # entries/hostile.py and the modules it imports, above bob's folder
    bob = copy_hostile(entries / "bob")
    (entries / "bob" / "strategy.txt").write_text("bob's private notes\n")
    carol = copy_hostile(entries / "carol")  # a field bot, in a folder of its own beside bob's
    (entries / "carol" / "notes.txt").write_text("carol's private notes\n")
    paths = [str(entries / "bob" / "strategy.txt"), str(bob), str(entries / "bob"),
             str(entries / "carol" / "notes.txt")]
    # what its program imports beside it it names file by file: its folder is not its own alone
    modules = " ".join(str(path) for path in sorted(entries.glob("*attacks.py")))

    def games(attack: str, name: str) -> list[dict]:
        candidate = f"alice=cmd:{sys.executable} {attacker} {attack} {encode(paths)} {modules}"
        baseline = f"bob=cmd:{sys.executable} {bob} none"
        return compare(name, candidate, baseline, baseline, f"carol=cmd:{sys.executable} {carol} none")

    attacked = games("read", "attacked")
    control = games("none", "control")
    assert [game(record) for record in attacked] == [game(record) for record in control] and len(attacked) == 6
    assert [fault for record in attacked for fault in record["faults"]] == [], \
        "the candidate read the baseline's or the field's files through the folder of its program"
    assert [record["moves"] for record in attacked] == [record["moves"] for record in control]


def test_the_baseline_cannot_read_the_candidate_either(isolated):
    require("filesystem")
    entries = isolated / "entries"
    attacker = copy_hostile(entries)  # now the baseline's program lies above the candidate's folder
    alice = copy_hostile(entries / "alice")
    (entries / "alice" / "strategy.txt").write_text("alice's private notes\n")
    paths = [str(entries / "alice" / "strategy.txt"), str(alice), str(entries / "alice")]
    modules = " ".join(str(path) for path in sorted(entries.glob("*attacks.py")))

    def games(attack: str, name: str) -> list[dict]:
        return compare(name, f"alice=cmd:{sys.executable} {alice} none",
                       f"bob=cmd:{sys.executable} {attacker} {attack} {encode(paths)} {modules}")

    attacked = games("read", "attacked")
    control = games("none", "control")
    assert len(attacked) == len(control) == 4
    assert [fault for record in attacked for fault in record["faults"]] == [], \
        "the baseline read the candidate's files through the folder of its program"
    assert [record["moves"] for record in attacked] == [record["moves"] for record in control]


def test_the_attack_reads_what_is_its_own(isolated):
    # the test above can fail: the same attacker reads its own modules, and the fault names them
    require("filesystem")
    entries = isolated / "entries"
    attacker = copy_hostile(entries)
    bob = copy_hostile(entries / "bob")
    own = [str(path) for path in sorted(entries.glob("*attacks.py"))]
    candidate = f"alice=cmd:{sys.executable} {attacker} read {encode(own)} {' '.join(own)}"
    result = CliRunner().invoke(cli, ["compare", "silk-road", "--candidate", candidate, "--baseline",
                                      f"bob=cmd:{sys.executable} {bob} none", "--seed", "4", "--deals", "1",
                                      "--no-sprt", "--start-ms", "20000"], catch_exceptions=False)
    assert result.exit_code == 2 and "leaked" in result.output and Path(own[0]).name in result.output
