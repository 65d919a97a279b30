"""Tournaments: ``arena run``, ``arena leaderboard``, ``arena export``.

One module per job:

- ``config``: reads and checks a tournament file (TOML);
- ``schedule``: the tables, deals and seat rotations, and every game's id, setup and seeds;
- ``tasks``: a game task (a plain picklable description) and ``play_task``, which plays it;
- ``workers``: plays tasks in worker processes and hands each result back as it finishes;
- ``runner``: a whole run: schedule, store, workers, log and progress put together;
- ``progress``: the progress bar on a terminal, plain periodic lines elsewhere;
- ``logs``: one log file per tournament, fed by every worker (multiprocessing-logging);
- ``store``: the results database (SQLite), resumable;
- ``ratings``: TrueSkill ratings, in schedule order;
- ``leaderboard``: standings and head-to-head tables, in every output format;
- ``commands``: the CLI commands (a plugin, registered through ``register_commands``).
"""
