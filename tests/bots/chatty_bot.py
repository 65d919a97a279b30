"""A Python bot (for ``py:chatty_bot:ChattyBot``) that prints on stdout and reads stdin while it plays."""
import sys


class ChattyBot:
    def start(self, info):
        print("hello from start")

    def decide(self, request):
        print("thinking about", request["decision"], "with", request["view"]["totals"])
        sys.stdout.write("a raw write\n")
        assert sys.stdin.read() == "", "a hosted bot's stdin is empty"
        return {"n": request["legal"]["max"]}


class FailingBot:
    def decide(self, request):
        raise ValueError("no idea what to do")


class SetBot:
    def decide(self, request):
        return {"n": {1, 2}}
