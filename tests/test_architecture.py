"""The import structure of ``arena/``: no cycles, and layers that only import downwards (docs/architecture.md).

Every ``import`` counts, at module level or inside a function (a function-level
import that dodges a cycle is still a cycle); only ``if TYPE_CHECKING:``
blocks are left out, since they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent / "arena"

#: the layers, lowest first: a module may import from its own layer and the ones below, never above
LAYERS = [
    ("foundation", ["arena", "arena.errors", "arena.hookspecs", "arena.safetext"]),
    ("games", ["arena.games"]),
    ("plugin registry", ["arena.plugins"]),
    ("engine", ["arena.match", "arena.replay", "arena.account", "arena.trace"]),
    ("bot specs and versions", ["arena.entrants", "arena.versions"]),
    ("sandbox", ["arena.sandbox", "arena.seating", "arena.preflight"]),
    ("runs core", ["arena.runs", "arena.cluster"]),
    ("formats and standings", ["arena.formats", "arena.standings"]),
    ("tournaments and comparisons", ["arena.tournament", "arena.compare"]),
    ("report", ["arena.report"]),
    ("command line and author kit", ["arena.cli", "arena.__main__", "arena.authoring", "arena.testing"]),
]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in ROOT.rglob("*.py")}


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports_of(name: str) -> set[str]:
    """The arena modules ``name`` imports, wherever the import statement is."""
    path = MODULES[name]
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""]) if node.level \
                else node.module or ""
            base = base.rstrip(".")
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in MODULES else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {module for module in found if module in MODULES and module != name}


GRAPH = {name: imports_of(name) for name in MODULES}


def layer_of(name: str) -> int:
    """The index of the layer holding ``name`` (the longest matching prefix wins)."""
    best, where = -1, None
    for index, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best:
                best, where = len(prefix), index
    assert where is not None, f"{name} is in no layer: add it to LAYERS and docs/architecture.md"
    return where


def test_there_is_no_import_cycle():
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def walk(name: str, path: list[str]) -> None:
        state[name] = 1
        for other in sorted(GRAPH[name]):
            if state.get(other) == 1:
                cycles.append(path[path.index(other):] + [other] if other in path else [name, other])
            elif other not in state:
                walk(other, path + [other])
        state[name] = 2

    for name in sorted(GRAPH):
        if name not in state:
            walk(name, [name])
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(cycle) for cycle in cycles)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_a_module_imports_only_its_own_layer_and_below(name):
    mine = layer_of(name)
    upward = sorted(other for other in GRAPH[name] if layer_of(other) > mine)
    assert upward == [], (f"{name} ({LAYERS[mine][0]}) imports from higher layers: "
                          + ", ".join(f"{other} ({LAYERS[layer_of(other)][0]})" for other in upward))


def test_the_architecture_page_names_every_layer():
    page = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for title, prefixes in LAYERS:
        assert title in page, f"docs/architecture.md does not name the layer {title!r}"
        for prefix in prefixes:
            assert f"`{prefix}`" in page, f"docs/architecture.md does not place `{prefix}`"
