"""Reading a tournament file (TOML, cli.md) into a checked :class:`Tournament`.

Everything is checked before anything runs, and every problem is one
:class:`TournamentFileError` line naming the file, the key and what is expected,
e.g. ``demo.toml: games[2].players: silk-road takes 2 to 4 players, got 5``.
Entries of ``[[games]]`` and ``[[bots]]`` are counted from 1 in these keys.
"""

from __future__ import annotations

import glob
import hashlib
import json
import math
import os
import re
import tomllib
from dataclasses import dataclass, replace
from typing import Any

from arena.entrants import Entrant, parse_spec
from arena.errors import ArenaError, TournamentFileError
from arena.match import PROC_VIEWS, Limits, ProcView
from arena.plugins import Plugins
from arena.runs.options import LIMIT_RANGES
from arena.sandbox.own_files import with_neighbours
from arena.sandbox.probe import REQUIRABLE
from arena.standings.raters import RATERS

FORMATS = ("round-robin", "gauntlet", "sampled", "ladder")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
TOP_KEYS = ("tournament", "games", "limits", "sandbox", "bots")
TOURNAMENT_KEYS = ("name", "seed", "format", "deals", "tables_per_entry", "rounds", "until", "top", "rating",
                   "on_broken_entry")
#: what ``[tournament] on_broken_entry`` may say: refuse the run (default, right for CI), or disqualify the entry
ON_BROKEN_ENTRY = ("refuse", "disqualify")
GAME_KEYS = ("name", "players", "options")
BOT_KEYS = ("spec", "options", "files")
MAX_DEALS = 100_000
#: the largest tournament file read (a thousand [[bots]] take about 50 KB)
MAX_FILE_BYTES = 4 * 2**20
MAX_SEED = 2**63 - 1
#: the most games one tournament schedules (its store would hold hundreds of GB beyond)
MAX_GAMES = 10_000_000


@dataclass(frozen=True)
class GameEntry:
    """One ``[[games]]`` table: a game, its seats per table and its checked options."""

    name: str
    players: int
    options: dict[str, Any]


