"""An external bot that plays tally properly: always the largest legal pick."""
from protocol_bot import run

run()
