"""The files ``arena new-bot`` writes, as :class:`string.Template` texts.

Placeholders: ``$name`` (the bot's name, also the distribution's and the entry
point's), ``$package`` (the Python package, ``$name`` with ``-`` as ``_``),
``$arena_requirement`` and ``$reference_bots`` (the arena the bot was
scaffolded with and its reference bots, pinned: :mod:`arena.authoring.pin`).
The regression gate's workflow and script (:mod:`arena.authoring.gate`) are
written beside these, unchanged. The bot plays both games legally from ``legal`` alone, so
the new distribution passes its own test before its author writes a line.
"""

from __future__ import annotations

from string import Template

PYPROJECT = Template('''\
[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "$name"
version = "0.1.0"
description = "$name: a bot for arena (Modern Art and Maritime Silk Road)"
requires-python = ">=3.11"
# arena, pinned to the one this bot was scaffolded with (`arena new-bot`), so that CI plays it with
# the same arena; change the pin to move on. arena's distribution is "knizia-arena" ("arena" on the
# package index is another project).
dependencies = ["$arena_requirement"]

[project.optional-dependencies]
test = ["pytest>=8"]
# arena's reference bots (random, appraiser, trader, mcts) from the same arena
reference-bots = ["$reference_bots"]

# This entry point is what makes arena find the bot once the distribution is installed.
[project.entry-points.arena]
$name = "$package.plugin"

[tool.setuptools.packages.find]
include = ["$package*"]
''')

PACKAGE_INIT = Template('''\
"""$name: a bot for arena, registered through the plugin in ``$package.plugin``."""
''')

PLUGIN = Template('''\
"""Registers $name with arena (found through the ``arena`` entry point in pyproject.toml)."""

from arena import hookimpl


@hookimpl
def register_bots(register):
    from $package.bot import Bot

    register(
        "$name",
        Bot,
        games=["modern-art", "silk-road"],
        description="$name: bids and delivers by simple rules (edit $package/bot.py)",
        # Options and their defaults; override them in a bot spec: $name:boldness=0.8
        options={"boldness": 0.5},
    )
''')

BOT = Template('''\
"""$name: one class playing Modern Art and Maritime Silk Road.

arena makes a fresh ``Bot`` for every game, calls ``start(info)`` once and then
``decide(request)`` for every real choice. ``request["legal"]`` says what is
allowed now; ``request["view"]`` is everything this seat may know (the keys of
each game's view: arena's docs/games/modern-art.md and docs/games/silk-road.md).
Every random choice comes from the start message's seed, so the same seed
plays the same game again: replays and paired comparisons rely on it.
"""

from __future__ import annotations

import random

#: Silk Road goods in card-id order: cards 0-10 are porcelain, 11-21 silk, ...
GOODS = ("porcelain", "silk", "tea", "spice", "glass", "ore")


class Bot:
    """Bids up to a share of what a painting may fetch; delivers its largest set of one good."""

    def __init__(self, boldness: float = 0.5) -> None:
        self.boldness = boldness
        self.rng = random.Random(0)

    def start(self, info: dict) -> None:
        self.rng = random.Random(info["seed"])

    def decide(self, request: dict) -> dict:
        choose = getattr(self, request["decision"])
        return choose(request["legal"], request)

    # -- Modern Art: one method per decision, named as the decision --

    def limit(self) -> int:
        """The most this bot pays for a painting: a share of a second-place value."""
        return round(self.boldness * 40)

    def play_card(self, legal: dict, request: dict) -> dict:
        return {"card": self.rng.choice(legal["cards"])}

    def add_double(self, legal: dict, request: dict) -> dict:
        return {"card": legal["cards"][0]}

    def bid(self, legal: dict, request: dict) -> dict:
        if legal["min"] <= min(self.limit(), legal["max"]):
            return {"bid": legal["min"]}
        return {"bid": None}

    def sealed_bid(self, legal: dict, request: dict) -> dict:
        return {"bid": min(self.limit() // 2, legal["max"])}

    def set_price(self, legal: dict, request: dict) -> dict:
        return {"price": max(legal["min"], min(self.limit(), legal["max"]))}

    def accept_price(self, legal: dict, request: dict) -> dict:
        return {"accept": legal["price"] <= self.limit() // 2}

    def flip_phantom(self, legal: dict, request: dict) -> dict:
        return {"flip": False}

    # -- Maritime Silk Road --

    def load_ship(self, legal: dict, request: dict) -> dict:
        return {"good": self.rng.choice(legal["goods"])}

    def phase1(self, legal: dict, request: dict) -> dict:
        return {"action": "pass"}

    def phase2(self, legal: dict, request: dict) -> dict:
        by_good: dict[str, list[int]] = {}
        for card in legal["play"]:
            by_good.setdefault(GOODS[card // 11], []).append(card)
        cards = max(by_good.values(), key=len, default=[])[:6]
        if len(cards) < 2:
            return {"action": "draw"}
        return {"action": "play", "cards": cards, "slots": self.rng.sample(range(6), len(cards))}

    def extra_draw(self, legal: dict, request: dict) -> dict:
        return {"count": legal["max"]}
''')

TEST = Template('''\
"""$name passes arena's conformance check: legal, in time, deterministic for a seed."""


def test_${package}_plays_every_game_without_faults(arena_check_bot):
    arena_check_bot("$name")
''')

README = Template('''\
# $name

A bot for arena playing Modern Art and Maritime Silk Road, scaffolded by
`arena new-bot $name`.

With arena installed (`arena --help` works), from this folder:

```sh
python -m pip install -e '.[test]'
arena bots
python -m pytest
arena check-bot $name
arena play modern-art -b $name -b random -b random --seed 1
arena play silk-road -b $name:boldness=0.8 -b random --seed 1 --trace
```

The install is editable (`-e`): edits to `$package/` count at once. `arena
bots` lists `$name`; `python -m pytest` runs the conformance check through
arena's pytest plugin (`[test]` brings pytest); `arena check-bot` reports
faults with the bot's stderr, CPU and wall time per decision and determinism,
per game; `--trace` prints every message to and from each seat on stderr.

Edit `$package/bot.py`: one method per decision. The messages a bot
receives are described in arena's `docs/protocol.md`, and every key of each
game's views in `docs/games/`.

`pip install -e '.[reference-bots]'` adds arena's reference bots (`random`,
`appraiser`, `trader`, `mcts`) to play against.

## Regression gate

Pushed to GitHub, every pull request runs `.github/workflows/arena.yml`: it
installs the bot with the arena `pyproject.toml` pins, runs the tests, and
compares the bot as the pull request leaves it with the bot at the base commit
(`arena compare`, paired games); the verdict is in the job summary and a
regression fails the check. Try it before pushing, from this folder, with the
bot in git and a change committed (the gate compares commits):

```text
ARENA_BASE_REF=HEAD~1 bash .github/arena-gate.sh
```

Arena's `docs/ci/README.md` explains every setting.
''')

GITIGNORE = Template('''\
__pycache__/
*.py[cod]
*.egg-info/
build/
dist/
.venv/
.pytest_cache/
results/
''')

#: The distribution's files: path (with placeholders) -> template.
FILES = {
    "pyproject.toml": PYPROJECT,
    ".gitignore": GITIGNORE,
    "README.md": README,
    "$package/__init__.py": PACKAGE_INIT,
    "$package/plugin.py": PLUGIN,
    "$package/bot.py": BOT,
    "tests/test_$package.py": TEST,
}
