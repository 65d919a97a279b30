"""Rough edges a newcomer or a hostile user hits: every bad input is one line and exit 2, never a traceback.

Each test is one problem found by using the commands the way users do (wrong
files, wrong types, odd arguments, Ctrl-C, a closed pipe) and then fixed.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner, Result

from arena.cli import cli
from tournament_files import stored_count, write_tournament

SILK = ["silk-road", "-b", "random", "-b", "trader", "--sandbox", "none", "--seed", "3"]


def run(*args: str, input: str | bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)


def one_line_error(result: Result, *parts: str, said: int = 0) -> None:
    """Exit status 2 and one ``Error: ...`` line on stderr holding every one of ``parts``.

    ``said``: the lines a command prints before it (``arena compare`` says where its bots run).
    """
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == said + 1 and lines[-1].startswith("Error: "), result.stderr
    for part in parts:
        assert part in lines[-1], lines[-1]


@pytest.fixture(scope="module")
def record() -> dict:
    """A silk-road game record, as `arena play --json` prints it."""
    return json.loads(run("play", *SILK, "--json").stdout)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> str:
    """A small tournament's results folder: two silk-road games."""
    where = tmp_path_factory.mktemp("results")
    path = write_tournament(where, ["random", "trader"], "silk-road:2", deals=1, name="cup", seed=5)
    done = run("run", path, "--results", str(where), "--sandbox", "none", "-j", "0")
    assert done.exit_code == 0, done.output
    return str(where / "cup")


# arena play --record / --html into a folder that does not exist: a traceback after the game was played


@pytest.mark.parametrize("option", ["--record", "--html"])
def test_play_into_a_missing_folder_is_refused_before_the_game(tmp_path, option, monkeypatch):
    import arena.cli

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("the game was played")

    monkeypatch.setattr(arena.cli, "play_game", never)
    target = tmp_path / "nowhere" / "game.out"
    one_line_error(run("play", *SILK, option, str(target)), option, str(tmp_path / "nowhere"), "no such folder")


# arena play --setup with a players count that is not a number: "is for 3 players, but 3 bots were given"


@pytest.mark.parametrize("players, shown", [('"2"', "'2'"), ("null", "None"), ("2.0", "2.0")])
def test_play_setup_players_must_be_a_number(tmp_path, players, shown):
    setup = tmp_path / "setup.json"
    setup.write_text(f'{{"players": {players}}}')
    one_line_error(run("play", *SILK, "--setup", str(setup)), "players", "expected", shown)


# arena play without --seed, refused: "arena: seed N (add --seed N to play this game again)" before the error


def test_a_refused_play_prints_no_seed_to_play_it_again(tmp_path):
    one_line_error(run("play", "silk-road", "-b", "x=cmd:./missing-bot", "-b", "random", "--sandbox", "none"),
                   "bot x cannot play")


# arena replay of a binary file, or of records whose parts have the wrong JSON types: tracebacks


def test_replay_a_binary_file_is_one_line(tmp_path):
    binary = tmp_path / "game.json"
    binary.write_bytes(b"\xff\xfe\x00garbage\x80")
    one_line_error(run("replay", str(binary)), str(binary), "UTF-8")


def test_replay_reads_json_lines_a_line_at_a_time(record, monkeypatch):
    import arena.replay

    monkeypatch.setattr(arena.replay, "MAX_TEXT", 2 * len(json.dumps(record)))  # two records, not three
    lines = "\n".join(json.dumps(record) for _ in range(3)) + "\n"
    result = run("replay", "-", input=lines)
    assert result.exit_code == 0 and result.stdout.endswith("3 of 3 records replay exactly\n"), result.output
    for document in (json.dumps([record] * 3, indent=1), json.dumps(record, indent=1) + "\n" * 2 * len(lines)):
        one_line_error(run("replay", "-", input=document), "longer than", "JSON lines")


def test_replay_a_file_without_line_ends_stops_at_its_limit(monkeypatch):
    import arena.replay

    monkeypatch.setattr(arena.replay, "MAX_TEXT", 1000)
    one_line_error(run("replay", "-", input="\0" * 5000), "stdin, line 1: longer than")


def test_replay_binary_stdin_is_one_line():
    one_line_error(run("replay", "-", input=b"\xff\xfe\x00garbage\x80"), "stdin", "UTF-8")


@pytest.mark.parametrize("key, value, says", [
    ("setup", [], "setup"),
    ("setup", "x", "setup"),
    ("moves", "x", "moves"),
    ("moves", None, "moves"),
    ("moves", [1, 2], "move 0"),
    ("options", [1], "options"),
    ("options", "x", "options"),
    ("game", [1], "game"),
])
def test_replay_a_record_with_a_part_of_the_wrong_type_is_a_mismatch(record, key, value, says):
    result = run("replay", "-", input=json.dumps({**record, key: value}))
    assert result.exit_code == 1, result.output
    assert result.stdout.splitlines()[0].startswith("MISMATCH ") and says in result.stdout.splitlines()[0]


