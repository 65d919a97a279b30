"""Takes far too long to get ready: sleeps before reading its first message."""
import time

from protocol_bot import run

time.sleep(600)
run()
