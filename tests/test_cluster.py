"""``arena run --scheduler``: the same games on a Dask cluster, a lost worker, mismatched workers, the extra."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from importlib.metadata import version
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.cluster.blocks import Block, BlockCutter, BlockResult, play_block
from arena.cluster.handshake import installation
from arena.errors import ClusterError
from arena.plugins import get_plugins
from arena.runs.pools.dask import ExecutorPool
from arena.runs.seeds import public_secret
from arena.runs.spec import Outcome
from arena.tournament.config import load_tournament
from arena.tournament.runner import run_tournament
from arena.tournament.schedule import build_schedule
from arena_bots.random_bot import RandomBot
from tournament_files import stored_records, write_tournament

pytestmark = pytest.mark.slow  # starts Dask clusters: ~15 s

try:
    import distributed
except ImportError:  # the dask extra is not installed: only the tests that need no cluster run
    distributed = None
needs_dask = pytest.mark.skipif(distributed is None, reason="needs the dask extra: pip install -e '.[dask]'")


class Quitter(RandomBot):
    """A random bot whose process exits on its third decision when it sits in seat 0: only a sandbox contains that."""

    def start(self, info: dict) -> None:
        super().start(info)
        self.quitting = info["seat"] == 0
        self.decisions = 0

    def decide(self, request: dict) -> dict:
        self.decisions += 1
        if self.quitting and self.decisions == 3:
            os._exit(3)
        return super().decide(request)


class WorkerKiller(RandomBot):
    """A random bot that SIGKILLs the process it plays in when it starts its second game there, once ever.

    Run in-process (``--sandbox none``), that process is a Dask worker, lost in
    the middle of a block whose first game is finished. ``marker`` is created
    (atomically) by the one that does it; afterwards it is a plain random bot.
    """

    games = 0

    def __init__(self, marker: str) -> None:
        super().__init__()
        self.marker = marker

    def start(self, info: dict) -> None:
        super().start(info)
        WorkerKiller.games += 1
        if WorkerKiller.games == 2:
            try:
                os.close(os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            except FileExistsError:
                return
            os.kill(os.getpid(), signal.SIGKILL)


class SchedulerKiller(RandomBot):
    """A random bot that SIGKILLs the process ``pid`` (a Dask scheduler) when it starts its second game."""

    games = 0

    def __init__(self, pid: int) -> None:
        super().__init__()
        self.pid = pid

    def start(self, info: dict) -> None:
        super().start(info)
        SchedulerKiller.games += 1
        if SchedulerKiller.games == 2:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def run(*args: str) -> object:
    return CliRunner().invoke(cli, ["run", *args], catch_exceptions=False)


@pytest.fixture
def cluster():
    """A Dask cluster of two worker processes, its scheduler reached over TCP like a remote one."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as local, distributed.Client(local) as client:
        yield client


def pretend_older_bots() -> None:
    """On a worker: its reference bots now report an older release, as if arena-bots 0.0.1 were installed there."""
    get_plugins().infos["reference-bots"].version = "0.0.1"


@needs_dask
def test_a_comparison_on_a_local_cluster_gives_the_records_and_verdict_of_local_workers(tmp_path):
    args = ["compare", "silk-road", "--candidate", "trader", "--baseline", "random", "--seed", "4", "--deals", "6",
            "--sandbox", "none", "--json"]
    outcomes, records = [], []
    for name, where in (("cluster", ["--scheduler", "local:2"]), ("local", ["-j", "2"])):
        result = CliRunner().invoke(cli, [*args, *where, "--results", name], catch_exceptions=False)
        outcome = json.loads(result.stdout)
        records.append(stored_records(tmp_path / name / outcome["comparison"]))
        outcomes.append({key: value for key, value in outcome.items() if key not in ("results", "played_now")})
    assert records[0] == records[1] and len(records[0]) == 6 * 2 * 2
    assert outcomes[0] == outcomes[1]


@needs_dask
def test_a_local_cluster_stores_the_records_and_ratings_of_local_workers(tmp_path):
    bots = ['spec = "random"', 'spec = "appraiser"', 'spec = "trader"', 'spec = "quitter=py:test_cluster:Quitter"']
    path = write_tournament(tmp_path, bots, "modern-art:3,silk-road:3", deals=3)
    on_cluster = run(path, "--scheduler", "local:2", "--results", "cluster")
    assert on_cluster.exit_code == 0, on_cluster.output
    local = run(path, "-j", "2", "--results", "local")
    assert local.exit_code == 0, local.output
    cluster_folder, local_folder = tmp_path / "cluster" / "cup", tmp_path / "local" / "cup"
    records = stored_records(cluster_folder)
    assert len(records) == 2 * 3 * 3  # one table of three per game (appraiser and trader each play one)
    assert records == stored_records(local_folder)
    # the quitter's process exited in each game it began in seat 0: a crash fault there, the worker unharmed
    crashed = {record["id"] for record in records if [fault["kind"] for fault in record["faults"]] == ["crash"]}
    assert crashed == {record["id"] for record in records if record["players"][0] == "quitter"}
    assert len(crashed) == 6
    for name in ("leaderboard.json", "leaderboard.md", "leaderboard.csv"):
        assert (cluster_folder / name).read_text() == (local_folder / name).read_text()
    log = (cluster_folder / "arena.log").read_text()
    assert re.search(r" tcp://127\.0\.0\.1:\d+ INFO cup/silk-road/random\+trader\+quitter/d3/r3 "
                     r"arena\.runs: finished in ", log)


