"""arena: a command-line tournament runner for game-playing bots.

Plugins import the hook marker from here: ``from arena import hookimpl``.
"""

import logging

from arena.hookspecs import hookimpl

# a library logs, the application decides where: no "last resort" lines on stderr
logging.getLogger("arena").addHandler(logging.NullHandler())

__version__ = "0.1.0"
__all__ = ["hookimpl", "__version__"]
