"""Answers each decision with a line that is not JSON, then with a good action on a second line."""
from protocol_bot import run


def twice(message, decisions):
    return 'oops\n{"n": 1}'


run(on_decide=twice)
