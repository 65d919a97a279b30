"""An external hostile bot: ``hostile.py ATTACK [ARGS...]`` plays like ``random`` and tries ATTACK (attacks.py)."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from arena_bots.random_bot import RandomBot  # noqa: E402

import attacks  # noqa: E402

name, args = sys.argv[1], attacks.decode(sys.argv[2:])
bot = RandomBot()
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        attacks.attack(name, "start", args)
        bot.start(message)
        # what it could read shows in the game record too: a start answer that is a malformed fault
        print(json.dumps({"type": "leaked", "paths": attacks.LEAKED} if attacks.LEAKED else {"type": "ready"}),
              flush=True)
    elif message["type"] == "decide":
        attacks.attack(name, "decide", args)
        print(json.dumps(bot.decide(message)), flush=True)
