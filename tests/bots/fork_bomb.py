"""On its first decision forks up to 300 children that sleep forever, then crashes when forking fails.

Usage: fork_bomb.py MARKER (every child keeps MARKER in its command line, so
the test can look for survivors). Writes the number of children it made on stderr.
"""
import os
import sys
import time

from protocol_bot import run


def bomb(message, decisions):
    made = 0
    try:
        for _ in range(300):
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
            made += 1
    finally:
        print(f"forked {made} children", file=sys.stderr, flush=True)
    return None


run(on_decide=bomb)
