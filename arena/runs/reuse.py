"""What a run reuses and what it plays again, said before it plays (issue: stored results you can trust).

A stored game is reused only when its spec key matches: same id, same seats,
same versions of every seat's code, same options, limits, setup and seeds.
When a game with the same id is stored under another key, the line says why
it is played again: the bots whose code changed (``arena.versions``), or the
tournament's settings (seed, options, limits).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

from arena.runs.spec import GameSpec
from arena.runs.store import StoredGame
from arena.versions import version_change


@dataclass
class ReusePlan:
    """Counts of a run before it plays: reused, to play (of which again, by cause), set aside as history."""

    total: int
    reused: int
    to_play: int
    set_aside: int
    changed: dict[str, tuple[str, int]] = field(default_factory=dict)  # bot -> (why, games to play again)
    settings_changed: int = 0  # games played again because the settings, not a bot, changed

    def lines(self, folder: str) -> list[str]:
        """What ``arena run`` prints before playing."""
        lines = [f"bot {bot} changed ({why}): {count} games to play again; {self.reused} stored games reused"
                 for bot, (why, count) in sorted(self.changed.items())]
        if self.settings_changed:
            lines.append(f"{self.settings_changed} games to play again: the tournament's seed, options or limits "
                         "changed")
        lines.append(f"results in {folder}: {self.total} games, {self.reused} stored and reused, "
                     f"{self.to_play} to play" + (f", {self.set_aside} kept as history out of the standings"
                                                  if self.set_aside else ""))
        return lines


def plan_reuse(specs: Sequence[GameSpec], stored: dict[str, StoredGame]) -> ReusePlan:
    """Compare the schedule with what is stored (by spec key) and say what will be reused and why not."""
    by_id: dict[str, StoredGame] = {}
    for game in stored.values():
        if game.id not in by_id or game.current is not None:
            by_id[game.id] = game
    keys = {spec.key for spec in specs}
    pending = [spec for spec in specs if spec.key not in stored]
    changed: Counter[str] = Counter()
    why: dict[str, str] = {}
    settings = 0
    for spec in pending:
        old = by_id.get(spec.id)
        if old is None:
            continue
        bots = [(entrant.name, version_change(before, now))
                for entrant, before, now in zip(spec.entrants, old.versions, spec.versions) if before != now]
        if not bots:
            settings += 1
        for bot, reason in dict(bots).items():
            changed[bot] += 1
            why[bot] = reason or "version"
    return ReusePlan(total=len(specs), reused=len(specs) - len(pending), to_play=len(pending),
                     set_aside=sum(1 for key in stored if key not in keys),
                     changed={bot: (why[bot], count) for bot, count in changed.items()}, settings_changed=settings)
