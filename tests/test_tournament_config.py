"""Tournament files: a good one reads as written; every bad one is a one-line error naming file, key and fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.tournament.config import load_tournament
from arena.runs import seeds
from arena.tournament.schedule import build_schedule

GOOD = """
[tournament]
name = "cup"
seed = 7
format = "round-robin"
deals = 2

[[games]]
name = "silk-road"
players = 2
options = { start_money = 3 }

[[games]]
name = "modern-art"
players = 3

[limits]
move_ms = 800
bank_ms = 0

[[bots]]
spec = "random"

[[bots]]
spec = "trader"

[[bots]]
spec = "r2=py:arena_bots.random_bot:RandomBot"
"""


def write(tmp_path, text: str) -> str:
    path = tmp_path / "cup.toml"
    path.write_text(text)
    return str(path)


def test_a_good_file_reads_as_written(tmp_path, plugins):
    tournament = load_tournament(write(tmp_path, GOOD), plugins)
    assert (tournament.name, tournament.seed, tournament.format, tournament.deals) == ("cup", 7, "round-robin", 2)
    assert [(g.name, g.players) for g in tournament.games] == [("silk-road", 2), ("modern-art", 3)]
    assert tournament.games[0].options == {"start_money": 3}
    assert tournament.games[1].options == {"phantom": False, "double_split": False}  # defaults filled in
    assert (tournament.limits.move_ms, tournament.limits.bank_ms, tournament.limits.start_ms) == (800, 0, 5000)
    assert [e.name for e in tournament.entrants] == ["random", "trader", "r2"]


def test_the_hash_ignores_layout_but_not_content(tmp_path, plugins):
    digest = load_tournament(write(tmp_path, GOOD), plugins).digest()
    relaid = GOOD.replace("deals = 2", "deals = 2   # two per table").replace("\n\n", "\n")
    assert load_tournament(write(tmp_path, relaid), plugins).digest() == digest
    assert load_tournament(write(tmp_path, GOOD.replace("seed = 7", "seed = 8")), plugins).digest() != digest


BAD = [
    # (what is wrong, replace this, with this, expected message after "cup.toml: ")
    ("not TOML", "[tournament]", "[tournament", "not valid TOML"),
    ("unknown top-level table", "[limits]", "[extra]\nx = 1\n[limits]",
     "extra: unknown key (expected one of: tournament, games, limits, sandbox, bots)"),
    ("no [tournament]", "[tournament]\nname = \"cup\"\nseed = 7\nformat = \"round-robin\"\ndeals = 2\n", "",
     "tournament: missing (required)"),
    ("unknown tournament key", "deals = 2", "deals = 2\nrunds = 3",
     "tournament.runds: unknown key (expected one of: name, seed, format, deals, tables_per_entry, rounds, until, "
     "top, rating, on_broken_entry)"),
    ("a ladder key without the ladder", "deals = 2", "deals = 2\nrounds = 3",
     'tournament.rounds: only for format = "ladder", not "round-robin"'),
    ("no name", "name = \"cup\"\n", "", "tournament.name: missing (required)"),
    ("a name that is no folder name", "name = \"cup\"", "name = \"../cup\"",
     "tournament.name: expected letters, digits, '.', '_' or '-' (it names a folder), got '../cup'"),
    ("a seed that is a string", "seed = 7", "seed = \"seven\"",
     "tournament.seed: expected an integer from 0 to 9223372036854775807, got 'seven'"),
    ("a negative seed", "seed = 7", "seed = -1",
     "tournament.seed: expected an integer from 0 to 9223372036854775807, got -1"),
    ("an unknown format", "format = \"round-robin\"", "format = \"swiss\"",
     "tournament.format: expected one of round-robin, gauntlet, sampled, ladder, got 'swiss'"),
    ("no deals", "deals = 2", "deals = 0", "tournament.deals: expected an integer from 1 to 100000, got 0"),
    ("deals as a boolean", "deals = 2", "deals = true",
     "tournament.deals: expected an integer from 1 to 100000, got True"),
    ("an unknown game", "name = \"silk-road\"", "name = \"chess\"",
     "games[1].name: unknown game 'chess' (games: modern-art, silk-road"),
    ("a game listed twice", "name = \"modern-art\"", "name = \"silk-road\"",
     "games[2].name: silk-road is listed twice; list each game once"),
    ("an unknown game key", "players = 2", "players = 2\nseats = 2",
     "games[1].seats: unknown key (expected one of: name, players, options)"),
    ("no player count", "players = 2\n", "", "games[1].players: missing (required)"),
    ("too many players", "players = 2", "players = 5", "games[1].players: silk-road takes 2 to 4 players, got 5"),
    ("too few players", "players = 3", "players = 2", "games[2].players: modern-art takes 3 to 5 players, got 2"),
    ("players as a string", "players = 2", "players = \"two\"", "games[1].players: expected an integer, got 'two'"),
    ("an unknown game option", "options = { start_money = 3 }", "options = { fog = true }",
     "games[1].options: silk-road has no option 'fog'"),
    ("an option of the wrong type", "options = { start_money = 3 }", "options = { start_money = \"lots\" }",
     "games[1].options: option start_money of silk-road takes a int, got 'lots'"),
    ("an option that does not apply", "players = 3\n", "players = 4\noptions = { phantom = true }\n",
     "games[2].options: option phantom of modern-art:"),
    ("options not a table", "options = { start_money = 3 }", "options = 3",
     "games[1].options: expected a table, e.g. { phantom = true }, got 3"),
    ("an unknown limit", "move_ms = 800", "turn_ms = 800",
     "limits.turn_ms: unknown key (expected one of: start_ms, move_ms, bank_ms, memory_mb, max_faults, threads, "
     "reuse)"),
    ("a move limit of zero", "move_ms = 800", "move_ms = 0",
     "limits.move_ms: expected an integer from 1 to 600000, got 0"),
    ("a negative bank", "bank_ms = 0", "bank_ms = -5", "limits.bank_ms: expected an integer from 0 to 3600000, got -5"),
    ("too little memory", "bank_ms = 0", "memory_mb = 4",
     "limits.memory_mb: expected an integer from 16 to 1048576, got 4"),
    ("a limit as a float", "move_ms = 800", "move_ms = 0.5",
     "limits.move_ms: expected an integer from 1 to 600000, got 0.5"),
    ("an unknown bot", "spec = \"trader\"", "spec = \"nobody\"", "bots[2].spec: unknown bot 'nobody' (bots:"),
    ("a malformed bot spec", "spec = \"trader\"", "spec = \"x=foo:bar\"",
     "bots[2].spec: bot spec 'x=foo:bar': after '=' expected cmd:COMMAND or py:MODULE:CLASS"),
    ("a bot option the bot lacks", "spec = \"random\"", "spec = \"random:depth=3\"",
     "bots[1].spec: bot random has no option 'depth'"),
    ("an unknown bot key", "spec = \"trader\"", "spec = \"trader\"\nname = \"t\"",
     "bots[2].name: unknown key (expected one of: spec, options, files)"),
    ("a bot name entered twice", "spec = \"trader\"", "spec = \"random\"",
     "bots[2].spec: the name 'random' is already taken by bots[1]; each entry needs its own name"),
    ("a bot that plays none of the games",
     "[[games]]\nname = \"silk-road\"\nplayers = 2\noptions = { start_money = 3 }\n", "",
     "bots[2].spec: bot trader plays none of this tournament's games (it plays: silk-road)"),
]


@pytest.mark.parametrize("what, old, new, expected", BAD, ids=[case[0] for case in BAD])
def test_every_bad_file_is_one_line_naming_file_key_and_fix(tmp_path, what, old, new, expected):
    assert old in GOOD, what
    path = write(tmp_path, GOOD.replace(old, new, 1))
    result = CliRunner().invoke(cli, ["run", path, "--sandbox", "none"])
    assert result.exit_code == 2, result.output
    message = result.output.strip()
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(f"Error: {path}: {expected}"), message
    assert not (tmp_path / "results").exists()  # nothing ran


WHOLE_FILES = [
    ("a single bot", "[tournament]\nname = 't'\nseed = 1\n[[games]]\nname = 'silk-road'\nplayers = 2\n"
                     "[[bots]]\nspec = 'random'\n",
     "bots: expected at least 2 [[bots]] entries, got 1"),
    ("a game only one bot plays", "[tournament]\nname = 't'\nseed = 1\n[[games]]\nname = 'silk-road'\nplayers = 2\n"
                                  "[[games]]\nname = 'modern-art'\nplayers = 3\n"
                                  "[[bots]]\nspec = 'random'\n[[bots]]\nspec = 'trader'\n",
     "games[2].name: expected at least 2 bots that play modern-art, got 1 (random)"),
    ("a gauntlet led by a bot missing a game", "[tournament]\nname = 't'\nseed = 1\nformat = 'gauntlet'\n"
                                               "[[games]]\nname = 'silk-road'\nplayers = 2\n"
                                               "[[games]]\nname = 'modern-art'\nplayers = 3\n"
                                               "[[bots]]\nspec = 'trader'\n[[bots]]\nspec = 'random'\n"
                                               "[[bots]]\nspec = 'r2=py:arena_bots.random_bot:RandomBot'\n",
     "bots[1].spec: the first bot of a gauntlet meets everyone in every game, but trader does not play modern-art"),
    ("no [[bots]]", "[tournament]\nname = 't'\nseed = 1\n[[games]]\nname = 'silk-road'\nplayers = 2\n",
     "bots: missing (required)"),
    ("games not tables", "games = 3\n[tournament]\nname = 't'\nseed = 1\n[[bots]]\nspec = 'random'\n",
     "games: expected [[games]] tables, got 3"),
    ("an empty [[games]] array", "games = []\n[tournament]\nname = 't'\nseed = 1\n[[bots]]\nspec = 'random'\n",
     "games: expected at least one [[games]] table"),
]


@pytest.mark.parametrize("what, text, expected", WHOLE_FILES, ids=[case[0] for case in WHOLE_FILES])
def test_whole_bad_files(tmp_path, what, text, expected):
    path = write(tmp_path, text)
    result = CliRunner().invoke(cli, ["run", path, "--sandbox", "none"])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == f"Error: {path}: {expected}"


def test_a_missing_file_is_one_line(tmp_path):
    result = CliRunner().invoke(cli, ["run", str(tmp_path / "nowhere.toml")])
    assert result.exit_code == 2
    assert result.output.strip() == f"Error: {tmp_path / 'nowhere.toml'}: cannot read it: No such file or directory"


@pytest.mark.parametrize("name, games", [("demo", 100 * 3 + 100 * 2), ("modern-art", 5 * 10 * 4),
                                         ("silk-road", 6 * 15 * 3)])
def test_the_shipped_tournament_files_read_and_schedule(plugins, name, games):
    path = Path(__file__).parent.parent / "tournaments" / f"{name}.toml"
    tournament = load_tournament(str(path), plugins)
    assert tournament.name == name
    assert build_schedule(tournament, plugins, seeds.draw_secret()).total == games
