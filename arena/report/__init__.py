"""Reports people look at: the static HTML site of a tournament and the replay page of a game.

``arena report RESULTS`` writes the site (:mod:`arena.report.site`, plots by
:mod:`arena.report.plots`); ``arena play ... --html FILE`` writes one game's
replay page (:mod:`arena.report.replay_page`).
"""

#: replay pages per table by default (``arena report --replays N``); here so the CLI reads it without the site's
#: imports (numpy and the leaderboard) at start-up
REPLAYS_PER_TABLE = 3