@dataclass(frozen=True)
class Tournament:
    """A checked tournament file."""

    path: str
    name: str
    seed: int | None  # None: the deals follow from a secret drawn on the first run (arena.runs.seeds)
    format: str
    deals: int
    games: tuple[GameEntry, ...]
    limits: Limits
    entrants: tuple[Entrant, ...]
    #: format settings (only for the format named): ``sampled`` tables per entry; ``ladder`` rounds, until, top
    tables_per_entry: int | None = None
    rounds: int | None = None
    until: str | None = None
    top: int | None = None
    #: the rater of the leaderboard: ``trueskill`` (default) or ``openskill``
    rating: str = "trueskill"
    #: ``[sandbox] require``: protections that must be on (arena.sandbox.check_required), else the run is refused
    require: tuple[str, ...] = ()
    #: an entry that cannot start: ``refuse`` the run (exit 2) or ``disqualify`` it and play the rest
    #: (not part of :meth:`definition`: which entries play is, through ``bots``)
    on_broken_entry: str = "refuse"

    def without(self, disqualified: dict[str, str], plugins: Plugins) -> "Tournament":
        """This tournament without the entries named in ``disqualified`` (name -> why), checked as a file is:
        every game must keep two entries that play it, a gauntlet its first entry."""
        if not disqualified:
            return self
        entrants = tuple(entrant for entrant in self.entrants if entrant.name not in disqualified)
        check = _Checker(f"{self.path} (without {', '.join(disqualified)}, disqualified)")
        if self.format == "gauntlet" and self.entrants[0].name in disqualified:
            raise check.fail("bots[1].spec", f"{self.entrants[0].name} is the gauntlet's first bot, in every game: "
                                             "the gauntlet cannot go on without it")
        if len(entrants) < 2:
            raise check.fail("bots", f"expected at least 2 [[bots]] entries that can play, got {len(entrants)}")
        _check_who_plays(check, self.games, entrants, self.format, plugins)
        return replace(self, entrants=entrants)

    def definition(self) -> dict[str, Any]:
        """Everything that decides the games, as plain JSON (the file's path and layout left out)."""
        return {
            "name": self.name,
            "seed": self.seed,
            "format": self.format,
            "deals": self.deals,
            "games": [{"name": g.name, "players": g.players, "options": g.options} for g in self.games],
            "limits": self.limits.as_dict(),
            "bots": [{"name": e.name, "spec": e.spec, "options": e.options} for e in self.entrants],
            **self._format_settings(),
        }

    def _format_settings(self) -> dict[str, Any]:
        """The keys that are set among the format settings and the rater (left out when unset or default,
        so a file without them keeps its digest)."""
        settings = {"tables_per_entry": self.tables_per_entry, "rounds": self.rounds, "until": self.until,
                    "top": self.top, "rating": None if self.rating == "trueskill" else self.rating}
        return {key: value for key, value in settings.items() if value is not None}

    def digest(self) -> str:
        """A hash of :meth:`definition`: equal for files that schedule the same games."""
        text = json.dumps(self.definition(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


class _Checker:
    """Raises one-line errors prefixed with the file's path and the key at fault."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, key: str, message: str) -> TournamentFileError:
        where = f"{self.path}: {key}: " if key else f"{self.path}: "
        return TournamentFileError(where + message)

    def table(self, value: Any, key: str, allowed: tuple[str, ...], required: tuple[str, ...]) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a table, got {_shown(value)}")
        for name in value:
            if name not in allowed:
                raise self.fail(_join(key, name), f"unknown key (expected one of: {', '.join(allowed)})")
        for name in required:
            if name not in value:
                raise self.fail(_join(key, name), "missing (required)")
        return value

    def array_of_tables(self, value: Any, key: str) -> list[dict[str, Any]]:
        if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
            raise self.fail(key, f"expected [[{key}]] tables, got {_shown(value)}")
        if not value:
            raise self.fail(key, f"expected at least one [[{key}]] table")
        return value

    def integer(self, value: Any, key: str, low: int, high: int) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(key, f"expected an integer from {low} to {high}, got {_shown(value)}")
        if not low <= value <= high:
            raise self.fail(key, f"expected an integer from {low} to {high}, got {value}")
        return value

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"expected a non-empty string, got {_shown(value)}")
        return value


def _join(key: str, name: str) -> str:
    return f"{key}.{name}" if key else name


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return repr(value)


def read_toml(path: str) -> dict[str, Any]:
    """The parsed file, or a one-line error saying why it cannot be read."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise TournamentFileError(f"{path}: larger than {MAX_FILE_BYTES // 2**20} MB; a tournament file is "
                                      "a page of TOML (is it the right file?)")
        return tomllib.loads(data.decode("utf-8"))
    except OSError as error:
        raise TournamentFileError(f"{path}: cannot read it: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise TournamentFileError(f"{path}: not valid TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise TournamentFileError(f"{path}: not UTF-8 text (byte {error.start}); a TOML file is UTF-8") from None


def load_tournament(path: str, plugins: Plugins) -> Tournament:
    """Read and check the tournament file at ``path`` against the registered games and bots."""
    return parse_tournament(read_toml(path), path, plugins)


def parse_tournament(data: dict[str, Any], path: str, plugins: Plugins) -> Tournament:
    """Check parsed TOML ``data`` (from ``path``, named in errors) and build the :class:`Tournament`."""
    check = _Checker(path)
    check.table(data, "", TOP_KEYS, ("tournament", "games", "bots"))
    head = check.table(data["tournament"], "tournament", TOURNAMENT_KEYS, ("name",))
    name = check.string(head["name"], "tournament.name")
    if not NAME_PATTERN.fullmatch(name):
        raise check.fail("tournament.name", f"expected letters, digits, '.', '_' or '-' "
                                            f"(it names a folder), got {name!r}")
    seed = check.integer(head["seed"], "tournament.seed", 0, MAX_SEED) if "seed" in head else None
    form = head.get("format", "round-robin")
    if form not in FORMATS:
        raise check.fail("tournament.format", f"expected one of {', '.join(FORMATS)}, got {_shown(form)}")
    deals = check.integer(head.get("deals", 1), "tournament.deals", 1, MAX_DEALS)
    settings = _format_settings(check, head, form)
    games = _games(check, check.array_of_tables(data["games"], "games"), plugins)
    limits = _limits(check, data.get("limits", {}))
    entrants = _entrants(check, check.array_of_tables(data["bots"], "bots"), plugins,
                         os.path.dirname(os.path.abspath(path)))
    _check_who_plays(check, games, entrants, form, plugins)
    _check_size(check, games, entrants, form, deals, settings.get("tables_per_entry"), plugins)
    require = _sandbox_require(check, data.get("sandbox", {}))
    limits = replace(limits, proc=_sandbox_proc(check, data.get("sandbox", {})))
    on_broken = head.get("on_broken_entry", "refuse")
    if on_broken not in ON_BROKEN_ENTRY:
        raise check.fail("tournament.on_broken_entry", f"expected one of {', '.join(ON_BROKEN_ENTRY)}, "
                                                       f"got {_shown(on_broken)}")
    return Tournament(path, name, seed, form, deals, games, limits, entrants, **settings, require=require,
                      on_broken_entry=on_broken)


#: the format settings each format takes; ``until`` is "rounds" (play them all) or "settled"
FORMAT_SETTINGS = {"sampled": ("tables_per_entry",), "ladder": ("rounds", "until", "top")}
UNTIL = ("rounds", "settled")
MAX_ROUNDS = 100_000


def _format_settings(check: _Checker, head: dict[str, Any], form: str) -> dict[str, Any]:
    """The ``[tournament]`` keys of ``sampled`` and ``ladder`` (each only with its format) and ``rating``."""
    allowed = FORMAT_SETTINGS.get(form, ())
    for key in ("tables_per_entry", "rounds", "until", "top"):
        if key in head and key not in allowed:
            takes = next(name for name, keys in FORMAT_SETTINGS.items() if key in keys)
            raise check.fail(f"tournament.{key}", f'only for format = "{takes}", not "{form}"')
    for key in {"sampled": ("tables_per_entry",), "ladder": ("rounds",)}.get(form, ()):
        if key not in head:
            raise check.fail(f"tournament.{key}", f'missing (format = "{form}" needs it)')
    settings: dict[str, Any] = {}
    if "tables_per_entry" in head:
        from arena.formats.sampled import MAX_TABLES_PER_ENTRY  # here: numpy only for a sampled file

        settings["tables_per_entry"] = check.integer(head["tables_per_entry"], "tournament.tables_per_entry",
                                                     1, MAX_TABLES_PER_ENTRY)
    if form == "ladder":
        settings["rounds"] = check.integer(head["rounds"], "tournament.rounds", 1, MAX_ROUNDS)
        until = head.get("until", "rounds")
        if until not in UNTIL:
            raise check.fail("tournament.until", f"expected one of {', '.join(UNTIL)}, got {_shown(until)}")
        settings["until"] = until
        if "top" in head and until != "settled":
            raise check.fail("tournament.top", 'only with until = "settled" (the places that must be decided)')
        if until == "settled":
            settings["top"] = check.integer(head.get("top", 3), "tournament.top", 1, 100_000)
    rating = head.get("rating", "trueskill")
    if rating not in RATERS:
        raise check.fail("tournament.rating", f"expected one of {', '.join(RATERS)}, got {_shown(rating)}")
    settings["rating"] = rating
    return settings


def _games(check: _Checker, tables: list[dict[str, Any]], plugins: Plugins) -> tuple[GameEntry, ...]:
    entries: list[GameEntry] = []
    for number, table in enumerate(tables, 1):
        key = f"games[{number}]"
        check.table(table, key, GAME_KEYS, ("name", "players"))
        name = check.string(table["name"], f"{key}.name")
        if name not in plugins.games:
            known = ", ".join(sorted(plugins.games)) or "none"
            raise check.fail(f"{key}.name", f"unknown game {name!r} (games: {known})")
        if any(entry.name == name for entry in entries):
            raise check.fail(f"{key}.name", f"{name} is listed twice; list each game once")
        game = plugins.game(name)
        players = table["players"]
        if not isinstance(players, int) or isinstance(players, bool):
            raise check.fail(f"{key}.players", f"expected an integer, got {_shown(players)}")
        raw_options = table.get("options", {})
        if not isinstance(raw_options, dict):
            raise check.fail(f"{key}.options", f"expected a table, e.g. {{ phantom = true }}, "
                                               f"got {_shown(raw_options)}")
        if not game.min_players <= players <= game.max_players:
            raise check.fail(f"{key}.players", f"{name} takes {game.min_players} to "
                                               f"{game.max_players} players, got {players}")
        try:
            options = game.check_options(players, raw_options)
        except ArenaError as error:
            raise check.fail(f"{key}.options", str(error)) from None
        entries.append(GameEntry(name, players, options))
    return tuple(entries)


def _limits(check: _Checker, table: Any) -> Limits:
    check.table(table, "limits", (*LIMIT_RANGES, "reuse"), ())
    values: dict[str, Any] = {}
    for key, (low, high) in LIMIT_RANGES.items():
        if key in table:
            values[key] = check.integer(table[key], f"limits.{key}", low, high)
    if "reuse" in table:
        if not isinstance(table["reuse"], bool):
            raise check.fail("limits.reuse", f"expected true or false, got {_shown(table['reuse'])}")
        values["reuse"] = table["reuse"]
    return Limits(**values)


def _sandbox_require(check: _Checker, table: Any) -> tuple[str, ...]:
    """``[sandbox] require``: a list of known protection names (arena.sandbox.probe.REQUIRABLE)."""
    check.table(table, "sandbox", ("require", "proc"), ())
    names = table.get("require", [])
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise check.fail("sandbox.require", f"expected a list of protection names, got {_shown(names)}")
    for name in names:
        if name not in REQUIRABLE:
            raise check.fail("sandbox.require", f"unknown protection {name!r} (known: {', '.join(REQUIRABLE)})")
    return tuple(dict.fromkeys(names))


def _sandbox_proc(check: _Checker, table: dict[str, Any]) -> ProcView:
    """``[sandbox] proc``: what a jailed bot's ``/proc`` shows, ``full`` (the default) or ``processes`` (carried
    in the limits, so that a changed view plays the stored games again)."""
    view = table.get("proc", "full")
    for known in PROC_VIEWS:
        if view == known:
            return known
    raise check.fail("sandbox.proc", f"expected one of {', '.join(map(repr, PROC_VIEWS))}, got {_shown(view)}")


def _entrants(check: _Checker, tables: list[dict[str, Any]], plugins: Plugins, base_dir: str
              ) -> tuple[Entrant, ...]:
    """The ``[[bots]]`` entries; relative paths in them resolve against ``base_dir`` (the file's folder)."""
    entrants: list[Entrant] = []
    first_key: dict[str, str] = {}
    for number, table in enumerate(tables, 1):
        key = f"bots[{number}]"
        check.table(table, key, BOT_KEYS, ("spec",))
        spec = check.string(table["spec"], f"{key}.spec")
        options = table.get("options", {})
        if not isinstance(options, dict):
            raise check.fail(f"{key}.options", f"expected a table of bot options, got {_shown(options)}")
        try:
            entrant = parse_spec(spec, plugins, options, base_dir=base_dir)
        except ArenaError as error:
            raise check.fail(f"{key}.spec", str(error)) from None
        if "files" in table:
            if entrant.kind != "cmd":
                raise check.fail(f"{key}.files", "files = [...] is for cmd: bots (a registered or py: bot "
                                                 "is known by its Python package's files)")
            entrant = replace(entrant, files=_bot_files(check, table["files"], f"{key}.files", base_dir))
        if entrant.name in first_key:
            raise check.fail(f"{key}.spec", f"the name {entrant.name!r} is already taken by "
                                            f"{first_key[entrant.name]}; each entry needs its own name")
        first_key[entrant.name] = key
        entrants.append(entrant)
    if len(entrants) < 2:
        raise check.fail("bots", f"expected at least 2 [[bots]] entries, got {len(entrants)}")
    return tuple(with_neighbours(entrants))  # no bot is shown a folder holding another's files


def _bot_files(check: _Checker, value: Any, key: str, base_dir: str) -> tuple[str, ...]:
    """A ``cmd:`` entry's ``files``: glob patterns relative to the file's folder, each matching some file."""
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise check.fail(key, f'expected a list of glob patterns, e.g. ["bot/**"], got {_shown(value)}')
    for pattern in value:
        if not any(os.path.isfile(path) for path in glob.iglob(os.path.join(base_dir, pattern), recursive=True)):
            raise check.fail(key, f"{pattern!r} matches no file in {base_dir}")
    return tuple(value)


def _check_who_plays(check: _Checker, games: tuple[GameEntry, ...], entrants: tuple[Entrant, ...],
                     form: str, plugins: Plugins) -> None:
    """Every bot plays some listed game; every game has two bots; a gauntlet's first bot plays all."""
    names = [game.name for game in games]
    for number, entrant in enumerate(entrants, 1):
        if not any(entrant.plays(name, plugins) for name in names):
            plays = ", ".join(plugins.bot(entrant.target).games) or "nothing"
            raise check.fail(f"bots[{number}].spec", f"bot {entrant.name} plays none of this "
                                                     f"tournament's games (it plays: {plays})")
    for number, game in enumerate(games, 1):
        players = [entrant.name for entrant in entrants if entrant.plays(game.name, plugins)]
        if len(players) < 2:
            raise check.fail(f"games[{number}].name", f"expected at least 2 bots that play {game.name}, "
                                                      f"got {len(players)} ({', '.join(players)})")
        if form == "gauntlet" and not entrants[0].plays(game.name, plugins):
            raise check.fail("bots[1].spec", f"the first bot of a gauntlet meets everyone in every game, "
                                             f"but {entrants[0].name} does not play {game.name}")


def _check_size(check: _Checker, games: tuple[GameEntry, ...], entrants: tuple[Entrant, ...], form: str,
                deals: int, tables_per_entry: int | None, plugins: Plugins) -> None:
    """Refuse a schedule of more than :data:`MAX_GAMES` games before it is built (a ladder's grows round by round)."""
    total = 0
    for number, game in enumerate(games, 1):
        field = sum(1 for entrant in entrants if entrant.plays(game.name, plugins))
        tables = _table_count(form, field, game.players, tables_per_entry)
        count = tables * deals * game.players
        total += count
        if total > MAX_GAMES:
            before = f" (with the games before it, {total:,})" if total != count else ""
            instead = "" if form == "sampled" else ', or format = "sampled"'
            raise check.fail(f"games[{number}]", f"{form} of {field} entries at {game.players} seats is {tables:,} "
                                                 f"tables x {deals:,} deals x {game.players} rotations = {count:,} "
                                                 f"games{before}, more than one tournament plays ({MAX_GAMES:,}); "
                                                 f"use fewer deals{instead}")


def _table_count(form: str, field: int, players: int, tables_per_entry: int | None) -> int:
    """The tables of one game (as :func:`arena.tournament.schedule.seatings` and the sampled format draw them)."""
    if form == "sampled":
        per_entry = tables_per_entry or 1
        return per_entry if field <= players else math.ceil(field * per_entry / players)
    if form == "gauntlet":
        return math.comb(field - 1, players - 1) if field - 1 >= players - 1 else 1
    if form == "round-robin":
        return math.comb(field, players) if field >= players else 1
    return 0  # ladder: drawn round by round, as many rounds as the file allows
