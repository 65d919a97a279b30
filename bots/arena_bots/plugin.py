"""Registers the reference bots through the ``register_bots`` hook, like any third party."""

from arena import hookimpl


@hookimpl
def register_bots(register):
    from arena_bots.mcts import MctsBot
    from arena_bots.modern_art_heuristic import ModernArtHeuristic
    from arena_bots.random_bot import RandomBot
    from arena_bots.silk_road_heuristic import SilkRoadHeuristic

    register(
        "random",
        RandomBot,
        games=["modern-art", "silk-road"],
        description="a uniformly random legal action (bids spread over the legal range, with passing)",
    )
    register(
        "appraiser",
        ModernArtHeuristic,
        games=["modern-art"],
        description="Modern Art: values each painting from the round's counts and markers, bids and prices against it",
    )
    register(
        "trader",
        SilkRoadHeuristic,
        games=["silk-road"],
        description="Silk Road: delivers for the best own income over rivals', steers ships to its cards, "
                    "buys cards that pay back",
    )
    register(
        "mcts",
        MctsBot,
        games=["modern-art", "silk-road"],
        description="information-set Monte Carlo tree search over sampled deals, with value-guided rollouts",
        options={"iterations": 0, "exploration": 0.5, "time_fraction": 0.5},
    )
