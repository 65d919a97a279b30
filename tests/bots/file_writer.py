"""Tries to write a file where it must not (argv[1]) and one in its own home; reports both on stderr."""
import os
import sys

from protocol_bot import run


def try_write(path):
    try:
        with open(path, "w") as handle:
            handle.write("written by a bot\n")
        return "ok"
    except OSError as error:
        return type(error).__name__


def write(message):
    outside = try_write(sys.argv[1])
    home = try_write(os.path.join(os.environ["HOME"], "notes.txt"))
    print(f"outside: {outside}; home: {home}; home is {os.environ['HOME']}", file=sys.stderr, flush=True)


run(on_start=write)
