"""A py: bot for Modern Art that always takes the default-like first choice from ``legal``."""


class FirstChoice:
    def decide(self, request):
        legal = request["legal"]
        decision = request["decision"]
        if decision in ("play_card",):
            return {"card": legal["cards"][0]}
        if decision == "add_double":
            return {"card": None}
        if decision in ("bid",):
            return {"bid": None}
        if decision == "sealed_bid":
            return {"bid": 0}
        if decision == "set_price":
            return {"price": legal["min"]}
        if decision == "accept_price":
            return {"accept": False}
        return {"flip": False}