@pytest.mark.parametrize("players", ["2", None, 2.5, True])
def test_replay_a_setup_whose_players_is_not_a_count_is_a_mismatch(record, players):
    result = run("replay", "-", input=json.dumps({**record, "setup": {**record["setup"], "players": players}}))
    assert result.exit_code == 1, result.output
    assert "MISMATCH" in result.stdout and "players" in result.stdout


# arena run of a binary (non-UTF-8) tournament file: a traceback


def test_run_a_binary_tournament_file_is_one_line(tmp_path):
    path = tmp_path / "cup.toml"
    path.write_bytes(b"[tournament]\nname = \"\xff\xfe\"\n")
    one_line_error(run("run", str(path)), str(path), "UTF-8")


# a huge file (or /dev/zero) named as a tournament or setup file: read whole, then a MemoryError traceback


def test_run_a_huge_file_is_one_line(tmp_path, monkeypatch):
    import arena.tournament.config

    monkeypatch.setattr(arena.tournament.config, "MAX_FILE_BYTES", 1000)
    path = tmp_path / "cup.toml"
    path.write_text("# " + "x" * 2000 + "\n")
    one_line_error(run("run", str(path)), str(path), "larger than")


def test_play_a_huge_setup_file_is_one_line(tmp_path, monkeypatch):
    import arena.cli

    monkeypatch.setattr(arena.cli, "MAX_SETUP_CHARS", 1000)
    path = tmp_path / "setup.json"
    path.write_text(" " * 2000 + "{}")
    one_line_error(run("play", *SILK, "--setup", str(path)), str(path), "larger than")


# --results naming a file: a NotADirectoryError traceback (arena run and arena compare)


def test_run_with_results_naming_a_file_is_one_line(tmp_path):
    path = write_tournament(tmp_path, ["random", "trader"], "silk-road:2", deals=1)
    not_a_folder = tmp_path / "results.txt"
    not_a_folder.write_text("mine\n")
    one_line_error(run("run", path, "--results", str(not_a_folder), "--sandbox", "none", "-j", "0"),
                   "--results", str(not_a_folder), "not a folder")
    assert not_a_folder.read_text() == "mine\n"


def test_run_where_the_tournament_folder_is_a_file_is_one_line(tmp_path):
    path = write_tournament(tmp_path, ["random", "trader"], "silk-road:2", deals=1, name="cup")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "cup").write_text("mine\n")
    one_line_error(run("run", path, "--results", str(tmp_path / "results"), "--sandbox", "none", "-j", "0"),
                   str(tmp_path / "results" / "cup"), "not a folder")


def test_run_with_results_under_a_folder_it_cannot_write_is_one_line(tmp_path, monkeypatch):
    import arena.runs.folders

    path = write_tournament(tmp_path, ["random", "trader"], "silk-road:2", deals=1)
    monkeypatch.setattr(arena.runs.folders.os, "access", lambda path, mode: False)  # as for a user, not root
    one_line_error(run("run", path, "--results", str(tmp_path / "new"), "--sandbox", "none", "-j", "0"),
                   "--results", "permission denied")
    assert not (tmp_path / "new").exists()


def test_compare_with_results_naming_a_file_is_one_line(tmp_path):
    not_a_folder = tmp_path / "results.txt"
    not_a_folder.write_text("mine\n")
    one_line_error(run("compare", "silk-road", "--candidate", "trader", "--baseline", "random", "--deals", "1",
                       "--sandbox", "none", "-j", "0", "--results", str(not_a_folder)),
                   "--results", "not a folder", said=1)


# arena show GAME_ID: its --help promises "or its number in the schedule (0, 1, ...)", which was refused


def test_show_a_game_by_its_number_in_the_schedule(folder):
    ids = [json.loads(line)["id"] for line in run("export", folder).stdout.splitlines()]
    assert len(ids) == 2
    for number, game_id in enumerate(ids):
        assert run("show", folder, str(number)).stdout == run("show", folder, game_id).stdout
        assert json.loads(run("show", folder, str(number), "--json").stdout)["id"] == game_id


def test_show_a_number_past_the_schedule_is_one_line(folder):
    one_line_error(run("show", folder, "2"), "no game '2'")


# arena export / show with arguments that are not UTF-8 (a mistyped byte in a shell): tracebacks


@pytest.mark.parametrize("args", [["export", "{folder}", "--bot", "\udcff"], ["export", "{folder}", "--game", "\udcff"],
                                  ["export", "{folder}", "--id", "\udcff"], ["show", "{folder}", "\udcff"]],
                         ids=["export-bot", "export-game", "export-id", "show"])
def test_arguments_that_are_not_utf8_are_one_line(folder, args):
    one_line_error(run(*(arg.format(folder=folder) for arg in args)), "UTF-8")


# arena compare --sprt with infinite or absurd Elo-like bounds: accepted, then an OverflowError traceback


@pytest.mark.parametrize("bounds", ["0,-inf", "inf,0", "nan,-20", "0,-200000", "1e308,0"])
def test_compare_sprt_bounds_must_be_finite_and_in_range(bounds):
    result = run("compare", "silk-road", "--candidate", "trader", "--baseline", "random", "--sprt", bounds)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1].startswith("Error: Invalid value for '--sprt': each bound must be")


