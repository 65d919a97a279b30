"""``--scheduler local:N`` as forked processes, and blocks handed over packed as a local worker's chunk is."""

from __future__ import annotations

import concurrent.futures
import os
import pickle
import signal
import subprocess
import sys
import time

import pytest

from arena.runs.pools.dask import ExecutorPool
from arena.runs.seeds import public_secret
from arena.runs.spec import FinishedGame, GameSpec
from arena.tournament.config import load_tournament
from arena.tournament.schedule import build_schedule
from tournament_files import stored_count, write_tournament

try:
    import distributed
except ImportError:  # the dask extra is not installed
    distributed = None
needs_dask = pytest.mark.skipif(distributed is None, reason="needs the dask extra: pip install -e '.[dask]'")


class PackedRecorder:
    """A sink that takes blocks packed (as the run loop's does) and keeps what it was handed."""

    def __init__(self) -> None:
        self.single: list[FinishedGame] = []
        self.packed: list[tuple[list[FinishedGame], list, str]] = []
        self.failures: list[str] = []

    def done(self, finished: FinishedGame) -> None:
        self.single.append(finished)

    def done_packed(self, finished: list[FinishedGame], rows: bytes, lines: str) -> None:
        self.packed.append((finished, pickle.loads(rows), lines))

    def failed(self, spec: GameSpec, reason: str) -> None:
        self.failures.append(reason)

    def idle(self) -> None:
        pass


def schedule(tmp_path, plugins, deals: int) -> list[GameSpec]:
    path = write_tournament(tmp_path, ['spec = "random"', 'spec = "r2=random"', 'spec = "r3=random"'],
                            "modern-art:3", deals=deals)
    tournament = load_tournament(path, plugins)
    secret = public_secret(tournament.seed)
    return build_schedule(tournament, plugins, secret).specs("none", plugins, secret,
                                                            {e.name: "v" for e in tournament.entrants})


def test_a_block_comes_back_as_its_store_rows_pickled_once_and_its_log_lines_in_one_piece(tmp_path, plugins):
    specs = schedule(tmp_path, plugins, deals=8)
    sink = PackedRecorder()
    with concurrent.futures.ThreadPoolExecutor(2) as executor:
        assert ExecutorPool(executor, 2).run(iter(specs), sink, len(specs)) is False
    assert sink.single == [] and sink.failures == []
    assert len(sink.packed) > 1  # one call per block, not per game
    games = [game for finished, _, _ in sink.packed for game in finished]
    assert sorted(game.spec.order for game in games) == [spec.order for spec in specs]
    for finished, rows, lines in sink.packed:
        # the rows are the store's, made on the worker: keyed by each spec's hash, in the block's order
        assert [row[0][:3] for row in rows] == [(game.spec.key, game.spec.id, "modern-art") for game in finished]
        assert all(game.packed is None for game in finished)  # the records travel in the rows only
        assert len(lines.splitlines()) == len(finished)
        assert all(f" {game.spec.id} " in line and " finished in " in line
                   for game, line in zip(finished, lines.splitlines()))


