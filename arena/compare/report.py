"""How a comparison's outcome is shown: a terminal summary, JSON, and Markdown for CI step summaries.

Every renderer takes the outcome dict the runner builds (:func:`arena.compare.runner.compare`),
which is also exactly what ``--json`` prints.
"""

from __future__ import annotations

import json
import os
from typing import Any

from tabulate import tabulate

from arena.compare.stats import (IMPROVEMENT, IMPROVEMENT_TEST, NO_VERDICT, NOT_BETTER, NOT_WORSE, REGRESSION,
                                 REGRESSION_TEST)

#: the exit status of each verdict (``arena compare --help`` states them): 0 the answer hoped for, 1 the other
EXIT_STATUS = {NOT_WORSE: 0, REGRESSION: 1, IMPROVEMENT: 0, NOT_BETTER: 1, NO_VERDICT: 3}
HEADLINES = {NOT_WORSE: "not worse", REGRESSION: "REGRESSION", IMPROVEMENT: "IMPROVEMENT", NOT_BETTER: "not better",
             NO_VERDICT: "no verdict"}
MARKS = {NOT_WORSE: "✅", REGRESSION: "❌", IMPROVEMENT: "✅", NOT_BETTER: "❌", NO_VERDICT: "⚠️"}
#: each question as a sentence, and what its H0 and H1 mean
QUESTIONS = {REGRESSION_TEST: ("is the candidate worse than the baseline? (a regression test)",
                               "no regression", "regression"),
             IMPROVEMENT_TEST: ("is the candidate better than the baseline? (an improvement test)",
                                "no gain", "improvement")}


def question(outcome: dict[str, Any]) -> str:
    """The outcome's question (an outcome written before there were two is a regression test)."""
    return str(outcome.get("question", REGRESSION_TEST))
FIGURES = (
    ("score_difference", "rank score difference per pair (-1..1)", 4),
    ("elo", "Elo-like difference", 1),
    ("money_difference", "money difference per pair", 1),
)


def _signed(value: float | None, digits: int) -> str:
    return "-" if value is None else f"{value:+.{digits}f}"


def reason(outcome: dict[str, Any]) -> str:
    """One sentence saying why the verdict is what it is."""
    verdict, sprt = outcome["verdict"], outcome.get("sprt")
    played = f"after {outcome['blocks']} deals ({outcome['games']} games)"
    if sprt is not None:
        llr = f"LLR {sprt['llr']:+.3f}"
        if verdict == NOT_WORSE:
            return f"the SPRT accepted H0, no regression ({llr} <= {sprt['lower']:+.3f}) {played}"
        if verdict == REGRESSION:
            return f"the SPRT accepted H1, a regression ({llr} >= {sprt['upper']:+.3f}) {played}"
        if verdict == NOT_BETTER:
            return f"the SPRT accepted H0, no gain ({llr} <= {sprt['lower']:+.3f}) {played}"
        if verdict == IMPROVEMENT:
            return f"the SPRT accepted H1, an improvement ({llr} >= {sprt['upper']:+.3f}) {played}"
        return (f"{llr} is still between {sprt['lower']:+.3f} and {sprt['upper']:+.3f} "
                f"{played}, the most --max-games allows")
    low, high = outcome["score_difference"]["low"], outcome["score_difference"]["high"]
    if verdict == NO_VERDICT:
        return f"a confidence interval needs at least 2 deals; {played}"
    level = f"{100 * outcome['confidence']:.0f}%"
    if verdict == IMPROVEMENT:
        return f"the whole {level} interval of the score difference is above 0 (from {low:+.4f}), {played}"
    if verdict == NOT_BETTER:
        return f"the {level} interval of the score difference reaches down to {low:+.4f}, not above 0, {played}"
    if verdict == REGRESSION:
        return f"the whole {level} interval of the score difference is below 0 (up to {high:+.4f}), {played}"
    return f"the {level} interval of the score difference reaches {high:+.4f}, not below 0, {played}"


def _figure_rows(outcome: dict[str, Any]) -> list[list[str]]:
    return [[label, _signed(outcome[key]["value"], digits), _signed(outcome[key]["low"], digits),
             _signed(outcome[key]["high"], digits)] for key, label, digits in FIGURES]


def _headers(outcome: dict[str, Any]) -> list[str]:
    level = f"{100 * outcome['confidence']:.0f}%"
    return ["candidate minus baseline", "estimate", f"{level} low", f"{level} high"]


