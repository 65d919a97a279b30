"""``arena new-bot``: write a ready plugin distribution for a new bot.

The name must be free (no registered bot, no installed Python module of the
same package name) and usable in a bot spec; the folder must be new or empty,
so an author's work is never overwritten.
"""

from __future__ import annotations

import importlib.util
import keyword
import re
from pathlib import Path

from arena.authoring import gate
from arena.authoring.pin import Pin, running_arena_pin
from arena.authoring.templates import FILES
from arena.errors import ScaffoldError
from arena.plugins import Plugins

NAME_PATTERN = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


def package_name(name: str) -> str:
    """The Python package of bot ``name``: ``my-bot`` -> ``my_bot``."""
    return name.replace("-", "_")


def check_name(name: str, plugins: Plugins) -> None:
    """Refuse a name that is not a lowercase word (hyphens allowed) or is taken."""
    if not NAME_PATTERN.fullmatch(name):
        raise ScaffoldError(
            f"bot name {name!r}: expected lowercase letters and digits, words joined by '-' "
            f"(e.g. my-bot), starting with a letter"
        )
    if name in plugins.bots:
        raise ScaffoldError(
            f"bot name {name!r} is taken by plugin {plugins.distribution_of(plugins.bots[name].plugin)}; "
            f"choose another"
        )
    package = package_name(name)
    if keyword.iskeyword(package) or package == "tests":
        reason = "the distribution's test folder" if package == "tests" else "a Python keyword"
        raise ScaffoldError(f"bot name {name!r}: its package {package!r} is {reason} (the plugin could not import "
                            f"it); choose another, e.g. {name}-bot")
    if importlib.util.find_spec(package) is not None:
        raise ScaffoldError(f"bot name {name!r}: a Python module {package!r} is already installed; choose another")


def write_distribution(name: str, folder: Path, plugins: Plugins, pin: Pin | None = None) -> list[Path]:
    """Write the distribution of bot ``name`` into ``folder``; the files written, in order.

    ``pin`` is the arena it depends on (default: the running one, :func:`arena.authoring.pin.running_arena_pin`).
    """
    check_name(name, plugins)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ScaffoldError(f"folder {folder} exists and is not empty; give a new one with --dir")
    pin = pin or running_arena_pin()
    values = {"name": name, "package": package_name(name), "arena_requirement": pin.arena,
              "reference_bots": pin.reference_bots}
    written = []
    for path_template, template in FILES.items():
        path = folder / path_template.replace("$package", values["package"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.substitute(values), encoding="utf-8")
        written.append(path)
    for relative, (text, executable) in gate.FILES.items():  # the regression gate, as docs/ci/ has it
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if executable:
            path.chmod(0o755)
        written.append(path)
    return written
