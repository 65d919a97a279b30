"""Helpers of the hostile-bot tests: attacker entrants (external and Python), games, reports.

Every attacker plays like ``random`` (same seed, same moves) and tries one
attack of ``bots/attacks.py``; each test compares the honest seats' moves
with a run where the attacker's seat holds the same bot without the attack
(or one that fails the same way), so an attack that changed anything for the
others shows. Nothing here skips: a protection this machine refuses makes
the test fail, with the line of ``arena sandbox`` that says why.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from arena.entrants import parse_spec
from arena.match import Limits, derive_seed, play_game
from arena.plugins import get_plugins
from arena.sandbox.probe import protections
from arena.seating import SeatPool

BOTS = Path(__file__).parent / "bots"
if str(BOTS) not in sys.path:
    sys.path.insert(0, str(BOTS))

from attacks import encode  # noqa: E402

LIMITS = Limits(start_ms=10000, move_ms=1000, bank_ms=2000, memory_mb=64)


def cmd(attack: str, *args: str, name: str = "attacker"):
    """An external attacker: ``hostile.py ATTACK ARGS`` run by this Python (ARGS encoded: they may name paths)."""
    return parse_spec(f"{name}=cmd:{sys.executable} {BOTS / 'hostile.py'} {attack} {encode(list(args))}")


def py(attack: str, *args: str, name: str = "attacker"):
    """A Python attacker: ``hostile_py.Hostile`` with the attack as its options."""
    return parse_spec(f"{name}=py:hostile_py:Hostile", options={"attack": attack, "args": list(args)})


KINDS = {"cmd": cmd, "py": py}


def honest(name: str = "honest"):
    return parse_spec(f"{name}=random" if name != "random" else "random", get_plugins())


def play(entrants: list, limits: Limits = LIMITS, seed: int = 5, game: str = "silk-road",
         pool: SeatPool | None = None) -> tuple[dict, list[str]]:
    """One game of ``entrants`` under the process sandbox: the record and each seat's stderr."""
    plugins = get_plugins()
    rules = plugins.game(game)
    options = rules.check_options(len(entrants), {})
    setup = rules.random_setup(len(entrants), options, random.Random(seed))
    own = pool is None
    pool = pool or SeatPool(plugins, "process", limits)
    seats = pool.seats(entrants)
    try:
        record = play_game(rules, options, setup, seats, [e.name for e in entrants], game_id=f"hostile/{seed}",
                           seed=seed, bot_seeds=[derive_seed(seed, seat) for seat in range(len(seats))],
                           limits=limits)
    finally:
        pool.release(seats)
        texts = [seat.stderr_text() for seat in seats]
        if own:
            pool.close()
    return record, texts


def reports(text: str, key: str) -> list:
    """The values of ``key`` in the bot's ``hostile: {...}`` lines, in order."""
    found = []
    for line in text.splitlines():
        if line.startswith("hostile: "):
            values = json.loads(line[len("hostile: "):])
            if key in values:
                found.append(values[key])
    return found


def seat_moves(record: dict, seats: set[int]) -> list:
    return [move for move in record["moves"] if move["seat"] in seats]


def require(*names: str) -> None:
    """Fail (never skip) when a protection this test relies on is off here, naming why."""
    off = [phrase for phrase in protections().off() if phrase.split(" ", 1)[0] in names]
    if off:
        pytest.fail("protection off on this machine: " + "; ".join(off))
