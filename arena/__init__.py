"""arena: a command-line tournament runner for game-playing bots.

Plugins import the hook marker from here: ``from arena import hookimpl``.
"""

from arena.hookspecs import hookimpl

__version__ = "0.1.0"
__all__ = ["hookimpl", "__version__"]
