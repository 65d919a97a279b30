"""Allocates memory without end on its second decision."""
from protocol_bot import run


def hoard(message, decisions):
    hoard = []
    while decisions >= 2:
        hoard.append(bytearray(8 << 20))


run(on_decide=hoard)
