"""Debugging a bot: `arena play --trace` shows every exchange and the bot's stderr; `arena check-bot`
shows the stderr behind a fault and CPU and wall time per decision apart."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from click.testing import CliRunner

from arena.cli import cli

NOISY = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        print("noisy: starting", file=sys.stderr, flush=True)
        print(json.dumps({"type": "ready"}), flush=True)
    elif message["type"] == "decide":
        decision, legal = message["decision"], message["legal"]
        print(f"noisy: asked {decision}", file=sys.stderr, flush=True)
        if decision == "%s":
            raise SystemExit("noisy: out of ideas")
        answer = {"load_ship": {"good": (legal.get("goods") or [None])[0]}, "phase1": {"action": "pass"},
                  "phase2": {"action": "draw"}}.get(decision, {"count": legal.get("max", 0)})
        print(json.dumps(answer), flush=True)
"""

PRINTER = """
class Printer:
    def start(self, info):
        print("printer: hello")

    def decide(self, request):
        print("printer: asked", request["decision"])
        legal = request["legal"]
        return {"load_ship": {"good": (legal.get("goods") or [None])[0]}, "phase1": {"action": "pass"},
                "phase2": {"action": "draw"}}.get(request["decision"], {"count": legal.get("max", 0)})
"""


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture
def noisy(tmp_path):
    def write(crash_at: str = "never") -> str:
        path = tmp_path / f"noisy_{crash_at}.py"
        path.write_text(NOISY % crash_at)
        return f"noisy=cmd:{sys.executable} {path}"
    return write


def trace_lines(stderr: str) -> list[dict]:
    return [json.loads(line) for line in stderr.splitlines() if line.startswith("{")]


def test_trace_shows_every_message_both_ways_timed_with_the_bots_stderr(noisy, tmp_path):
    played = run("play", "silk-road", "-b", noisy(), "-b", "random", "--seed", "3", "--sandbox", "none", "--trace",
                 "--record", str(tmp_path / "game.json"))
    assert played.exit_code == 0, played.output
    assert "Final result:" in played.stdout and "{" not in played.stdout  # the account is untouched
    lines = trace_lines(played.stderr)
    record = json.loads((tmp_path / "game.json").read_text())
    for seat in (0, 1):
        sent = [line["message"] for line in lines if line["seat"] == seat and line["direction"] == "to"]
        answers = [line for line in lines if line["seat"] == seat and line["direction"] == "from"]
        assert [message["type"] for message in sent] == ["start"] + ["decide"] * (len(sent) - 2) + ["end"]
        assert len(answers) == len(sent) - 1 and answers[0]["message"] == {"type": "ready"}
        moves = [move["action"] for move in record["moves"] if move["seat"] == seat]
        assert [answer["message"] for answer in answers[1:]] == moves
        assert all(answer["wall_ms"] >= 0 and answer["clock"] in ("cpu", "wall") for answer in answers)
        assert all(answer["ms"] >= 0 for answer in answers[1:])
    said = [line for line in lines if line["direction"] == "stderr"]
    assert said[0] == {"seat": 0, "bot": "noisy", "direction": "stderr", "line": "noisy: starting"}
    assert len(said) == 1 + sum(1 for move in record["moves"] if move["seat"] == 0)
    # each stderr line comes after the exchange it was written in
    first_decide = next(index for index, line in enumerate(lines) if line["seat"] == 0
                        and line["direction"] == "to" and line["message"]["type"] == "decide")
    assert lines[first_decide + 2]["line"] == f"noisy: asked {lines[first_decide]['message']['decision']}"


def test_trace_captures_what_an_in_process_bot_prints(tmp_path, monkeypatch):
    (tmp_path / "printer.py").write_text(textwrap.dedent(PRINTER))
    monkeypatch.syspath_prepend(str(tmp_path))
    played = run("play", "silk-road", "-b", "printer=py:printer:Printer", "-b", "random", "--seed", "3",
                 "--sandbox", "none", "--trace")
    assert played.exit_code == 0, played.output
    assert "printer: asked" not in played.stdout  # (the check before play starts the bot once, uncaptured)
    said = [line["line"] for line in trace_lines(played.stderr) if line["direction"] == "stderr"]
    assert said[0] == "printer: hello" and said[1].startswith("printer: asked ")


def test_check_bot_shows_the_stderr_behind_a_fault(noisy):
    checked = run("check-bot", noisy("phase2"), "--game", "silk-road", "--games", "1", "--sandbox", "none")
    assert checked.exit_code == 1
    out = checked.stdout
    assert "crash in check/silk-road/0" in out and "the bot's stderr, last lines:" in out
    assert "  | noisy: asked phase2\n  | noisy: out of ideas\n" in out


def test_check_bot_reports_cpu_and_wall_time_apart(noisy):
    checked = run("check-bot", noisy(), "--game", "silk-road", "--games", "2", "--sandbox", "none", "--json")
    facts = json.loads(checked.stdout)["games"][0]
    for key in ("cpu_ms", "wall_ms"):
        assert facts[key]["p50"] <= facts[key]["p90"] <= facts[key]["max"]
    assert facts["cpu_ms"]["max"] < facts["wall_ms"]["max"] + 50  # a separate figure, in the same unit
    table = run("check-bot", noisy(), "--game", "silk-road", "--games", "2", "--sandbox", "none").stdout
    assert "CPU ms p50/p90/max" in table and "wall ms p50/p90/max" in table
