"""An honest bot that uses what libraries read of the machine: ``psutil`` (imported with the module: it reads
``/proc/stat`` then), ``os.getloadavg()`` and ``os.cpu_count()``. It plays like ``random``.

``py:honest_libraries:Bot`` (a Python seat, forked from a template that imported this module), or run as a
program (``cmd:python honest_libraries.py``). At its start and each decision it writes on stderr what it read
(``hostile: {"machine": {...}}``, the line the hostile tests' ``reports`` reads).
"""

import json
import os
import sys

import psutil

from arena_bots.random_bot import RandomBot

#: read at import, as a library's module-level set-up would
CORES = psutil.cpu_count()


def machine() -> dict:
    """What this bot reads of the machine now (an exception here is the bot's crash: a fault in the record)."""
    return {"load": list(os.getloadavg()), "cpus": os.cpu_count(), "psutil_cpus": CORES,
            "memory": psutil.virtual_memory().total, "cpu_percent": psutil.cpu_percent(interval=None)}


def tell() -> None:
    sys.stderr.write("hostile: " + json.dumps({"machine": machine()}) + "\n")
    sys.stderr.flush()


class Bot:
    def __init__(self) -> None:
        self.bot = RandomBot()

    def start(self, info: dict) -> None:
        tell()
        self.bot.start(info)

    def decide(self, request: dict) -> dict:
        tell()
        return self.bot.decide(request)


if __name__ == "__main__":
    bot = Bot()
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            bot.start(message)
            print(json.dumps({"type": "ready"}), flush=True)
        elif message["type"] == "decide":
            print(json.dumps(bot.decide(message)), flush=True)
