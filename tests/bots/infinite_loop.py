"""Spins forever on its second decision."""
from protocol_bot import run


def spin(message, decisions):
    while decisions >= 2:
        pass


run(on_decide=spin)