# Ctrl-C in a command without its own handling: "Aborted!" and exit 1, the status of a failed check


def test_ctrl_c_in_play_exits_130_not_1(monkeypatch):
    import arena.cli

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(arena.cli, "play_game", interrupted)
    result = run("play", *SILK)
    assert result.exit_code == 130
    assert "Aborted!" not in result.stderr and "Ctrl-C" in result.stderr


# Output piped to `head`: exit 1 (the status of a failed check or a replay mismatch)


def test_a_closed_pipe_exits_141_silently(monkeypatch):
    import arena.cli

    def closed(*args: object, **kwargs: object) -> list[str]:
        raise BrokenPipeError(errno.EPIPE, "Broken pipe")

    monkeypatch.setattr(arena.cli, "account", closed)
    result = run("play", *SILK)
    assert result.exit_code == 141 and result.stderr == ""


# Terminal escapes and newlines from arguments or records reach the terminal in errors and replay's lines


def test_an_error_naming_a_hostile_path_is_one_escaped_line():
    result = run("leaderboard", "a\x1b]0;pwned\x07b\nc")
    one_line_error(result, "\\x1b]0;pwned\\x07b\\nc")


def test_a_usage_error_naming_a_hostile_path_is_escaped():
    result = run("replay", "a\x1b]0;pwned\x07b\nc")
    assert result.exit_code == 2 and "\x1b" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith("Error: Invalid value for 'RECORD': 'a\\x1b]0;pwned\\x07b\\nc'")


def test_replay_escapes_a_records_id(record):
    result = run("replay", "-", input=json.dumps({**record, "id": "evil\x1b[2J\x1b]0;t\x07"}))
    assert result.exit_code == 0 and "\x1b" not in result.stdout and "evil\\x1b[2J" in result.stdout


# Help texts that say what the command does not do


def test_run_help_matches_the_docs_on_changed_files_and_formats():
    text = run("run", "--help").stdout
    assert "refused unless --fresh" not in text
    assert "sampled" in text and "ladder" in text


def test_help_names_the_program_arena():
    assert run("--help").stdout.startswith("Usage: arena ")
    assert run("bots", "--help").stdout.startswith("Usage: arena bots ")


def test_docs_commands_md_says_usage_arena():
    text = (Path(__file__).parent.parent / "docs" / "commands.md").read_text(encoding="utf-8")
    assert "Usage: cli" not in text and "Usage: arena run [OPTIONS] TOURNAMENT.toml" in text


# A bot option given twice in a spec (mcts:iterations=1,iterations=2): the last one silently won


def test_a_bot_option_given_twice_is_refused():
    one_line_error(run("play", "silk-road", "-b", "a=mcts:iterations=1,iterations=2", "-b", "random",
                       "--sandbox", "none", "--seed", "1"), "'iterations'", "twice")


# arena export --bot with a mistyped name: no output and no word, as if the bot had no games


def test_export_says_when_no_stored_game_matches(folder):
    result = run("export", folder, "--bot", "trdaer")
    assert result.exit_code == 0 and result.stdout == ""
    assert result.stderr == "arena: no stored game matches the filters (bots: random, trader; games: silk-road)\n"
    assert run("export", folder, "--bot", "trader").stderr == ""


# arena report ROOT with one unreadable store in it (a run that never started): no report for any of them


def test_report_of_a_root_leaves_out_an_unreadable_store_and_writes_the_others(folder, tmp_path):
    pytest.importorskip("matplotlib")
    root = Path(folder).parent
    (root / "empty").mkdir(exist_ok=True)
    (root / "empty" / "results.sqlite").write_bytes(b"")
    out = tmp_path / "site"
    result = run("report", str(root), "--replays", "0", "-o", str(out))
    (root / "empty" / "results.sqlite").unlink()
    assert result.exit_code == 0, result.output
    assert f"arena: warning: left out {root / 'empty'}: " in result.stderr
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "cup/index.html" in index and "left out" in index and (out / "cup" / "index.html").is_file()


# arena compare --name NAME --fresh where NAME is a tournament's folder: the tournament's games were deleted


def test_fresh_never_discards_a_store_of_another_kind(folder):
    root = str(Path(folder).parent)
    before = run("export", folder).stdout
    result = run("compare", "silk-road", "--candidate", "trader", "--baseline", "random", "--deals", "1",
                 "--sandbox", "none", "-j", "0", "--results", root, "--name", "cup", "--fresh")
    one_line_error(result, f"{folder} holds the tournament cup, not the compare cup", "--fresh", said=1)
    assert run("export", folder).stdout == before


def test_fresh_still_discards_an_unreadable_store(tmp_path):
    path = write_tournament(tmp_path, ["random", "trader"], "silk-road:2", deals=1, name="cup")
    (tmp_path / "results" / "cup").mkdir(parents=True)
    (tmp_path / "results" / "cup" / "results.sqlite").write_bytes(b"not a database")
    result = run("run", path, "--results", str(tmp_path / "results"), "--sandbox", "none", "-j", "0", "--fresh")
    assert result.exit_code == 0, result.output


