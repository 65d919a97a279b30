"""Answers every decision with something that is not one JSON object on one line."""
from protocol_bot import run

GARBAGE = ["hello", '{"n": ', "[1, 2", "\x00\x01"]


def garble(message, decisions):
    return GARBAGE[(decisions - 1) % len(GARBAGE)]


run(on_decide=garble)