def _sprt_line(outcome: dict[str, Any]) -> str:
    sprt = outcome.get("sprt")
    if sprt is None:
        return "Fixed size (no SPRT): the verdict is read from the confidence interval."
    _, h0, h1 = QUESTIONS[question(outcome)]
    return (f"SPRT: H0 Elo-like = {sprt['elo0']:g} ({h0}) against H1 = {sprt['elo1']:g} "
            f"({h1}), alpha {sprt['alpha']:g}, beta {sprt['beta']:g}; "
            f"LLR {sprt['llr']:+.3f}, bounds {sprt['lower']:+.3f} and {sprt['upper']:+.3f}")


def _who(outcome: dict[str, Any]) -> str:
    return (f"candidate {outcome['candidate']}, baseline {outcome['baseline']}, "
            f"field {', '.join(outcome['field'])}")


def _versions(outcome: dict[str, Any]) -> str:
    """Which code was compared: the verdict holds for these versions only."""
    versions = outcome.get("versions") or {}
    game = f", game {versions['game']}" if versions.get("game") else ""
    return (f"versions compared: candidate {versions.get('candidate', '?')}, "
            f"baseline {versions.get('baseline', '?')}{game}")


def _reuse(outcome: dict[str, Any]) -> str:
    """What this run took from the store and what it played (an outcome from before says nothing)."""
    if "reused" not in outcome:
        return ""
    return f"; {outcome['reused']} reused from the store, {outcome.get('played_now', 0)} played now"


def _seed(outcome: dict[str, Any]) -> str:
    seed = outcome.get("seed")
    return "deals from a secret kept in the store" if seed is None else f"public seed {seed}"


def render_text(outcome: dict[str, Any]) -> str:
    """The terminal summary."""
    verdict = outcome["verdict"]
    lines = [
        f"Comparison {outcome['comparison']}: {outcome['game']}, {outcome['players']} players",
        f"  {_who(outcome)}",
        f"  {_versions(outcome)}",
        f"Games: {outcome['games']} ({outcome['blocks']} deals x {outcome['players']} seats x 2 tables; "
        f"at most {outcome['max_games']}), {_seed(outcome)}{_reuse(outcome)}",
        f"Pairs (same deal, seat and seeds): {outcome['wins']} won, {outcome['draws']} drawn, "
        f"{outcome['losses']} lost by the candidate",
        "",
        tabulate(_figure_rows(outcome), headers=_headers(outcome), disable_numparse=True),
        "",
        f"Question: {QUESTIONS[question(outcome)][0]}",
        _sprt_line(outcome),
        f"Verdict: {HEADLINES[verdict]}: {reason(outcome)}. Exit status {EXIT_STATUS[verdict]}.",
        f"Stored in {outcome['results']} (arena leaderboard, export and replay read it).",
    ]
    return "\n".join(lines)


def render_markdown(outcome: dict[str, Any]) -> str:
    """The Markdown summary (a GitHub step summary, a pull-request comment)."""
    verdict = outcome["verdict"]
    lines = [
        f"### arena compare: {outcome['candidate']} vs {outcome['baseline']} "
        f"({outcome['game']}, {outcome['players']} players)",
        "",
        f"**{MARKS[verdict]} {HEADLINES[verdict]}**: {reason(outcome)}.",
        "",
        tabulate(_figure_rows(outcome), headers=_headers(outcome), tablefmt="github", disable_numparse=True),
        "",
        f"- question: {QUESTIONS[question(outcome)][0]}",
        f"- {_who(outcome)}",
        f"- {_versions(outcome)}",
        f"- pairs won / drawn / lost by the candidate: {outcome['wins']} / {outcome['draws']} / {outcome['losses']}",
        *([f"- games: {outcome['games']}{_reuse(outcome)}"] if "reused" in outcome else []),
        f"- {_sprt_line(outcome)}",
        f"- results: `{outcome['results']}` (seed {outcome['seed']})",
        "",
    ]
    return "\n".join(lines)


def render_json(outcome: dict[str, Any]) -> str:
    return json.dumps(outcome, indent=2)


def append_step_summary(markdown: str) -> str | None:
    """Append ``markdown`` to the file ``$GITHUB_STEP_SUMMARY`` names, if set; the path written."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return None
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(markdown + "\n")
    return path
