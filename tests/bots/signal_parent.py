"""Tries to kill its parent and the runner (whose pid is argv[1]), reports what happened, then plays on."""
import os
import signal
import sys

from protocol_bot import run


def attack(message):
    outcomes = []
    for pid in (os.getppid(), int(sys.argv[1])):
        if pid <= 1:
            outcomes.append(f"{pid}: not visible")
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            outcomes.append(f"{pid}: killed")
        except OSError as error:
            outcomes.append(f"{pid}: {type(error).__name__}")
    print("signals: " + ", ".join(outcomes), file=sys.stderr, flush=True)


run(on_start=attack)
