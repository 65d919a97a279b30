"""Bot options end to end: declared at registration, given in specs and tournament files, reaching the bot."""

from __future__ import annotations

import json
import sys

import pytest
from click.testing import CliRunner

from arena import hookimpl
from arena.cli import cli
from arena.entrants import parse_spec
from arena.errors import BadBotSpec, OptionError, TournamentFileError
from arena.tournament.config import parse_tournament
from tournament_files import tournament_data


class Pricer:
    """Modern Art: names ``price`` in every fixed-price auction it runs; otherwise the default choice."""

    DEFAULTS = {"bid": {"bid": None}, "sealed_bid": {"bid": 0}, "add_double": {"card": None},
                "accept_price": {"accept": False}, "flip_phantom": {"flip": False}}

    def __init__(self, price: int = 1, label: str = "pricer") -> None:
        self.price = price

    def decide(self, request):
        legal, decision = request["legal"], request["decision"]
        if decision == "set_price":
            return {"price": min(legal["max"], max(legal["min"], self.price))}
        if decision == "play_card":
            return {"card": legal["cards"][0]}
        return self.DEFAULTS[decision]


@hookimpl
def register_bots(register):
    register("pricer", Pricer, games=["modern-art"], description="names a fixed price",
             options={"price": 1, "label": "pricer"})


@pytest.fixture
def with_pricer(fresh_plugins):
    """The registry with the ``pricer`` bot of this module (importable, so the sandbox host finds it)."""
    plugins = fresh_plugins()
    plugins.register_module(sys.modules[__name__], "pricer-plugin")
    return plugins


def play(*args):
    return CliRunner().invoke(cli, ["play", *args], catch_exceptions=False)


# -- specs --


def test_a_spec_gives_typed_options_and_a_name_of_its_own(plugins):
    entrant = parse_spec("mcts:iterations=50,exploration=0.7", plugins)
    assert entrant.options == {"iterations": 50, "exploration": 0.7}
    assert entrant.name == "mcts:exploration=0.7,iterations=50"
    assert entrant.target == "mcts"
    assert parse_spec("mcts", plugins).name == "mcts"


@pytest.mark.parametrize("spec, message", [
    ("mcts:depth=3", "bot mcts has no option 'depth' (options: exploration, iterations, time_fraction)"),
    ("mcts:iterations=many", "option iterations of bot mcts takes a value of type int (default 0), got 'many'"),
    ("mcts:iterations=2.5", "takes a value of type int"),
    ("mcts:iterations=true", "takes a value of type int"),
    ("mcts:exploration=wide", "option exploration of bot mcts takes a value of type float"),
    ("mcts:iterations", "option 'iterations' is not key=value"),
    ("random:iterations=5", "bot random has no option 'iterations' (options: none)"),
], ids=["unknown", "word-for-int", "float-for-int", "bool-for-int", "word-for-float", "no-value", "optionless-bot"])
def test_bad_options_are_refused_in_one_line(plugins, spec, message):
    with pytest.raises((OptionError, BadBotSpec)) as caught:
        parse_spec(spec, plugins)
    assert message in str(caught.value)


def test_a_whole_number_suits_a_float_option(plugins):
    assert parse_spec("mcts:exploration=1", plugins).options == {"exploration": 1}


def test_the_registered_defaults_fill_in_what_a_spec_leaves_out(plugins):
    bot = parse_spec("mcts:iterations=7", plugins).factory(plugins)()
    assert (bot.iterations, bot.exploration, bot.time_fraction) == (7, 0.5, 0.5)


def test_arena_bots_lists_each_bots_options():
    out = CliRunner().invoke(cli, ["bots"]).output
    line = next(line for line in out.splitlines() if line.startswith("mcts "))
    assert "iterations=0, exploration=0.5, time_fraction=0.5" in line


# -- options reach the bot, in-process and sandboxed --


@pytest.mark.parametrize("sandbox", ["none", "process"])
def test_options_reach_the_bot(with_pricer, sandbox):
    result = play("modern-art", "-b", "pricer:price=7", "-b", "pricer", "-b", "pricer:price=7,label=x",
                  "--seed", "2", "--json", "--sandbox", sandbox)
    record = json.loads(result.output)
    assert record["players"] == ["pricer:price=7", "pricer", "pricer:label=x,price=7"]
    prices = {(move["seat"], move["action"]["price"]) for move in record["moves"] if move["decision"] == "set_price"}
    assert {seat for seat, _ in prices} == {0, 1, 2}
    assert all(price == (1 if seat == 1 else 7) for seat, price in prices)
    assert not record["faults"]


def test_a_py_entrant_gets_its_tournament_options_as_keyword_arguments(plugins):
    entrant = parse_spec(f"fixed=py:{__name__}:Pricer", plugins, {"price": 9})
    assert entrant.factory(plugins)().price == 9


# -- tournament files --


def tournament(*bots: dict) -> dict:
    """The tables of a modern-art tournament file entering ``bots``."""
    return tournament_data(bots, "modern-art:3", name="options", seed=1, deals=None)


def test_a_tournament_entry_takes_an_options_table(plugins):
    parsed = parse_tournament(tournament({"spec": "mcts", "options": {"iterations": 20}},
                                         {"spec": "mcts", "options": {"iterations": 20, "exploration": 0.5}},
                                         {"spec": "mcts:iterations=40"}, {"spec": "random"}), "t.toml", plugins)
    assert [entrant.name for entrant in parsed.entrants] == [
        "mcts:iterations=20", "mcts:exploration=0.5,iterations=20", "mcts:iterations=40", "random"]
    assert parsed.entrants[1].options == {"iterations": 20, "exploration": 0.5}


def test_the_same_bot_with_the_same_options_twice_is_refused(plugins):
    with pytest.raises(TournamentFileError, match=r"bots\[2\].spec: the name 'mcts:iterations=20' is already taken"):
        parse_tournament(tournament({"spec": "mcts", "options": {"iterations": 20}},
                                    {"spec": "mcts:iterations=20"}), "t.toml", plugins)


def test_a_bad_option_in_a_tournament_file_names_the_entry(plugins):
    with pytest.raises(TournamentFileError, match=r"t.toml: bots\[1\].spec: option iterations of bot mcts"):
        parse_tournament(tournament({"spec": "mcts", "options": {"iterations": "lots"}}, {"spec": "random"}),
                         "t.toml", plugins)
