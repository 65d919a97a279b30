"""Sleeps far past any limit on its second decision (no CPU used: only the wall clock can stop it)."""
import time

from protocol_bot import run


def sleep(message, decisions):
    if decisions >= 2:
        time.sleep(600)


run(on_decide=sleep)
