"""Shared loop of the misbehaving test bots: a well-behaved external bot with hooks to misbehave.

``run(on_start=..., on_decide=...)`` reads JSON lines from stdin, answers
``start`` with ready and ``decide`` with the largest legal tally pick, unless
a hook returns the raw line to send instead (or misbehaves itself).
"""

import json
import sys


def run(on_start=None, on_decide=None):
    decisions = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "start":
            if on_start:
                on_start(message)
            reply = '{"type": "ready"}'
        elif message["type"] == "decide":
            decisions += 1
            reply = on_decide(message, decisions) if on_decide else None
            if reply is None:
                reply = json.dumps({"n": message["legal"]["max"]})
        else:
            continue
        sys.stdout.write(reply + "\n")
        sys.stdout.flush()
