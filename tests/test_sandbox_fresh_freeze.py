"""A fresh seat costs nothing per decision to freeze once its template is held (issue 25).

A fresh game's bot comes with its template's cgroup cell. The cell needs
stopping with its bot only while the template has a request to answer (it
forks the next game's bot between games, once the last one is reaped); once it answered it is held,
frozen until the next request, so the seat is then remembered as awake
after its answers no more than a reused one (:meth:`Freezer.stops`): asking
another bot does nothing for it. What protects still does: a template with a
request is frozen while another bot is asked, and a fresh bot seen computing
between its turns is charged and frozen between them.
"""

from __future__ import annotations

import time

import pytest

from arena.entrants import parse_spec
from arena.match import Limits
from arena.plugins import get_plugins
from arena.sandbox import open_process_bot
from arena.sandbox.freezer import Freezer, awake_here

START = {"type": "start", "game": "modern-art", "seat": 0, "players": ["a", "b"], "options": {}, "time": {},
         "setup_public": {}, "seed": 1}
DECIDE = {"type": "decide", "decision": "bid", "legal": {"min": 1, "max": 100}, "view": {}, "events": [],
          "time_left_ms": 10000}
BOT = '''
import threading, time

class Bot:
    def decide(self, message):
        if message.get("burn"):  # computes between its turns: a thread burns this much CPU after the answer
            threading.Thread(target=self.burn, args=(message["burn"],), daemon=True).start()
        return {"bid": 1}

    def burn(self, seconds):
        end = time.thread_time() + seconds
        while time.thread_time() < end:
            pass
'''


def _open(tmp_path):
    """A fresh seat of the quick bot (written first, once: :func:`_fresh_seats`): its template starts now and is
    asked for its first game's bot."""
    plugins = get_plugins()
    return open_process_bot(parse_spec("quick=py:quick_bot:Bot", plugins, base_dir=str(tmp_path)),
                            Limits(start_ms=5000), plugins)


def _fresh_seats(tmp_path, count):
    # written once before any template starts: written again per seat, it was emptied while an earlier seat's
    # template imported it, which then found no Bot (under load)
    (tmp_path / "quick_bot.py").write_text(BOT)
    seats = [_open(tmp_path) for _ in range(count)]
    for seat in seats:
        seat.start(START, 5000)
    if any(seat.cell is None for seat in seats):
        for seat in seats:
            seat.close()
        pytest.skip("no template cell here (no cgroup v2 freezer): every bot is stopped with SIGSTOP")
    return seats


def _held(seats):
    """Play decisions in turn until every seat's template answered its request (the next game's bot) and the
    runner read that answer (during its seat's decision): it is held, frozen until its next request."""
    deadline = time.monotonic() + 10
    while any(seat.cell.wanted for seat in seats) and time.monotonic() < deadline:
        for seat in seats:
            seat.decide(DECIDE, 5000)
        time.sleep(0.02)
    assert not any(seat.cell.wanted for seat in seats), "a template never answered its request"
    assert all(seat.cell.frozen for seat in seats)
    seats[0].decide(DECIDE, 5000)  # the last seat asked was remembered awake while its template ran: stopped now


def test_a_fresh_seat_whose_template_is_held_is_not_stopped_per_decision(tmp_path, monkeypatch):
    seats = _fresh_seats(tmp_path, 3)
    try:
        _held(seats)
        pauses = []
        pause = Freezer.pause
        monkeypatch.setattr(Freezer, "pause", lambda self, *args: (pauses.append(self), pause(self, *args))[1])
        for turn in range(30):
            assert seats[turn % 3].decide(DECIDE, 5000)[0] == {"bid": 1}
            assert awake_here() == set(), "a seat with nothing to stop was remembered as awake"
        assert pauses == [], f"{len(pauses)} pauses in 30 decisions of seats with nothing to stop"
        assert all(seat.cell.frozen and not seat.frozen for seat in seats)
    finally:
        for seat in seats:
            seat.close()


def test_a_template_with_a_request_is_frozen_while_another_bot_is_asked(tmp_path):
    seats = _fresh_seats(tmp_path, 2)
    try:
        _held(seats)
        first, second = seats
        seen = 0
        for _ in range(30):  # until its template is seen still forking once its seat's game ended
            first.finish_game()  # the next game's bot is asked once this one is reaped: its template runs for it
            assert first in awake_here() or not first.cell.wanted  # remembered while its template has a request
            if first.cell.wanted:
                seen += 1
                second.decide(DECIDE, 5000)
                assert first.cell.frozen, "a template with a request ran on while another bot was asked"
                assert first not in awake_here()
            first.start(START, 5000)  # that bot is collected: its template is held until the next game's end
            assert first.cell.frozen and not first.cell.wanted
            if seen >= 3:
                break
        assert seen, "its template always answered before its seat's start did: nothing was checked"
    finally:
        for seat in seats:
            seat.close()


def test_a_fresh_bot_computing_between_its_turns_is_charged_and_frozen_once_its_template_is_held(tmp_path):
    seats = _fresh_seats(tmp_path, 2)
    try:
        _held(seats)
        thief, honest = seats
        before = thief.cpu_ns()
        thief.decide(dict(DECIDE, burn=0.3), 5000)
        answered = thief.cpu_ns()  # its thread burns from before its answer: on a loaded machine some ms before
        honest.decide(DECIDE, 5000)
        deadline = time.monotonic() + 10
        while thief.cpu_ns() - before < 0.29e9 and time.monotonic() < deadline:
            time.sleep(0.02)
        between = (thief.cpu_ns() - answered) / 1e6  # at least what it computed between its turns
        _, charged = thief.decide(DECIDE, 5000)
        assert between >= 100, between  # most of the 300 ms burnt after the answer: something to charge
        assert charged >= between, (charged, between)  # its CPU since its last answer, charged to this decision
        assert thief in awake_here()  # seen computing between its turns: stopped before the next bot's turn
        thief.decide(dict(DECIDE, burn=0.3), 5000)
        honest.decide(DECIDE, 5000)
        assert thief.frozen and not honest.frozen
        frozen_at = thief.cpu_ns()
        time.sleep(0.3)
        assert thief.cpu_ns() - frozen_at < 30e6, "a frozen bot computed while the other bot was asked"
    finally:
        for seat in seats:
            seat.close()
