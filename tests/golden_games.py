"""Golden games: one digest of everything the engines and the game loop show, for fixed seeds.

Speed work on the engines (``arena/games``) and the game loop (``arena/match.py``)
must not change a single byte of what bots, records and search bots see. For
each table below this plays seeded games through :func:`arena.match.play_game`
with a bot that reads every request in full (``legal``, ``view``, ``events``)
and every end message, answers at random (and now and then with a malformed
or an illegal action, so faults and their messages are covered), and hashes
all of it and the record. At every few decisions it also probes the search
bots' inner loop: a determinization of the deciding seat's view (every seat's
view of it, then played to the end with default actions: hidden hands, deck
and phantom pile in order) and a clone of the real state played to the end
(the real state left as it was).

    python tests/golden_games.py 2000     # digests of 2,000 games per table (compare two checkouts)

``tests/test_golden_games.py`` compares the default count with the digests
stored in ``tests/records/golden-digests.json``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from typing import Any

from arena.match import InProcessBot, Limits, derive_seed, play_game
from arena.plugins import get_plugins
from arena_bots.random_bot import CHOOSERS

#: (game, players, options) played; the digests file is keyed by their names
TABLES: tuple[tuple[str, int, dict[str, Any]], ...] = (
    ("modern-art", 3, {}),
    ("modern-art", 3, {"phantom": True}),
    ("modern-art", 4, {}),
    ("modern-art", 4, {"double_split": True}),
    ("modern-art", 5, {}),
    ("silk-road", 2, {}),
    ("silk-road", 3, {}),
    ("silk-road", 4, {"start_money": 25}),
)
#: games per table in the stored digests
GAMES = 15
#: a determinization and a clone are probed at every this many decisions
PROBE_EVERY = 7


def table_name(game: str, players: int, options: dict[str, Any]) -> str:
    extra = ",".join(f"{key}={value}" for key, value in sorted(options.items()))
    return f"{game}x{players}" + (f"[{extra}]" if extra else "")


def _text(value: Any) -> bytes:
    """``value`` as JSON text, keys in their own order (the order is part of what a bot receives)."""
    return json.dumps(value, separators=(",", ":")).encode()


class ProbingBot:
    """Reads every request and end message in full into ``sink``; a random answer, sometimes a bad one."""

    def __init__(self, sink: Any) -> None:
        self.sink = sink
        self.rng = random.Random(0)
        self.game = ""
        self.count = 0

    def start(self, info: dict[str, Any]) -> None:
        self.rng = random.Random(info["seed"])
        self.game = info["game"]
        self.sink.update(_text(info))

    def decide(self, request: Any) -> dict[str, Any]:
        self.sink.update(_text(request.full()))
        self.count += 1
        if self.count % 37 == 0:
            return {"nonsense": self.count}
        if self.count % 53 == 0:
            return {"card": 999} if self.game == "modern-art" else {"action": "play", "cards": [999], "slots": [0]}
        return CHOOSERS[self.game](request, self.rng)

    def end(self, message: dict[str, Any]) -> None:
        self.sink.update(_text(message))


def _probe(game: Any, options: dict[str, Any], state: Any, number: int, sink: Any) -> None:
    """Hash a determinization of the deciding seat's view and a clone of ``state``, each played out."""
    seat = state.seat
    before = _text(state.view(seat))
    sampled = game.determinize(state.view(seat), options, random.Random(number))
    sink.update(_text([sampled.seat, sampled.decision, sampled.legal]))
    for other in range(sampled.players):
        sink.update(_text(sampled.view(other)))
    for copy in (sampled.clone(), state.clone()):
        while copy.seat is not None:
            copy.apply(copy.default_action())
        sink.update(_text(copy.log))
        sink.update(_text(copy.result()))
    assert _text(state.view(seat)) == before, "a clone played on changed the state it was made from"


def table_digest(game_name: str, players: int, options: dict[str, Any], games: int = GAMES) -> str:
    """The digest of ``games`` seeded games of one table (requests, end messages, records, probes)."""
    plugins = get_plugins()
    game = plugins.game(game_name)
    full = game.check_options(players, options)
    sink = hashlib.sha256()
    names = [f"p{seat}" for seat in range(players)]
    for number in range(games):
        seed = derive_seed("golden", game_name, players, number)
        setup = game.random_setup(players, full, random.Random(seed))
        bots = [InProcessBot(lambda: ProbingBot(sink)) for _ in range(players)]
        kept: list[Any] = []
        record = play_game(game, full, setup, bots, names, game_id=f"g{number}", seed=seed,
                           bot_seeds=[derive_seed(seed, seat) for seat in range(players)],
                           limits=Limits(move_ms=10**6, bank_ms=0, max_faults=10**6), keep_state=kept)
        sink.update(_text(record))
        sink.update(_text(kept[0].log))
        state = game.new_state(setup, full)
        for index, move in enumerate(record["moves"]):
            if index % PROBE_EVERY == 0:
                _probe(game, full, state, seed + index, sink)
            state.apply(move["action"])
        assert state.seat is None and state.result() == record["result"]
    return sink.hexdigest()


def digests(games: int = GAMES) -> dict[str, str]:
    return {table_name(*table): table_digest(*table, games=games) for table in TABLES}


if __name__ == "__main__":
    print(json.dumps(digests(int(sys.argv[1]) if len(sys.argv) > 1 else GAMES), indent=1))
