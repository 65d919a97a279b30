"""Tournaments on a Dask cluster: ``arena run FILE --scheduler ADDRESS``.

One module per job:

- ``executor``: the ``--scheduler`` address to a connected cluster (``local:N`` starts one) and its executor;
- ``handshake``: every worker must run the coordinator's arena, games and bots, at the same versions;
- ``blocks``: a task plays a block of whole deals, sized to pay for Dask's cost per task;
- ``pool``: plays blocks through any ``concurrent.futures`` executor and hands back each game's outcome;
- ``worker_logs``: a worker's log lines travel back to the tournament's log file;
- ``runner``: puts them together for ``arena run``.

Dask (``distributed``) is the optional extra ``dask``, imported only once a cluster is opened.
"""
