"""Closes its standard output on its second decision, and stays alive."""
import os
import time

from protocol_bot import run


def close(message, decisions):
    if decisions == 2:
        os.close(1)
        time.sleep(600)


run(on_decide=close)