@needs_dask
def test_a_local_cluster_is_forked_from_the_run_with_its_scheduler_outside_it_and_ends_with_it(plugins, caplog):
    from arena.cluster.executor import open_cluster

    with open_cluster("local:2", plugins) as cluster:
        client = cluster.client
        scheduler = client.run_on_scheduler(os.getpid)
        workers = client.run(os.getpid)
        parents = set(client.run(os.getppid).values())
        assert scheduler != os.getpid()  # Dask's LocalCluster runs its scheduler in the run's own process
        assert len(workers) == 2 and len(parents) == 1
        keeper = parents.pop()
        assert _parent(keeper) == os.getpid() and _parent(scheduler) == keeper
        # forks of this process: the test's own modules are there without being imported
        assert all(client.run(lambda: "test_cluster_local" in sys.modules).values())
        # a worker that dies is replaced, by a fork of the same keeper
        killed = next(iter(workers.values()))
        os.kill(killed, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while len(now := client.run(os.getpid, on_error="ignore")) != 2 or killed in now.values():
            assert time.monotonic() < deadline, "the killed worker was not replaced"
            time.sleep(0.05)
        assert set(client.run(os.getppid).values()) == {keeper}
        deadline = time.monotonic() + 5  # the keeper tells, the run logs
        while "a worker of the local Dask cluster ended (killed by SIGKILL); starting another" not in caplog.messages:
            assert time.monotonic() < deadline, caplog.messages
            time.sleep(0.05)
        left = [keeper, scheduler, *client.run(os.getpid).values()]
    deadline = time.monotonic() + 15
    while any(_exists(pid) for pid in left):
        assert time.monotonic() < deadline, "the local cluster's processes outlived the run"
        time.sleep(0.05)


@needs_dask
def test_a_run_killed_outright_leaves_no_process_of_its_local_cluster(tmp_path):
    path = write_tournament(tmp_path, ['spec = "random"', 'spec = "r2=random"', 'spec = "r3=random"'],
                            "modern-art:3", deals=5000)
    run = subprocess.Popen([sys.executable, "-m", "arena", "run", path, "--sandbox", "none", "--scheduler", "local:2",
                            "--results", str(tmp_path / "results")], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(descendants := _descendants(run.pid)) < 4:  # keeper, scheduler, two workers
            assert run.poll() is None and time.monotonic() < deadline, "the local cluster did not start"
            time.sleep(0.05)
        run.kill()
        run.wait()
        deadline = time.monotonic() + 15
        while any(_exists(pid) for pid in descendants):
            assert time.monotonic() < deadline, "processes of the local cluster outlived the killed run"
            time.sleep(0.05)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()


@needs_dask
def test_a_sigterm_to_the_runs_process_group_stops_it_as_one_to_the_run_does(tmp_path):
    # as a supervisor (or Ctrl-C at a terminal) signals a whole process group: the cluster is the run's to stop
    path = write_tournament(tmp_path, ['spec = "random"', 'spec = "r2=random"', 'spec = "r3=random"'],
                            "modern-art:3", deals=5000)
    run = subprocess.Popen([sys.executable, "-m", "arena", "run", path, "--sandbox", "none", "--scheduler", "local:2",
                            "--results", str(tmp_path / "results")], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(descendants := _descendants(run.pid)) < 5:  # keeper, scheduler, two workers, the store writer
            assert run.poll() is None and time.monotonic() < deadline, "the run did not start playing"
            time.sleep(0.05)
        # five processes may be reached before the writer (a transient one a worker starts counts too): the run
        # plays, its handlers in place, once games are stored
        while stored_count(tmp_path / "results" / "cup") == 0:
            assert run.poll() is None and time.monotonic() < deadline, "the run stored no game"
            time.sleep(0.05)
        descendants = _descendants(run.pid)
        os.killpg(run.pid, signal.SIGTERM)
        _, errors = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    assert run.returncode == 128 + signal.SIGTERM, errors
    assert errors.splitlines()[-1].startswith("stopped: ") and errors.splitlines()[-1].endswith(
        "run the same command again to resume"), errors
    assert "Traceback" not in errors and "WARNING" not in errors and "Error" not in errors, errors
    deadline = time.monotonic() + 15
    while any(_exists(pid) for pid in descendants):
        assert time.monotonic() < deadline, "processes of the local cluster outlived the stopped run"
        time.sleep(0.05)


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


def _exists(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _descendants(root: int) -> list[int]:
    found, frontier = [], [root]
    while frontier:
        pid = frontier.pop()
        kids = []
        try:
            for thread in os.listdir(f"/proc/{pid}/task"):  # a child is listed under the thread that made it
                with open(f"/proc/{pid}/task/{thread}/children") as children:
                    kids += [int(kid) for kid in children.read().split()]
        except OSError:
            pass
        found += kids
        frontier += kids
    return found
