"""The ladder format: rounds drawn from the standings, stopped once the order is settled; identical for any -j."""

from __future__ import annotations

import json

from click.testing import CliRunner

from arena.cli import cli
from tournament_files import stored_records, write_tournament

LADDER = {"bots": ["random", "appraiser", "passer=py:test_ladder:Passer"], "games": "modern-art:3", "name": "lad",
          "seed": 3, "format": "ladder", "rounds": 20, "until": "settled", "top": 3, "deals": 1}


class Passer:
    """Takes the cheapest legal action everywhere: buys nothing, so it keeps its money (between the other two)."""

    def decide(self, request: dict) -> dict:
        legal, decision = request["legal"], request["decision"]
        if decision == "play_card":
            return {"card": legal["cards"][0]}
        return {"add_double": {"card": None}, "bid": {"bid": None}, "sealed_bid": {"bid": 0},
                "set_price": {"price": legal.get("min")}, "accept_price": {"accept": False},
                "flip_phantom": {"flip": False}}[decision]


def run(path: str, *args: str) -> object:
    return CliRunner().invoke(cli, ["run", path, "--sandbox", "none", *args], catch_exceptions=False)


def test_a_ladder_settles_three_clear_strengths_early_and_is_the_same_for_any_jobs(isolated):
    write_tournament(isolated, **LADDER)
    one = run("lad.toml", "-j", "1", "--results", "one")
    two = run("lad.toml", "-j", "2", "--results", "two")
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    assert "modern-art: the order of the top 3 is settled after" in one.stderr
    records = stored_records(isolated / "one" / "lad")
    assert 0 < len(records) < 20 * 3  # stopped before its budget of 20 rounds
    assert records == stored_records(isolated / "two" / "lad")
    assert all(record["id"].startswith("lad/modern-art/round") for record in records)
    board = json.loads((isolated / "one" / "lad" / "leaderboard.json").read_text())
    order = [row["bot"] for row in board["sections"][0]["standings"]]
    assert order == ["appraiser", "passer", "random"]
    again = run("lad.toml", "-j", "2", "--results", "one")  # a resume draws the same rounds and reuses them
    assert again.exit_code == 0 and stored_records(isolated / "one" / "lad") == records
    assert "0 played" in again.stderr or "played now" not in again.stderr