# A sampled tournament with tables_per_entry = 64 or more (the file allowed 100,000): an IndexError traceback


def test_sampled_tables_per_entry_beyond_the_design_is_one_line(tmp_path):
    bots = [f"b{number}=random" for number in range(6)]
    path = write_tournament(tmp_path, bots, "silk-road:2", deals=1, format="sampled", tables_per_entry=64)
    one_line_error(run("run", path, "--sandbox", "none", "-j", "0"), "tournament.tables_per_entry",
                   "from 1 to 62, got 64")


def test_the_most_tables_per_entry_allowed_can_be_drawn():
    from arena.formats.sampled import MAX_TABLES_PER_ENTRY, sampled_tables

    for entries, players in ((6, 4), (9, 2), (7, 5)):
        tables = sampled_tables([f"b{number}" for number in range(entries)], players, MAX_TABLES_PER_ENTRY, 1)
        assert len(tables) >= entries * MAX_TABLES_PER_ENTRY // players


# A round-robin of 30 entries at 5 seats and 100,000 deals (71 billion games): a minute of CPU, then memory


@pytest.mark.parametrize("form, settings, says", [
    ("round-robin", {}, "round-robin of 30 entries at 5 seats is 142,506 tables x 1,000 deals x 5 rotations"),
    ("gauntlet", {}, "gauntlet of 30 entries at 5 seats is 23,751 tables x 1,000 deals"),
    ("sampled", {"tables_per_entry": 62}, "sampled of 30 entries at 5 seats is 372 tables x 100,000 deals"),
])
def test_a_schedule_of_too_many_games_is_refused_before_it_is_built(tmp_path, form, settings, says):
    bots = [f"b{number}=random" for number in range(30)]
    deals = 100_000 if form == "sampled" else 1_000
    path = write_tournament(tmp_path, bots, "modern-art:5", deals=deals, format=form, **settings)
    one_line_error(run("run", path, "--sandbox", "none", "-j", "0"), "games[1]", says, "10,000,000", "fewer deals")


# arena new-bot class: a distribution whose plugin says `from class.bot import Bot`, a SyntaxError when loaded


@pytest.mark.parametrize("name", ["class", "import", "tests"])
def test_new_bot_refuses_a_name_whose_package_cannot_work(tmp_path, name):
    one_line_error(run("new-bot", name, "--dir", str(tmp_path / "bot")), f"bot name {name!r}", f"{name}-bot")
    assert not (tmp_path / "bot").exists()


# Absurd limits on the command line (the tournament file bounds them): an OverflowError traceback or a refused bot


@pytest.mark.parametrize("command", [
    ["play", *SILK],
    ["check-bot", "random", "-g", "silk-road", "-n", "1", "--sandbox", "none"],
    ["compare", "silk-road", "--candidate", "trader", "--baseline", "random", "--sandbox", "none", "--deals", "1"],
], ids=["play", "check-bot", "compare"])
@pytest.mark.parametrize("option, value", [("--move-ms", "999999999999999"), ("--start-ms", "999999999999999"),
                                           ("--bank-ms", "99999999999999999999"), ("--memory-mb", "99999999999999")])
def test_command_line_limits_have_the_tournament_files_bounds(command, option, value):
    result = run(*command, option, value)
    assert result.exit_code == 2, result.output
    assert result.stderr.splitlines()[-1].startswith(f"Error: Invalid value for '{option}': {value} is not in the "
                                                     "range "), result.stderr


# A Python bot that prints, played in-process (--sandbox none): its lines in the middle of the record or leaderboard


