"""Tournaments on a Dask cluster: ``arena run FILE --scheduler ADDRESS``.

One module per job:

- ``executor``: the ``--scheduler`` address to a connected cluster (``local:N`` starts one) and its executor;
- ``local``: ``local:N``'s scheduler and workers, forked from the run by a keeper process (no nanny);
- ``handshake``: every worker must run the coordinator's arena, games and bots, at the same versions;
- ``blocks``: a task plays a block of whole deals, sized to pay for Dask's cost per task;
- ``worker_logs``: a worker's log lines travel back to the tournament's log file.

:mod:`arena.runs.pools.dask` plays the blocks through the cluster's executor for the run loop.

Dask (``distributed``) is the optional extra ``dask``, imported only once a cluster is opened.
"""
