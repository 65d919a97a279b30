"""The ladder format: rounds drawn from the standings, stopped once the order is settled; identical for any -j."""

from __future__ import annotations

import json
import re
from collections import Counter

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
    records = stored_records(isolated / "one" / "lad")
    rounds = len({record["id"].split("/")[2].partition("-")[0] for record in records})
    assert (f"modern-art: the ladder ended after {rounds} of 20 rounds ({len(records)} games): "
            "the order of the top 3 is settled\n") in one.stderr
    assert 0 < len(records) < 20 * 3  # stopped before its budget of 20 rounds
    assert records == stored_records(isolated / "two" / "lad")
    assert all(record["id"].startswith("lad/modern-art/round") for record in records)
    board = json.loads((isolated / "one" / "lad" / "leaderboard.json").read_text())
    order = [row["bot"] for row in board["sections"][0]["standings"]]
    assert order == ["appraiser", "passer", "random"]
    again = run("lad.toml", "-j", "2", "--results", "one")  # a resume draws the same rounds and reuses them
    assert again.exit_code == 0 and stored_records(isolated / "one" / "lad") == records
    assert "0 played" in again.stderr or "played now" not in again.stderr


def ending_and_rounds(stderr: str) -> tuple[list[str], dict[int, list[tuple[int, int]]]]:
    """The run's last lines before the leaderboard's, and each round's progress counts (done, total)."""
    lines = stderr.strip().splitlines()
    counts: dict[int, list[tuple[int, int]]] = {}
    for line in lines:
        found = re.match(r"lad modern-art round (\d+) of \d+: (\d+)/(\d+) games", line)
        if found:
            counts.setdefault(int(found[1]), []).append((int(found[2]), int(found[3])))
    return lines[-3:-1], counts


def test_a_settled_ladder_ends_saying_its_rounds_and_its_settled_top(isolated):
    write_tournament(isolated, **LADDER)
    result = run("lad.toml", "-j", "1")
    assert result.exit_code == 0, result.output
    records = stored_records(isolated / "results" / "lad")
    per_round = Counter(record["id"].split("/")[2].partition("-")[0] for record in records)
    ending, counts = ending_and_rounds(result.stderr)
    assert ending == [f"modern-art: the ladder ended after {len(per_round)} of 20 rounds ({len(records)} games): "
                      "the order of the top 3 is settled",
                      "modern-art: settled top 3: 1. appraiser, 2. passer, 3. random"]
    assert sorted(counts) == list(range(1, len(per_round) + 1))
    for number, seen in counts.items():  # each round counts its own games, never the ladder's so far
        assert {total for _, total in seen} == {per_round[f"round{number}"]}, (number, seen)
        assert seen[0][0] == 0 and seen[-1][0] == per_round[f"round{number}"]


def test_a_ladder_out_of_rounds_says_its_top_is_not_settled(isolated):
    settings = {key: value for key, value in LADDER.items() if key != "top"}
    write_tournament(isolated, **{**settings, "rounds": 2, "until": "rounds",
                                  "bots": ["random", "r2=random", "r3=random", "r4=random"]})  # alike: undecided
    result = run("lad.toml", "-j", "0")
    assert result.exit_code == 0, result.output
    records = stored_records(isolated / "results" / "lad")
    ending, counts = ending_and_rounds(result.stderr)
    assert ending[0] == (f"modern-art: the ladder ended after all 2 rounds ({len(records)} games): "
                         "the order of the top 3 is not settled at 95% confidence")
    assert re.fullmatch(r"modern-art: top 3 so far after 2 rounds, not settled: 1\. \w+, 2\. \w+, 3\. \w+ "
                        r"\(more rounds may decide it\)", ending[1]), ending[1]
    assert sorted(counts) == [1, 2] and all(total < len(records) for seen in counts.values() for _, total in seen)
    again = run("lad.toml", "-j", "0")  # a resume: each round's games are reused, and the ending said again
    assert again.exit_code == 0 and ending_and_rounds(again.stderr)[0] == ending
