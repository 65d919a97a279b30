"""The golden games stay byte-identical: requests, views, events, end messages, records, determinizations
and clones of fixed seeded games hash to the digests stored before the engines and the loop were sped up.

A change that alters any of them on purpose (a rule fixed, a view key added) regenerates the file with
``python tests/golden_games.py > tests/records/golden-digests.json`` and says why in its commit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from golden_games import TABLES, table_digest, table_name

STORED = json.loads((Path(__file__).parent / "records" / "golden-digests.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("table", TABLES, ids=lambda table: table_name(*table))
def test_the_golden_games_of_a_table_are_byte_identical(table):
    assert table_digest(*table) == STORED[table_name(*table)]
