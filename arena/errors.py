"""Every domain error arena raises, in one place.

Library code raises these; the CLI turns :class:`ArenaError` subclasses into a
one-line message and exit status 2 (or 1 for failed checks). Messages say
what was expected and what came.
"""


class ArenaError(Exception):
    """Base of every error arena reports to the user without a traceback."""

    exit_code = 2


class PluginError(ArenaError):
    """A plugin registered something invalid or a name another plugin already took."""


class UnknownGame(ArenaError):
    """A game name that no plugin registered."""


class UnknownBot(ArenaError):
    """A bot name that no plugin registered, or a bot spec that cannot be loaded."""


class BadBotSpec(ArenaError):
    """A bot spec that is not NAME, NAME=cmd:COMMAND or NAME=py:MODULE:CLASS."""


class OptionError(ArenaError):
    """A game or bot option that does not exist, has the wrong type or does not apply."""


class PlayerCountError(ArenaError):
    """A number of players the game does not take, or a bot that does not play the game."""


class SetupError(ArenaError):
    """A setup that protocol.md section 5 refuses (unknown or repeated ids, wrong hands, ...)."""


class RecordError(ArenaError):
    """A game record that cannot be read or replayed."""


class TournamentFileError(ArenaError):
    """A tournament file that is malformed or names something invalid."""


class StoreError(ArenaError):
    """A results store that does not match the tournament or cannot be used."""


class OutputPathError(ArenaError):
    """A file or folder a command was told to write into that is not there or cannot be written."""


class ActionError(ArenaError):
    """An action a game refused; the runner turns it into a fault."""

    fault_kind = "illegal"


class MalformedAction(ActionError):
    """An action of the wrong shape: a missing or unknown key, a wrong type, an unknown word."""

    fault_kind = "malformed"


class IllegalAction(ActionError):
    """A well-formed action the rules do not allow now (outside ``legal``)."""

    fault_kind = "illegal"


class BotFault(Exception):
    """A bot misbehaved while being asked (raised by bot adapters, recorded as a fault)."""

    kind = "crash"
    #: whether the seat is stopped for the rest of the game
    stops_seat = True


class BotCrashed(BotFault):
    """The bot raised, exited or closed its pipe."""

    kind = "crash"


class BotTimeout(BotFault):
    """The bot did not answer within its time."""

    kind = "timeout"
    #: the clock the time was measured on (``cpu`` or ``wall``), when the adapter knows it
    clock: str | None = None


class BotMalformed(BotFault):
    """The bot answered something that is not one JSON object on one line."""

    kind = "malformed"
    stops_seat = False


class SandboxError(ArenaError):
    """A protection the tournament requires that the sandbox cannot give on this machine."""


class ScaffoldError(ArenaError):
    """A bot name or folder that ``arena new-bot`` cannot use (taken, invalid, not empty)."""


class CompareError(ArenaError):
    """Settings ``arena compare`` cannot work with (SPRT bounds, error rates, field, sizes)."""


class ReportError(ArenaError):
    """A report or replay page that cannot be made: its extra (matplotlib) is missing, or its file cannot be written."""


class ServeError(ArenaError):
    """The live site beside a run (``--serve``) could not start: its port is taken, its address is not this host's."""


class WorkersError(ArenaError):
    """``-j`` asks for more worker processes than this machine can usefully run."""


class ClusterError(ArenaError):
    """A Dask cluster that cannot be used: its extra missing, its scheduler unreachable, or workers unlike this one."""


class BotCheckFailed(ArenaError):
    """An entered bot that cannot be started or does not answer ``start`` with ``ready`` before play."""