@needs_dask
def test_a_worker_lost_mid_block_still_leaves_every_game_stored_once(tmp_path):
    marker = tmp_path / "killed"
    bots = ['spec = "random"', f'spec = "killer=py:test_cluster:WorkerKiller"\noptions = {{ marker = "{marker}" }}',
            'spec = "r2=py:arena_bots.random_bot:RandomBot"']
    path = write_tournament(tmp_path, bots, "modern-art:3", deals=4)
    result = run(path, "--scheduler", "local:2", "--sandbox", "none", "--results", "cluster")
    assert result.exit_code == 0, result.output
    assert marker.exists(), "the killer bot did not kill its worker"
    records = stored_records(tmp_path / "cluster" / "cup")
    ids = [record["id"] for record in records]
    assert len(ids) == len(set(ids)) == 4 * 3
    reference = run(path, "-j", "1", "--sandbox", "none", "--results", "local")
    assert reference.exit_code == 0, reference.output
    assert records == stored_records(tmp_path / "local" / "cup")
    assert ((tmp_path / "cluster" / "cup" / "leaderboard.json").read_text()
            == (tmp_path / "local" / "cup" / "leaderboard.json").read_text())


@needs_dask
def test_a_worker_with_other_plugin_versions_is_refused_before_any_game(tmp_path, cluster):
    worker = sorted(cluster.scheduler_info()["workers"])[0]
    cluster.run(pretend_older_bots, workers=[worker])
    path = write_tournament(tmp_path, ['spec = "random"', 'spec = "appraiser"'], "modern-art:3")
    result = run(path, "--scheduler", cluster.scheduler.address)
    assert result.exit_code == 2
    message = result.output.strip()
    assert message.startswith(f"Error: worker {worker} does not match this machine: bot appraiser from "
                              f"arena-bots 0.0.1 on the worker, arena-bots {version('arena-bots')} here; ")
    assert message.endswith("; install the same arena and plugin versions on every worker")
    assert "\n" not in message and "other workers" not in message
    assert not (tmp_path / "results").exists()


@needs_dask
def test_a_worker_that_joins_after_the_handshake_is_refused_by_its_first_block(tmp_path, cluster, plugins):
    # the cluster's own executor, handed to the runner without the handshake: as if its workers joined later
    cluster.run(pretend_older_bots)
    path = write_tournament(tmp_path, ['spec = "random"', 'spec = "appraiser"'], "modern-art:3")
    tournament = load_tournament(path, plugins)
    with pytest.raises(ClusterError, match=r"^worker tcp://127\.0\.0\.1:\d+ does not match this machine: "
                                           r"bot appraiser from arena-bots 0\.0\.1 on the worker"):
        run_tournament(tournament, plugins, sandbox="none", pool=ExecutorPool(cluster.get_executor(), 2),
                       progress_stream=open(os.devnull, "w"))
    assert stored_records(tmp_path / "results" / "cup") == []


@needs_dask
def test_losing_the_scheduler_stops_the_run_with_one_line_and_a_rerun_resumes(tmp_path):
    address_file = tmp_path / "scheduler.json"
    dask = [sys.executable, "-m", "dask"]
    scheduler = subprocess.Popen([*dask, "scheduler", "--port", "0", "--no-dashboard", "--scheduler-file",
                                  str(address_file)], stderr=subprocess.DEVNULL)
    workers = subprocess.Popen([*dask, "worker", "--scheduler-file", str(address_file), "--nworkers", "2",
                                "--nthreads", "1", "--no-dashboard"], stderr=subprocess.DEVNULL,
                               env={**os.environ, "PYTHONPATH": str(Path(__file__).parent)})
    try:
        deadline = time.monotonic() + 60
        while not address_file.exists() or not address_file.read_text():
            assert scheduler.poll() is None and workers.poll() is None, "the scheduler or the workers did not start"
            assert time.monotonic() < deadline, "the scheduler wrote no address within 60 s"
            time.sleep(0.1)
        address = json.loads(address_file.read_text())["address"]
        killer = f'spec = "killer=py:test_cluster:SchedulerKiller"\noptions = {{ pid = {scheduler.pid} }}'
        bots = ['spec = "random"', killer, 'spec = "appraiser"']
        path = write_tournament(tmp_path, bots, "modern-art:3", deals=6)
        lost = run(path, "--scheduler", address, "--sandbox", "none", "--results", "cluster")
        assert lost.exit_code == 2
        assert lost.output.strip().splitlines()[-1] == (
            f"Error: lost the Dask scheduler at {address}; the games finished so far are stored: "
            f"run the same command again to resume")
        assert len(stored_records(tmp_path / "cluster" / "cup")) < 6 * 3
    finally:
        workers.terminate()
        scheduler.kill()
        workers.wait()
        scheduler.wait()
    resumed = run(path, "-j", "2", "--sandbox", "none", "--results", "cluster")
    assert resumed.exit_code == 0, resumed.output
    assert run(path, "-j", "2", "--sandbox", "none", "--results", "local").exit_code == 0
    assert stored_records(tmp_path / "cluster" / "cup") == stored_records(tmp_path / "local" / "cup")


