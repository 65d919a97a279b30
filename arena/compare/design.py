"""The paired duplicate schedule of a comparison.

Two tables share everything but one entry: table 1 seats the candidate, then
the field; table 2 the baseline, then the same field. Each deal is played in
every rotation of the seats at both tables, with the same setup and the same
bot seeds (by table position, so the candidate and the baseline draw the same
seed), so the games at the two tables differ only by the bot under test. The
candidate's game and the baseline's game of one deal and rotation form a
*pair*; the pairs of one deal form a *block* (the bot under test holds every
seat's cards once).

Schedule order: block by block (deal 1, 2, ...), in a block rotation by
rotation, the candidate's game before the baseline's twin. Game ids follow the
tournament pattern ``NAME/GAME/tT/dD/rR`` (T = 1 candidate, 2 baseline), and
everything follows from the seed, so a stored comparison resumes, exports and
replays like a tournament.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Any

from arena.compare.stats import Pair
from arena.entrants import Entrant
from arena.errors import CompareError
from arena.match import Limits
from arena.plugins import Plugins
from arena.runs.deals import TableDeal, deal, position_seeds, rotation_order
from arena.runs.spec import GameSpec
from arena.tournament.config import NAME_PATTERN, GameEntry

CANDIDATE_TABLE, BASELINE_TABLE = 1, 2


@dataclass(frozen=True)
class Design:
    """A checked comparison: what decides its games (the stopping rule is not part of it)."""

    name: str
    game: str
    players: int
    options: dict[str, Any]
    candidate: Entrant
    baseline: Entrant
    field: tuple[Entrant, ...]  # players - 1 entrants, in table order after the bot under test
    seed: int | None  # None: a secret drawn on the first run and kept in the store
    limits: Limits

    def __post_init__(self) -> None:
        if not NAME_PATTERN.fullmatch(self.name):
            raise CompareError(f"comparison name {self.name!r}: expected letters, digits, '.', '_' or '-' "
                               "(it names a folder)")
        if len(self.field) != self.players - 1:
            raise CompareError(f"a {self.players}-player comparison needs {self.players - 1} field bots, "
                               f"got {len(self.field)}")
        named: dict[str, Entrant] = {}
        for entrant in self.entrants:
            other = named.setdefault(entrant.name, entrant)
            if other.key != entrant.key:
                raise CompareError(f"two different bots are named {entrant.name!r} ({other.spec} and "
                                   f"{entrant.spec}); name one otherwise, e.g. NAME=cmd:COMMAND")

    @property
    def game_entry(self) -> GameEntry:
        """The game as a tournament's ``[[games]]`` entry: name, seats and options."""
        return GameEntry(self.game, self.players, self.options)

    @property
    def games_per_block(self) -> int:
        return 2 * self.players

    @property
    def entrants(self) -> tuple[Entrant, ...]:
        """Every entry: the candidate, the baseline, then the field."""
        return (self.candidate, self.baseline, *self.field)

    @property
    def tables(self) -> tuple[tuple[Entrant, ...], tuple[Entrant, ...]]:
        """Table 1 (the candidate's) and table 2 (the baseline's), in table order."""
        return (self.candidate, *self.field), (self.baseline, *self.field)

    def definition(self) -> dict[str, Any]:
        """Everything that decides the games, as plain JSON (the store refuses a changed one)."""
        return {
            "name": self.name,
            "kind": "compare",
            "seed": self.seed,
            "game": {"name": self.game, "players": self.players, "options": self.options},
            "limits": self.limits.as_dict(),
            "candidate": _described(self.candidate),
            "baseline": _described(self.baseline),
            "field": [_described(entrant) for entrant in self.field],
        }

    def digest(self) -> str:
        text = json.dumps(self.definition(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def plan(self, blocks: int) -> dict[str, Any]:
        """The schedule's summary in the tournament store's shape, for ``blocks`` deals."""
        tables = [[entrant.name for entrant in table] for table in self.tables]
        return {
            "games": [{
                "name": self.game,
                "players": self.players,
                "games": blocks * self.games_per_block,
                "entries": list(dict.fromkeys(name for table in tables for name in table)),
                "left_out": [],
                "tables": tables,
            }],
            "bots": list(dict.fromkeys(name for table in tables for name in table)),
        }

    def seat_under_test(self, rotation: int) -> int:
        """The seat of the bot under test (table position 0) in ``rotation`` (from 1)."""
        return rotation_order(self.players, rotation).index(0)

    def specs(self, blocks: int, sandbox: str, plugins: Plugins, secret: bytes,
              versions: dict[str, str]) -> list[GameSpec]:
        """The games of the first ``blocks`` blocks, in schedule order (one setup per deal).

        ``versions`` maps each entry's name to its code's version: a changed
        candidate or baseline gives other spec keys, so none of its stored games is reused.
        """
        game = plugins.game(self.game)
        specs: list[GameSpec] = []
        for block in range(blocks):
            one = deal(secret, game, self.players, self.options, block + 1)
            bot_seeds = position_seeds(secret, self.game, "compare", one.number, self.players)
            candidate, baseline = (TableDeal(self.name, self.game, self.options, f"t{number}", table, one, bot_seeds,
                                             self.limits, sandbox, versions)
                                   for number, table in enumerate(self.tables, start=1))
            for rotation in range(1, self.players + 1):
                specs += [candidate.spec(rotation, len(specs)), baseline.spec(rotation, len(specs) + 1)]
        return specs

    def block_pairs(self, results: list[dict[str, Any]]) -> list[Pair]:
        """The pairs of one block from its games' results in schedule order (candidate, baseline, ...)."""
        return [Pair.of(results[2 * index], results[2 * index + 1], self.seat_under_test(index + 1))
                for index in range(self.players)]


def _described(entrant: Entrant) -> dict[str, Any]:
    return {"name": entrant.name, "spec": entrant.spec, "options": entrant.options}


def distinct_names(candidate: Entrant, baseline: Entrant) -> tuple[Entrant, Entrant]:
    """The two bots under test, renamed ``NAME (candidate)`` / ``NAME (baseline)`` when their names are equal.

    Records, leaderboards and reports name bots by name, so a bot compared with
    itself (another version behind the same name, or the same bot as a check)
    needs two.
    """
    if candidate.name != baseline.name:
        return candidate, baseline
    return (replace(candidate, name=f"{candidate.name} (candidate)"),
            replace(baseline, name=f"{baseline.name} (baseline)"))
