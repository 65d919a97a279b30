"""Answers well-formed but illegal picks (above legal's max), and once a wrong shape."""
import json

from protocol_bot import run


def cheat(message, decisions):
    if decisions == 2:
        return json.dumps({"n": "three"})
    return json.dumps({"n": message["legal"]["max"] + 5})


run(on_decide=cheat)