def test_blocks_are_whole_deals_in_schedule_order_and_grow_to_the_target_time(tmp_path, plugins):
    path = write_tournament(tmp_path, ['spec = "random"', 'spec = "appraiser"', 'spec = "trader"'],
                            "modern-art:3,silk-road:2", deals=30)
    tournament = load_tournament(path, plugins)
    secret = public_secret(tournament.seed)
    tasks = build_schedule(tournament, plugins, secret).specs("none", plugins, secret,
                                                             {e.name: "v" for e in tournament.entrants})
    cutter = BlockCutter(iter(tasks))
    first = cutter.next_block()
    assert [task.id for task in first.tasks] == ["cup/modern-art/random+appraiser+random/d1/r1",
                                             "cup/modern-art/random+appraiser+random/d1/r2",
                                             "cup/modern-art/random+appraiser+random/d1/r3"]
    cutter.measured(BlockResult("w", 0.03, [Outcome(task.order, {}) for task in first.tasks]))  # 10 ms a game
    blocks = [first]
    while (block := cutter.next_block()) is not None:
        blocks.append(block)
    assert [task for block in blocks for task in block.tasks] == tasks
    assert len(blocks[1].tasks) == 51  # 50 games wanted (0.5 s), rounded up to whole deals of 3
    for block in blocks:
        deals = {(task.game, task.table, task.deal) for task in block.tasks}
        assert len(block.tasks) == sum(1 for task in tasks if (task.game, task.table, task.deal) in deals)


def test_the_last_blocks_shrink_so_that_the_workers_finish_together(tmp_path, plugins):
    path = write_tournament(tmp_path, ['spec = "random"', 'spec = "r2=random"'], "silk-road:2", deals=200)
    tournament = load_tournament(path, plugins)
    secret = public_secret(tournament.seed)
    tasks = build_schedule(tournament, plugins, secret).specs("none", plugins, secret,
                                                             {e.name: "v" for e in tournament.entrants})
    cutter = BlockCutter(iter(tasks), len(tasks), in_flight=4)
    first = cutter.next_block()
    cutter.measured(BlockResult("w", 0.0001, [Outcome(task.order, {}) for task in first.tasks]))  # fast games
    sizes = [len(first.tasks)]
    while (block := cutter.next_block()) is not None:
        sizes.append(len(block.tasks))
    assert sum(sizes) == len(tasks) == 400
    assert sizes[1] == 100  # the games left shared among the 4 blocks in flight, not the 1024 the time asks
    assert sizes[-4:] == [2, 2, 2, 2]  # one deal of two rotations each: no worker is left with a long block
    assert all(a >= b for a, b in zip(sizes[1:], sizes[2:]))  # after the first block, sizes only shrink


def test_a_block_refuses_to_play_on_a_worker_unlike_the_coordinator():
    coordinator = {**installation(), "arena": "9.9"}
    with pytest.raises(ClusterError, match=rf"does not match this machine: arena {re.escape(installation()['arena'])}"
                                           r" on the worker, 9\.9 here; install the same"):
        play_block(Block(()), coordinator)


@needs_dask
@pytest.mark.parametrize("address, message", [
    ("local:0", "Error: --scheduler local:0: expected local:N with N from 1 to 256 (worker processes on this "
                "machine), or a scheduler's address like tcp://host:8786"),
    ("local:two", "Error: --scheduler local:two: expected local:N with N from 1 to 256 (worker processes on this "
                  "machine), or a scheduler's address like tcp://host:8786"),
    ("udp://host:8786", "Error: --scheduler udp://host:8786: cannot reach a Dask scheduler there (unknown address "
                        "scheme 'udp' (known schemes: "),
])
def test_a_bad_scheduler_address_is_one_line(tmp_path, address, message):
    path = write_tournament(tmp_path, ['spec = "random"', 'spec = "appraiser"'], "modern-art:3")
    result = run(path, "--scheduler", address)
    assert result.exit_code == 2
    assert result.output.startswith(message) and result.output.count("\n") == 1


def test_without_dask_the_scheduler_option_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    path = write_tournament(tmp_path, ['spec = "random"', 'spec = "appraiser"'], "modern-art:3")
    result = run(path, "--scheduler", "local:2")
    assert result.exit_code == 2
    assert result.output.strip() == ("Error: --scheduler needs Dask, which is not installed: "
                                     "pip install 'knizia-arena[dask]' (from a checkout: pip install -e '.[dask]')")
