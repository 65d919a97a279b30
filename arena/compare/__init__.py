"""``arena compare``: regression tests of one bot against another with paired duplicate games.

- ``design``: the paired schedule (for every deal and seat, the candidate's game and the
  baseline's twin game);
- ``stats``: the paired statistics, confidence intervals and the sequential test (SPRT);
- ``runner``: plays the pairs through the tournament machinery and stops on a verdict;
- ``report``: the terminal, JSON and Markdown summaries;
- ``diff``: what changed between two stored leaderboards (``arena leaderboard --diff``);
- ``commands``: the ``arena compare`` and ``arena diff`` commands.
"""
