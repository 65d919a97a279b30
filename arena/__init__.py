"""arena: a command-line tournament runner for game-playing bots.

Plugins import the hook marker from here: ``from arena import hookimpl``. It
is loaded when first asked for (pluggy with it), so that what only needs a
part of arena, a jailed bot's template above all, does not carry pluggy:
1.5 MiB more in every template, copied on write into every fresh bot.
"""

import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.hookspecs import hookimpl

# a library logs, the application decides where: no "last resort" lines on stderr
logging.getLogger("arena").addHandler(logging.NullHandler())

__version__ = "0.1.0"
__all__ = ["hookimpl", "__version__"]


def __getattr__(name: str) -> Any:
    """``arena.hookimpl``, imported on first use."""
    if name == "hookimpl":
        from arena.hookspecs import hookimpl

        return hookimpl
    raise AttributeError(f"module 'arena' has no attribute {name!r}")
