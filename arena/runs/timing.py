"""How many games to send at once, judged from how long the games played so far took.

A worker that gets one game per message spends more on messages than on
millisecond games; one that gets a long batch leaves the others idle at the
end of a run. :class:`BatchSizer` sizes batches (a local worker's chunk, a
cluster's block) to about ``target_seconds`` of play by the mean game time
measured so far: one game until a game has been measured, at most
``max_games``.
"""

from __future__ import annotations


class BatchSizer:
    """The games a batch should hold for about ``target_seconds`` of play (1 to ``max_games``)."""

    def __init__(self, target_seconds: float, max_games: int) -> None:
        self.target_seconds = target_seconds
        self.max_games = max_games
        self.games = 0
        self.seconds = 0.0

    def played(self, seconds: float, games: int = 1) -> None:
        """Learn that ``games`` games took ``seconds`` of play."""
        self.games += games
        self.seconds += seconds

    def games_wanted(self) -> int:
        if not self.games:
            return 1
        if self.seconds <= 0:
            return self.max_games
        return max(1, min(self.max_games, round(self.target_seconds * self.games / self.seconds)))
