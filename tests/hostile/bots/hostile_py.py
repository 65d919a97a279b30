"""The Python hostile bot: ``py:hostile_py:Hostile`` with options ``attack`` and ``args`` (see attacks.py)."""

from arena_bots.random_bot import RandomBot

import attacks


class Hostile:
    def __init__(self, attack: str = "none", args: tuple = ()) -> None:
        self.name = attack
        self.args = [str(arg) for arg in args]
        self.bot = RandomBot()

    def start(self, info: dict) -> None:
        attacks.attack(self.name, "start", self.args)
        self.bot.start(info)

    def decide(self, request: dict) -> dict:
        attacks.attack(self.name, "decide", self.args)
        return self.bot.decide(request)
