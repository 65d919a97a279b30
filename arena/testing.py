"""Conformance checks for game and bot plugin authors, also a pytest plugin (``pytest11``).

``check_game(game)`` plays random self-play games and asserts what every game
must keep: the game ends, ranks follow money, and every record replays
exactly. Our own tests run it on every registered game.

``check_bot(bot)`` plays a bot against ``random`` in every game it plays (what
``arena check-bot`` does) and asserts it never faulted. As a pytest plugin
(installed with arena, through the ``pytest11`` entry point) this module gives
every test suite the fixtures ``arena_check_bot`` and ``arena_plugins``, and the
options ``--arena-games N`` and ``--arena-sandbox process|none``, so a bot's
whole test is one line::

    def test_my_bot(arena_check_bot):
        arena_check_bot("my-bot")
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Callable, Iterable

import pytest

from arena.games.base import Game, competition_ranks
from arena.match import InProcessBot, Limits, derive_seed, play_game
from arena.plugins import Plugins

if TYPE_CHECKING:
    from arena.authoring.conformance import BotReport


class UniformBot:
    """Plays the default action or, when a chooser is given, a chooser's action."""

    def __init__(self, choose: Callable[[dict[str, Any], random.Random], dict[str, Any]] | None = None) -> None:
        self.choose = choose
        self.rng = random.Random(0)

    def start(self, info: dict[str, Any]) -> None:
        self.rng = random.Random(info["seed"])

    def decide(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.choose is None:
            raise TypeError("UniformBot was made without a chooser")
        return self.choose(request, self.rng)


def self_play(game: Game, players: int, seed: int, factory: Callable[[], Any],
              options: dict[str, Any] | None = None) -> dict[str, Any]:
    """One game of ``game`` between ``players`` fresh bots from ``factory``, with its record."""
    options = game.check_options(players, options or {})
    setup = game.random_setup(players, options, random.Random(seed))
    seats = [InProcessBot(factory) for _ in range(players)]
    return play_game(game, options, setup, seats, [f"bot{i}" for i in range(players)],
                     game_id=f"selfplay/{game.name}/{seed}", seed=seed,
                     bot_seeds=[derive_seed(seed, seat) for seat in range(players)])


def check_game(game: Game, factory: Callable[[], Any], seeds: Iterable[int], players: Iterable[int] | None = None,
               plugins: Plugins | None = None) -> int:
    """Self-play ``game`` for every seed and player count; assert the generic invariants.

    Returns the number of games played.
    """
    from arena.plugins import get_plugins
    from arena.replay import replay

    plugins = plugins or get_plugins()
    counts = list(players or range(game.min_players, game.max_players + 1))
    played = 0
    for seed in seeds:
        n = counts[seed % len(counts)]
        record = self_play(game, n, seed, factory)
        assert not record["faults"], record["faults"][:3]
        money, ranks = record["result"]["money"], record["result"]["ranks"]
        assert ranks == competition_ranks(money), (money, ranks)
        problems, _ = replay(record, plugins)
        assert not problems, problems
        played += 1
    return played


def check_bot(bot: str | Callable[..., Any], game: str | None = None, games: int = 6, sandbox: str = "process",
              limits: Limits = Limits(), seed: int = 1, plugins: Plugins | None = None) -> BotReport:
    """Play ``bot`` against ``random`` in each game it plays; assert it never faulted.

    :param bot: a bot spec (``"my-bot"``, ``"my-bot:boldness=0.8"``,
        ``"mine=py:my_module:MyBot"``, ``"mine=cmd:./my-bot"``), or a bot class
        (any factory with ``sandbox="none"``; a class importable as
        ``MODULE:CLASS`` also in the process sandbox).
    :param game: check only this game (default: every game the bot plays).
    :param games: games per game kind, cycling through player counts and seats.
    :param sandbox: ``"process"`` (as in tournaments) or ``"none"`` (in-process).
    :return: the :class:`arena.authoring.conformance.BotReport` (per game:
        faults, decision times, mean rank, determinism), for further asserts.
    """
    from arena.authoring.conformance import check_bot_games, entrant_for
    from arena.plugins import get_plugins

    plugins = plugins or get_plugins()
    entrant = entrant_for(bot, plugins, sandbox)
    report = check_bot_games(entrant, plugins, game=game, games=games, sandbox=sandbox,
                             limits=limits, seed=seed)
    assert report.checks, f"bot {entrant.name} plays none of the registered games"
    assert not report.faulted, report.format()
    return report


# -- the pytest plugin --


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("arena", "arena bot checks")
    group.addoption("--arena-games", type=int, default=6, metavar="N",
                    help="games per game kind in arena_check_bot (default 6)")
    group.addoption("--arena-sandbox", choices=("process", "none"), default="process",
                    help="where arena_check_bot runs the bot (default process, as in tournaments)")


@pytest.fixture
def arena_plugins() -> Plugins:
    """arena's plugin manager: the registered games (``.games``) and bots (``.bots``)."""
    from arena.plugins import get_plugins

    return get_plugins()


@pytest.fixture
def arena_check_bot(request: pytest.FixtureRequest) -> Callable[..., BotReport]:
    """:func:`check_bot` with the command line's ``--arena-games`` and ``--arena-sandbox`` as defaults."""
    config = request.config

    def check(bot: str | Callable[..., Any], **overrides: Any) -> BotReport:
        settings = {"games": config.getoption("arena_games"), "sandbox": config.getoption("arena_sandbox")}
        return check_bot(bot, **{**settings, **overrides})

    return check