@pytest.fixture
def chatty(tmp_path, monkeypatch) -> Iterator[str]:
    """The spec of a py: bot that prints a line at every decision (its module forgotten afterwards)."""
    (tmp_path / "rough_edges_chatty.py").write_text(
        "from arena_bots.random_bot import RandomBot\n\n\n"
        "class ChattyBot(RandomBot):\n"
        "    def start(self, info):\n"
        "        print('hello')\n"
        "        super().start(info)\n\n"
        "    def decide(self, request):\n"
        "        print('thinking...')\n"
        "        return super().decide(request)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "chatty=py:rough_edges_chatty:ChattyBot"
    sys.modules.pop("rough_edges_chatty", None)


def test_an_in_process_bots_prints_stay_out_of_play_json(chatty):
    result = run("play", "silk-road", "-b", chatty, "-b", "random", "--sandbox", "none", "--seed", "1", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["players"] == ["chatty", "random"]
    assert "thinking..." in result.stderr and "hello" in result.stderr


@pytest.mark.parametrize("jobs", ["0", "1"])
def test_an_in_process_bots_prints_stay_out_of_the_leaderboard(chatty, tmp_path, jobs):
    path = write_tournament(tmp_path, [chatty, "random"], "silk-road:2", deals=1)
    result = run("run", path, "--sandbox", "none", "-j", jobs)
    assert result.exit_code == 0, result.output
    assert "thinking..." not in result.stdout and "hello" not in result.stdout


def test_an_in_process_bots_prints_stay_out_of_compare_json(chatty):
    result = run("compare", "silk-road", "--candidate", chatty, "--baseline", "random", "--sandbox", "none",
                 "-j", "0", "--deals", "1", "--json")
    assert result.exit_code == 3, result.output
    assert json.loads(result.stdout)["verdict"]


# ARENA_LOAD_PLUGINS / ARENA_DISABLE_PLUGINS with a misspelt name: no plugin loaded (or none blocked), not a word


@pytest.mark.parametrize("variable", ["ARENA_LOAD_PLUGINS", "ARENA_DISABLE_PLUGINS"])
def test_a_plugin_switch_naming_no_installed_plugin_warns(monkeypatch, fresh_plugins, capsys, variable):
    monkeypatch.setenv(variable, "reference-bot, reference-bots")
    fresh_plugins()
    assert capsys.readouterr().err == (f"arena: warning: {variable} names 'reference-bot', which is no installed "
                                       "plugin (installed: reference-bots)\n")


# arena report -o DIR into a folder of one's own: every .html file in DIR/games was deleted


def test_report_into_a_folder_keeps_files_it_did_not_write(folder, tmp_path):
    pytest.importorskip("matplotlib")
    (tmp_path / "site" / "games").mkdir(parents=True)
    mine = tmp_path / "site" / "games" / "my-notes.html"
    mine.write_text("<p>mine</p>")
    for _ in range(2):  # the second report clears the first one's replay pages
        result = run("report", folder, "--replays", "1", "-o", str(tmp_path / "site"))
        assert result.exit_code == 0, result.output
    assert mine.read_text() == "<p>mine</p>"
    assert len(list((tmp_path / "site" / "games").glob("0*.html"))) == 1  # one table, one page


# A cmd: bot that is a script without its execute bit, or a folder: "cannot start '/x/bot.py': Permission denied"


def test_a_cmd_bot_that_is_not_executable_says_how_to_run_it(tmp_path):
    script = tmp_path / "bot.py"
    script.write_text("print('hi')\n")
    script.chmod(0o644)
    one_line_error(run("play", "silk-road", "-b", "random", "-b", f"x=cmd:{script}", "--sandbox", "none"),
                   "bot x cannot play", "not executable", "cmd:python3 bot.py")
    one_line_error(run("play", "silk-road", "-b", "random", "-b", f"x=cmd:{tmp_path}", "--sandbox", "none"),
                   "bot x cannot play", "it is a folder")


# arena leaderboard --diff OLD.json where OLD.json is not quite a leaderboard: KeyError / TypeError tracebacks


@pytest.mark.parametrize("board", [
    {"sections": [5]},
    {"sections": [{"name": "silk-road"}]},
    {"tournament": "x", "games": 1, "sections": [{"game": "silk-road", "games": 1, "standings": [{"bot": "a"}]}]},
    {"tournament": "x", "games": 1, "sections": [{"game": "silk-road", "games": 1, "standings": [
        {"bot": "a", "rank": 1, "games": 1, "rating": "high"}]}]},
], ids=["section-number", "section-without-game", "row-without-rank", "rating-text"])
def test_diff_against_a_malformed_leaderboard_is_one_line(folder, tmp_path, board):
    old = tmp_path / "old.json"
    old.write_text(json.dumps(board))
    one_line_error(run("leaderboard", folder, "--diff", str(old)), "not a leaderboard")


# A store whose run was killed before its schedule was kept: KeyError tracebacks in leaderboard and report


@pytest.mark.parametrize("command", [["leaderboard"], ["report", "--replays", "0"]])
def test_a_store_without_a_schedule_is_one_line(tmp_path, command):
    from arena.runs.store import create_or_open

    create_or_open(str(tmp_path), {"name": "cup", "kind": "tournament", "definition": {"name": "cup"}}).close()
    if command[0] == "report":
        pytest.importorskip("matplotlib")
    one_line_error(run(command[0], str(tmp_path), *command[1:]), "no schedule stored yet", "run the tournament again")


# arena report of a comparison whose compare.json is not what arena compare wrote: AttributeError / KeyError


@pytest.mark.parametrize("outcome", [[], {"verdict": 5}, {"settings": {}}])
def test_report_of_a_comparison_with_a_foreign_compare_json_is_one_line(folder, tmp_path, outcome):
    pytest.importorskip("matplotlib")
    copy = tmp_path / "cup"
    copy.mkdir()
    (copy / "results.sqlite").write_bytes((Path(folder) / "results.sqlite").read_bytes())
    (copy / "compare.json").write_text(json.dumps(outcome))
    one_line_error(run("report", str(copy), "--replays", "0"), "compare.json", "not what `arena compare` writes")


# arena show --help: "the record, which ... `arena play --setup` can deal again"; play refused a record


def test_play_setup_deals_a_stored_record_again(folder, tmp_path):
    record = json.loads(run("show", folder, "0", "--json").stdout)
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    again = run("play", "silk-road", "-b", "random", "-b", "trader", "--setup", str(path), "--seed", "1",
                "--sandbox", "none", "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["setup"] == record["setup"]


def test_more_workers_than_a_machine_can_use_is_one_line(tmp_path):
    path = write_tournament(tmp_path, ["random", "r2=random"], "silk-road:2", deals=1)
    cores = os.cpu_count() or 1
    most = max(64, 8 * cores)
    one_line_error(run("run", path, "--sandbox", "none", "-j", str(most + 1), "--results", str(tmp_path / "r")),
                   f"-j {most + 1}: at most {most} worker processes on this machine ({cores} cores)")
    assert not (tmp_path / "r" / "cup").exists()


def test_a_game_option_given_twice_is_refused():
    one_line_error(run("play", "silk-road", "-b", "random", "-b", "random", "-o", "start_money=5",
                       "-o", "start_money=9"), "start_money given twice", said=3)  # after click's usage lines


SLEEPY_BOT = '''import json, os, sys, time
for line in sys.stdin:
    if json.loads(line)["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    else:
        open(sys.argv[1], "w").write(str(os.getpid()))
        time.sleep(3600)  # thinks for ever, deaf to its input closing: the runner is killed meanwhile
'''


def test_a_bot_outside_the_jail_dies_with_a_killed_play(tmp_path):
    (tmp_path / "sleepy.py").write_text(SLEEPY_BOT)
    pid_file = tmp_path / "pid"
    play = subprocess.Popen([sys.executable, "-m", "arena", "play", "silk-road", "--sandbox", "none",
                             "-b", f"sleepy=cmd:{sys.executable} sleepy.py {pid_file}", "-b", "random",
                             "--move-ms", "600000"],
                            cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text():
        assert time.monotonic() < deadline and play.poll() is None
        time.sleep(0.05)
    bot = int(pid_file.read_text())
    play.kill()
    play.wait()
    time.sleep(1)
    assert not Path(f"/proc/{bot}").exists() or "Z" in Path(f"/proc/{bot}/stat").read_text().split()[2]


def test_mcts_options_out_of_range_are_refused_before_play():
    for option in ("iterations=-5", "exploration=-1", "time_fraction=0", "time_fraction=2"):
        one_line_error(run("play", "silk-road", "-b", f"mcts:{option}", "-b", "random", "--sandbox", "none",
                           "--seed", "1"), f"bot mcts:{option} cannot play", "expected iterations >= 0")


# One rule for paths: a py: module beside the tournament file was searched in the current folder instead


GREEDY = ("from arena_bots.random_bot import RandomBot\n\n\n"
          "class Greedy(RandomBot):\n"
          "    \"\"\"A random bot under another name, in a package beside the tournament file.\"\"\"\n")


@pytest.fixture
def beside(monkeypatch) -> Iterator[Path]:
    """A folder (readable by a sandboxed bot) holding ``cup/pyonly.toml`` and ``cup/pybots/greedy.py``;
    the test runs from that folder, not from ``cup``."""
    top = Path(tempfile.mkdtemp(prefix="arena-paths-"))
    top.chmod(0o755)
    package = top / "cup" / "pybots"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "greedy.py").write_text(GREEDY)
    write_tournament(top / "cup", ["greedy=py:pybots.greedy:Greedy", "random"], "silk-road:2", deals=1,
                     name="pyonly", seed=4)
    monkeypatch.chdir(top)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the run adds the file's folder to it
    yield top
    for name in ("pybots", "pybots.greedy", "mybot", "helper", "mine", "mine.helper", "mine.mybot"):
        sys.modules.pop(name, None)
    shutil.rmtree(top, ignore_errors=True)


@pytest.mark.parametrize("sandbox", ["none", "process"])
def test_a_py_module_beside_the_tournament_file_is_found_from_another_folder(beside, sandbox):
    result = run("run", "cup/pyonly.toml", "--sandbox", sandbox, "-j", "0")
    assert result.exit_code == 0, result.output
    assert "greedy" in result.stdout
    assert (beside / "results" / "pyonly" / "results.sqlite").is_file()  # --results stays where the command runs
    assert not (beside / "cup" / "results").exists()


# .run.lock was left in every results folder after the run ended


SLOW_BOT = ("import time\n\nfrom arena_bots.random_bot import RandomBot\n\n\n"
            "class SlowBot(RandomBot):\n"
            "    def decide(self, request):\n"
            "        time.sleep(0.002)\n"
            "        return super().decide(request)\n")


def slow_cup(folder: Path, deals: int = 8) -> str:
    """A tournament file of four slow py: bots beside it (8 deals: 96 games, a few seconds with -j 2)."""
    (folder / "slowbot.py").write_text(SLOW_BOT)
    return write_tournament(folder, [f"s{i}=py:slowbot:SlowBot" for i in range(1, 5)], "silk-road:3",
                            deals=deals, name="cup", seed=7)


def games_in(folder: Path) -> int:
    """Games stored in a results folder, read beside the run writing it."""
    import sqlite3

    db = sqlite3.connect(f"file:{folder / 'results.sqlite'}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    finally:
        db.close()


def start_arena_run(path: str, folder: Path, *extra: str) -> subprocess.Popen:
    """``arena run PATH -j 2 --sandbox none`` in ``folder``, in a session of its own."""
    return subprocess.Popen(["arena", "run", path, "-j", "2", "--sandbox", "none", *extra], cwd=folder,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def test_a_finished_run_leaves_no_lock_file(folder):
    assert sorted(os.listdir(folder)) == ["arena.log", "leaderboard.csv", "leaderboard.json", "leaderboard.md",
                                          "results.sqlite"]


def test_a_failing_run_leaves_no_lock_file(tmp_path, monkeypatch):
    import arena.runs.run

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(arena.runs.run, "run_schedule", broken)
    path = write_tournament(tmp_path, ["random", "trader"], "silk-road:2", deals=1)
    with pytest.raises(OSError):
        run("run", path, "--sandbox", "none", "-j", "0")
    assert (tmp_path / "results" / "cup" / "results.sqlite").is_file()
    assert not (tmp_path / "results" / "cup" / ".run.lock").exists()


def test_a_stopped_run_leaves_no_lock_file_and_the_folder_is_free_again(tmp_path):
    path = slow_cup(tmp_path, deals=30)  # 360 games: long enough to be refused beside, then stopped
    process = start_arena_run(path, tmp_path)
    deadline = time.monotonic() + 60
    while not (tmp_path / "results" / "cup" / "results.sqlite").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.5)
    second = subprocess.run(["arena", "run", path, "-j", "0", "--sandbox", "none"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert process.poll() is None, "the first run ended too soon to be refused beside"
    assert second.returncode == 2 and second.stderr.splitlines()[-1] == (
        "Error: results/cup is being written by another arena run; wait for it to finish"), second.stderr
    assert (tmp_path / "results" / "cup" / ".run.lock").exists()  # still the first run's
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert not (tmp_path / "results" / "cup" / ".run.lock").exists()
    again = subprocess.Popen(["arena", "run", path, "-j", "2", "--sandbox", "none"], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    before, deadline = games_in(tmp_path / "results" / "cup"), time.monotonic() + 60
    while games_in(tmp_path / "results" / "cup") == before and time.monotonic() < deadline:
        time.sleep(0.02)  # the folder is free again: the run takes it and plays on, then is stopped in turn
    os.killpg(again.pid, signal.SIGTERM)
    _, err = again.communicate(timeout=60)
    assert again.returncode == 143 and "is being written by another" not in err, err
    assert not (tmp_path / "results" / "cup" / ".run.lock").exists()


# The CSV leaderboard: its columns and its True/False cells were not what docs/standings.md says


def test_the_csv_leaderboard_has_the_documented_columns_and_truth_values(folder):
    import csv
    import re

    docs = (Path(__file__).parent.parent / "docs" / "standings.md").read_text()
    documented = re.search(r"The `csv` form .*?```\n(.*?)\n```", docs, re.DOTALL)
    assert documented, "docs/standings.md lists the csv's columns"
    text = (Path(folder) / "leaderboard.csv").read_text()
    assert text == run("leaderboard", folder, "--format", "csv").stdout
    rows = list(csv.reader(text.splitlines()))
    assert ",".join(rows[0]) == documented.group(1)
    decided = rows[0].index("decided")
    assert {row[decided] for row in rows[1:]} <= {"TRUE", "FALSE", ""}
    assert {row[decided] for row in rows[1:]} & {"TRUE", "FALSE"}
    for row in rows[1:]:
        assert "True" not in row and "False" not in row and "None" not in row, row


# The overall table: a bot ranked first in the one game it plays outranked bots that play both


def test_a_bot_playing_one_game_never_outranks_bots_playing_both(tmp_path):
    path = write_tournament(tmp_path, ["random", "r2=random", "trader", "appraiser"],
                            "modern-art:3,silk-road:3", deals=2, name="mix", seed=3)
    result = run("run", path, "--sandbox", "none", "-j", "0")
    assert result.exit_code == 0, result.output
    board = json.loads((tmp_path / "results" / "mix" / "leaderboard.json").read_text())
    sections = {section["game"]: section for section in board["sections"]}
    firsts = {section["standings"][0]["bot"] for game, section in sections.items() if game != "overall"}
    assert firsts == {"appraiser", "trader"}  # each first in the one game it plays
    overall = sections["overall"]["standings"]
    assert [row["bot"] for row in overall][:2] == ["r2", "random"]  # both play both games (tied: r2 by name)
    assert [len(row["game_ranks"]) for row in overall] == [2, 2, 1, 1]
    assert all(row["rank_high"] <= 2 for row in overall[:2]) and all(row["rank_low"] >= 3 for row in overall[2:])
    assert any("plays fewer of the games is ranked after" in line for line in sections["overall"]["explanation"])


# A single-file py: bot importing a module beside it fails in the sandbox, and the hint did not say to make a package


def test_a_single_file_bot_importing_its_sibling_is_told_to_make_a_package(beside):
    cup = beside / "cup"
    (cup / "helper.py").write_text(GREEDY)
    (cup / "mybot.py").write_text("from helper import Greedy\n\n\nclass Bot(Greedy):\n    pass\n")
    write_tournament(cup, ["me=py:mybot:Bot", "random"], "silk-road:2", deals=1, name="sib", seed=4)
    one_line_error(run("run", "cup/sib.toml", "--sandbox", "process", "-j", "0"),
                   "bot me cannot play", "No module named 'helper'", "make a package",
                   "a folder with an __init__.py holding mybot.py and helper.py", "'from . import helper'",
                   "py:FOLDER.mybot:Bot", said=1)  # said: which protections are on
    package = cup / "mine"  # the fix the hint names
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helper.py").write_text(GREEDY)
    (package / "mybot.py").write_text("from .helper import Greedy\n\n\nclass Bot(Greedy):\n    pass\n")
    write_tournament(cup, ["me=py:mine.mybot:Bot", "random"], "silk-road:2", deals=1, name="sib", seed=4)
    result = run("run", "cup/sib.toml", "--sandbox", "process", "-j", "0")
    assert result.exit_code == 0, result.output


# Ctrl-C printed "Exception ignored in: <function _releaseLock> ... StopRequested" in about one stop of four


#: run the command in ``sys.argv[1:]`` with SIGINT's default action (an ignored signal stays ignored across exec)
DEFAULT_CTRL_C = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                  "os.execvp(sys.argv[1], sys.argv[1:])")


def stop_one_run(top: Path, number: int) -> tuple[int, str]:
    """``arena run`` (sandboxed, -j 2) in a folder of its own, stopped with Ctrl-C at a delay that varies with
    ``number`` once its workers are starting; its exit status and stderr."""
    folder = top / f"run{number}"
    folder.mkdir()
    path = write_tournament(folder, ["random", "trader", "r2=random", "r3=random"], "silk-road:3", deals=50,
                            name="cup", seed=number)
    # started as a terminal starts a command: Ctrl-C not ignored, whatever started this test (a shell's background
    # job ignores it, and its children would too until their run's pool plays: a lost stop that is not arena's)
    process = subprocess.Popen([sys.executable, "-c", DEFAULT_CTRL_C, "arena", "run", path, "-j", "2", "--sandbox",
                                "process"], cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    log = folder / "results" / "cup" / "arena.log"
    deadline = time.monotonic() + 120
    while not log.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep((number % 10) * 0.04)  # 0 to 0.36 s into the play: starting bots, playing, between games
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C on a terminal does: the whole group
    try:
        _, err = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:  # the stop was lost: say so with what it wrote, and end it
        os.killpg(process.pid, signal.SIGKILL)
        _, err = process.communicate()
        return process.returncode, f"still running 120 s after Ctrl-C ({number % 10 * 0.04:.2f} s in):\n{err}"
    return process.returncode, err


# Ctrl-C at the moment a run's pool began was forgotten (its run then played every game, exit 0): the run's
# handler asked the pool to stop, and the pool's run() began by clearing its stop. It made the test below time
# out now and then (Ctrl-C 0 s after the log appears).


@pytest.mark.parametrize("where", ["-j 0", "-j 2", "--scheduler local:1"])
def test_ctrl_c_as_the_pool_begins_stops_the_run(isolated, monkeypatch, where):
    from arena.runs.pools.dask import ExecutorPool
    from arena.runs.pools.inline import InlinePool
    from arena.runs.pools.local import LocalPool

    pool = {"-j 0": InlinePool, "-j 2": LocalPool}.get(where, ExecutorPool)
    begin = pool.run

    def begin_after_ctrl_c(self, *args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)  # handled here, by the run's handler, before the pool plays
        return begin(self, *args, **kwargs)

    monkeypatch.setattr(pool, "run", begin_after_ctrl_c)
    path = write_tournament(isolated, ["random", "trader"], "silk-road:2", deals=20, name="cup", seed=3)
    result = run("run", path, *where.split(), "--sandbox", "none")
    assert result.exit_code == 130, result.output
    assert stored_count(isolated / "results" / "cup") == 0  # stopped before any game, none played


@pytest.mark.slow  # 50 sandboxed runs, five at a time: about a minute
def test_ctrl_c_never_prints_a_traceback():
    from concurrent.futures import ThreadPoolExecutor

    top = Path(tempfile.mkdtemp(prefix="arena-stops-"))
    top.chmod(0o755)
    try:
        with ThreadPoolExecutor(5) as threads:
            stops = list(threads.map(lambda number: stop_one_run(top, number), range(50)))
        for status, err in stops:
            assert "Traceback" not in err and "Exception ignored" not in err, err
            assert status == 130, err
        assert not list(top.glob("run*/results/cup/.run.lock"))
    finally:
        shutil.rmtree(top, ignore_errors=True)
