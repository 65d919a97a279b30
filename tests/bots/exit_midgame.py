"""Plays two decisions, then exits with status 3 in the middle of the game."""
import sys

from protocol_bot import run


def leave(message, decisions):
    if decisions == 3:
        print("leaving now", file=sys.stderr, flush=True)
        sys.exit(3)


run(on_decide=leave)
