"""What a run reuses and what it plays again, said before it plays (issue: stored results you can trust).

A stored game is reused only when its spec key matches: same id, same seats,
same versions of every seat's code and of the game (its rules and arena's
game loop), same options, limits, setup and seeds. When a game with the same
id is stored under another key, the line says why it is played again: the
bots whose code changed (``arena.versions``), the game's engine, or the
tournament's settings (seed, options, limits).

With ``keep_stale`` (``arena run --keep-stale``), a stored game that differs
from its spec by the game's version alone is kept instead of played again:
:func:`keep_stale_games` gives such a spec the stored game's version, so its
key matches, and the line says how many games of an older engine were kept.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
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
    games_changed: dict[str, int] = field(default_factory=dict)  # game -> games to play again: its engine changed
    stale_kept: dict[str, int] = field(default_factory=dict)  # game -> games of an older engine kept (keep_stale)

    def change_lines(self) -> list[str]:
        """Which bots, games and settings changed, and how many games each makes play again (or keeps)."""
        lines = [f"bot {bot} changed ({why}): {count} games to play again; {self.reused} stored games reused"
                 for bot, (why, count) in sorted(self.changed.items())]
        lines += [f"game {game} changed (its rules or arena's game loop): {count} games to play again "
                  "(--keep-stale keeps them instead)" for game, count in sorted(self.games_changed.items())]
        lines += [f"game {game} changed (its rules or arena's game loop): {count} stored games of its older "
                  "engine kept as they are (--keep-stale); their records say which engine played them"
                  for game, count in sorted(self.stale_kept.items())]
        if self.settings_changed:
            lines.append(f"{self.settings_changed} games to play again: the tournament's seed, options or limits "
                         "changed")
        return lines

    def lines(self, folder: str) -> list[str]:
        """What ``arena run`` prints before playing."""
        return self.change_lines() + [
            f"results in {folder}: {self.total} games, {self.reused} stored and reused, {self.to_play} to play"
            + (f", {self.set_aside} kept as history out of the standings" if self.set_aside else "")]


def keep_stale_games(specs: Sequence[GameSpec], stored: dict[str, StoredGame]) -> tuple[list[GameSpec], Counter[str]]:
    """``specs`` where each one not stored, but stored with another game version and everything else equal,
    takes that stored game's version (so the stored game is reused); and how many per game."""
    kept: Counter[str] = Counter()
    if not stored:
        return list(specs), kept
    by_id: dict[str, list[StoredGame]] = {}
    for game in stored.values():
        by_id.setdefault(game.id, []).append(game)
    result = []
    for spec in specs:
        if spec.key not in stored:
            for old in sorted(by_id.get(spec.id, ()), key=lambda game: game.current is None):
                if old.game_version != spec.game_version and old.versions == spec.versions:
                    older = replace(spec, game_version=old.game_version)
                    if older.key == old.key:
                        spec = older
                        kept[spec.game] += 1
                        break
        result.append(spec)
    return result, kept


def plan_reuse(specs: Sequence[GameSpec], stored: dict[str, StoredGame],
               stale_kept: dict[str, int] | None = None) -> ReusePlan:
    """Compare the schedule with what is stored (by spec key) and say what will be reused and why not.

    ``stale_kept``: games of an older engine :func:`keep_stale_games` kept, by game (said in the lines).
    """
    if not stored:  # a new store: every game is played, and no key is made here (the workers make them)
        return ReusePlan(total=len(specs), reused=0, to_play=len(specs), set_aside=0, changed={},
                         settings_changed=0, games_changed={}, stale_kept=dict(stale_kept or {}))
    by_id: dict[str, StoredGame] = {}
    for game in stored.values():
        if game.id not in by_id or game.current is not None:
            by_id[game.id] = game
    keys = {spec.key for spec in specs}
    pending = [spec for spec in specs if spec.key not in stored]
    changed: Counter[str] = Counter()
    games: Counter[str] = Counter()
    why: dict[str, str] = {}
    settings = 0
    for spec in pending:
        old = by_id.get(spec.id)
        if old is None:
            continue
        bots = [(entrant.name, version_change(before, now))
                for entrant, before, now in zip(spec.entrants, old.versions, spec.versions) if before != now]
        if not bots:
            if old.game_version != spec.game_version:
                games[spec.game] += 1
            else:
                settings += 1
        for bot, reason in dict(bots).items():
            changed[bot] += 1
            why[bot] = reason or "version"
    return ReusePlan(total=len(specs), reused=len(specs) - len(pending), to_play=len(pending),
                     set_aside=sum(1 for key in stored if key not in keys),
                     changed={bot: (why[bot], count) for bot, count in changed.items()}, settings_changed=settings,
                     games_changed=dict(games), stale_kept=dict(stale_kept or {}))
