"""Tries to open a TCP connection to the runner's machine (argv[1] is a port listening on 127.0.0.1)."""
import socket
import sys

from protocol_bot import run


def connect(message):
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2).close()
        outcome = "connected"
    except OSError as error:
        outcome = type(error).__name__
    print(f"network: {outcome}", file=sys.stderr, flush=True)


run(on_start=connect)
