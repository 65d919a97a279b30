"""Secret deals: a bot holding the code, the tournament file and its own ``start`` message cannot compute the cards.

The attacker below is what a contestant would write: it knows every
derivation the project uses (and used before), tries each with every seed a
file could plausibly hold, and with its own bot seed as a deal seed, and checks
whether any reproduces the hand of its opponent. Without a ``seed`` in the file
it must fail; as a control, the same attack succeeds when the file's seed is
public (so the test would notice a derivation that leaks).
"""

from __future__ import annotations

import random

from click.testing import CliRunner

from arena.cli import cli
from arena.match import derive_seed
from arena.plugins import get_plugins
from arena.runs import seeds
from arena_bots.random_bot import RandomBot
from tournament_files import stored_records, write_tournament

#: seeds a tournament file could plausibly hold, tried by the attacker
GUESSED_SEEDS = range(0, 2000)


class Spy(RandomBot):
    """A random bot that keeps every ``start`` message it is sent (run in this process with ``-j 0``)."""

    seen: list[dict] = []

    def start(self, info: dict) -> None:
        super().start(info)
        Spy.seen.append(dict(info))


def hidden(setup: dict, seat: int) -> tuple:
    """What a seat must not know of a deal: its opponent's hand and the deck's order (a hand alone is small
    enough to be guessed by chance now and then; the deck is not)."""
    return sorted(setup["hands"][1 - seat]), list(setup["deck"])


def attack(start: dict, game_name: str) -> list[tuple]:
    """Every hidden part of a deal the attacker can derive from what it knows; the real one must not be among them."""
    game = get_plugins().game(game_name)
    players, options = len(start["players"]), start["options"]
    candidates = [random.Random(start["seed"])]  # its own seed taken for a deal seed
    for guess in GUESSED_SEEDS:
        candidates.append(random.Random(seeds.deal_seed(seeds.public_secret(guess), game_name, players,
                                                        sorted(options.items()), 1)))
        candidates.append(random.Random(derive_seed(guess, game_name, 1, 1)))  # the old unkeyed derivation
    return [hidden(game.random_setup(players, options, rng), start["seat"]) for rng in candidates]


def play_once(folder, seed: int | None) -> tuple[dict, dict]:
    Spy.seen.clear()
    path = write_tournament(folder, ["spy=py:test_secret_deals:Spy", "random"], "silk-road:2", deals=1, seed=seed)
    result = CliRunner().invoke(cli, ["run", path, "--sandbox", "none", "-j", "0", "--fresh"])
    assert result.exit_code == 0, result.output
    record = stored_records(folder / "results" / "cup")[0]
    return Spy.seen[0], record


def test_without_a_seed_the_attacker_cannot_compute_its_opponents_hand(isolated):
    start, record = play_once(isolated, None)
    assert start["seat"] == record["players"].index("spy")
    assert hidden(record["setup"], start["seat"]) not in attack(start, "silk-road")
    assert start["seed"] != record["seed"]


def test_control_with_a_public_seed_the_same_attack_succeeds(isolated):
    start, record = play_once(isolated, 1234)
    # the file says so: deals follow from its public seed
    assert hidden(record["setup"], start["seat"]) in attack(start, "silk-road")


def test_two_runs_without_a_seed_deal_differently_but_a_rerun_keeps_its_deals(isolated):
    start, first = play_once(isolated, None)
    result = CliRunner().invoke(cli, ["run", str(isolated / "cup.toml"), "--sandbox", "none", "-j", "0"])
    assert "0 to play" in result.stderr  # resumed under the kept secret
    _, other = play_once(isolated, None)  # --fresh: a new secret
    assert first["setup"] != other["setup"]
