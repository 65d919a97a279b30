"""The local pool with real worker processes: games go out in chunks, come back one by one, and a worker's
death fails only the game it was playing, wherever it falls in a chunk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.plugins import get_plugins
from arena.runs import play as runs_play
from arena.runs import seeds
from arena.runs.pools import local
from arena.runs.pools.local import LocalPool
from arena.runs.spec import FinishedGame, GameSpec
from arena.tournament.config import load_tournament
from arena.tournament.schedule import build_schedule

import tournament_files


class ListSink:
    """A sink that keeps what it is handed, in arrival order."""

    def __init__(self) -> None:
        self.done_orders: list[int] = []
        self.records: dict[int, dict] = {}
        self.failures: dict[str, str] = {}

    def done(self, finished: FinishedGame) -> None:
        self.done_orders.append(finished.spec.order)
        self.records[finished.spec.order] = finished.record

    def failed(self, spec: GameSpec, reason: str) -> None:
        self.failures[spec.id] = reason

    def idle(self) -> None:
        pass


def specs_of(tmp_path: Path, deals: int) -> list[GameSpec]:
    plugins = get_plugins()
    path = tournament_files.write_tournament(tmp_path, ['spec = "random"', 'spec = "r2=random"'], "silk-road:2",
                                             deals=deals)
    tournament = load_tournament(path, plugins)
    secret = seeds.public_secret(tournament.seed or 0)
    versions = {entrant.name: "v1" for entrant in tournament.entrants}
    return list(build_schedule(tournament, plugins, secret).specs("none", plugins, secret, versions))


def test_fast_games_travel_in_chunks_and_every_game_comes_back_once(tmp_path, monkeypatch):
    sent: list[int] = []
    real = local._pickled

    def counting(chunk, returned):
        message = real(chunk, returned)
        sent.append(len(chunk))
        return message

    monkeypatch.setattr(local, "_pickled", counting)
    specs = specs_of(tmp_path, deals=150)
    sink = ListSink()
    assert LocalPool(2).run(specs, sink, len(specs)) is False
    assert sorted(sink.done_orders) == [spec.order for spec in specs] and not sink.failures
    assert sum(sent) == len(specs)
    assert sent[0] == 1 and max(sent) > 4  # one game first, then chunks sized from the games' time
    assert max(sent) <= local.CHUNK_GAMES


def test_records_do_not_depend_on_chunks_or_workers(tmp_path, monkeypatch):
    specs = specs_of(tmp_path, deals=20)
    chunked, single = ListSink(), ListSink()
    LocalPool(2).run(specs, chunked, len(specs))
    monkeypatch.setattr(local, "CHUNK_GAMES", 1)
    LocalPool(1).run(specs, single, len(specs))
    assert chunked.records == single.records


@pytest.mark.parametrize("dying_deal", [3, 60])
def test_a_worker_dying_inside_a_chunk_fails_only_the_game_it_was_playing(tmp_path, monkeypatch, dying_deal):
    specs = specs_of(tmp_path, deals=80)
    dying_id = next(spec.id for spec in specs if spec.deal == dying_deal and spec.rotation == 1)
    real = runs_play.play_record

    def dying(spec):
        if spec.id == dying_id:
            os._exit(3)
        return real(spec)

    monkeypatch.setattr(runs_play, "play_record", dying)  # the forked workers inherit it
    sink = ListSink()
    LocalPool(2).run(specs, sink, len(specs))
    assert sink.failures == {dying_id: "its worker process died (exit code 3)"}
    assert sorted(sink.done_orders) == sorted(spec.order for spec in specs if spec.id != dying_id)
