"""The in-process pool: specs played one after another in the calling process (library use, tests, debugging)."""

from __future__ import annotations

from typing import Iterable, Sequence

from arena.runs.play import close_pools, play_spec
from arena.runs.spec import GameSpec, Sink


class InlinePool:
    """Plays each spec here, in order; :meth:`stop` takes effect between games."""

    jobs = 1

    def __init__(self) -> None:
        self.stop_requested = False

    def stop(self) -> None:
        self.stop_requested = True

    def run(self, specs: Iterable[GameSpec], sink: Sink, expected: int | None = None,
            table: Sequence[GameSpec] = ()) -> bool:
        """Play every spec, one after another; True when stopped early (``expected`` and ``table`` change nothing
        here)."""
        try:  # a stop asked before this began (Ctrl-C as the run's handler came in) holds
            for spec in specs:
                if self.stop_requested:
                    return True
                outcome = play_spec(spec, "main")
                if outcome.record is not None:
                    sink.done(outcome.finished(spec))
                else:
                    sink.failed(spec, outcome.failure)
            return self.stop_requested
        finally:
            self.stop_requested = False  # the next run starts afresh
            close_pools()
