"""Reports on stderr what a bot can see of its surroundings: user id, home, environment names."""
import json
import os
import sys

from protocol_bot import run


def report(message):
    seen = {"uid": os.getuid(), "home": os.environ.get("HOME"), "cwd": os.getcwd(), "env": sorted(os.environ)}
    print("snoop: " + json.dumps(seen), file=sys.stderr, flush=True)


run(on_start=report)
