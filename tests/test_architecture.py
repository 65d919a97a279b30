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


def imported_names(name: str) -> set[tuple[str, str]]:
    """``(module, name)`` of every ``from MODULE import NAME`` in ``name``'s module (``if TYPE_CHECKING:`` left out)."""
    found: set[tuple[str, str]] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.update((node.module, alias.name) for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(MODULES[name].read_text(encoding="utf-8")))
    return found


def within(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == package or name.startswith(package + ".") for package in packages)


#: the runners: each does the twelve steps of a run through arena.runs.run, and keeps only what is its own
RUNNERS = ("arena.tournament.runner", "arena.compare.runner")
#: the shared steps, each done once in arena.runs.run (open_run, Run.play): a runner calling one has forked them
SHARED_STEPS = {
    "arena.runs.folders": {"check_results_folder"},  # 1. check the folder
    "arena.runs.pools": {"open_pool"},  # 2. open the pool
    "arena.runs.loop": {"results_folder", "run_schedule"},  # 4. make the folder, 12. the schedule
    "arena.runs.store": {"create_or_open"},  # 5. open the store
    "arena.versions": {"entrant_versions", "game_versions"},  # 7. the versions
    "arena.runs.progress": {"Tally", "make_progress"},  # 10. the tally, 11. the progress
}


@pytest.mark.parametrize("runner", RUNNERS)
def test_each_runner_does_the_shared_steps_through_open_run(runner):
    names = imported_names(runner)
    assert ("arena.runs.run", "open_run") in names, f"{runner} does not open its run with arena.runs.run.open_run"
    forked = sorted(f"{module}.{name}" for module, name in names if name in SHARED_STEPS.get(module, ()))
    assert forked == [], f"{runner} does shared steps of a run itself (arena.runs.run does them): {forked}"


def test_the_runs_layer_imports_no_tournament_comparison_or_standings():
    above = ("arena.tournament", "arena.compare", "arena.standings")
    found = sorted(f"{name} -> {other}" for name in MODULES if within(name, ("arena.runs",))
                   for other in GRAPH[name] if within(other, above))
    assert found == [], "the runs layer is what every run uses, below what uses it: " + "; ".join(found)


def test_standings_import_no_runner():
    runners = ("arena.tournament", "arena.compare", "arena.runs.run", "arena.runs.loop")
    found = sorted(f"{name} -> {other}" for name in MODULES if within(name, ("arena.standings",))
                   for other in GRAPH[name] if within(other, runners))
    assert found == [], "standings read stored games and rate them; they run nothing: " + "; ".join(found)


def test_the_moved_modules_live_in_their_layers():
    """What every run uses is in the runs layer, the standings in theirs (issue 25): none left behind."""
    for name in ("arena.runs.progress", "arena.runs.folders", "arena.runs.run", "arena.standings.leaderboard",
                 "arena.standings.ratings", "arena.standings.live_ratings"):
        assert name in MODULES, f"{name} is missing"
    for name in ("progress", "folders", "leaderboard", "ratings", "live_ratings"):
        assert f"arena.tournament.{name}" not in MODULES, f"arena.tournament.{name} is back beside the tournament"


def test_the_architecture_page_names_every_layer():
    page = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    for title, prefixes in LAYERS:
        assert title in page, f"docs/architecture.md does not name the layer {title!r}"
        for prefix in prefixes:
            assert f"`{prefix}`" in page, f"docs/architecture.md does not place `{prefix}`"


def test_the_architecture_page_places_the_twelve_steps():
    page = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert "`open_run(...)`" in page and "`Run.play(specs, ...)`" in page
    steps = [line.split("|")[1].strip() for line in page.splitlines() if line.startswith("| ") and
             line.split("|")[1].strip().isdigit()]
    assert steps == [str(number) for number in range(1, 13)], "docs/architecture.md lists the twelve steps in order"


def test_the_architecture_page_names_every_module_of_the_sandbox():
    page = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    part = page.split("## The process sandbox, part by part", 1)[1].split("\n## ", 1)[0]
    for module in sorted((ROOT / "sandbox").glob("*.py")):
        if module.stem != "__init__":
            assert f"`{module.stem}`" in part, f"docs/architecture.md's sandbox part does not name {module.stem}"


#: the seat and its launchers (issue 23's shape): each class's state is what its ``__init__`` (or its base's) sets
SEAT_MODULES = ("arena.sandbox.process", "arena.sandbox.launcher", "arena.sandbox.launch_program",
                "arena.sandbox.launch_template")


def _set_on_self(function: ast.FunctionDef) -> set[str]:
    """The attributes ``function`` assigns on ``self``."""
    found: set[str] = set()
    for node in ast.walk(function):
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == "self":
                    found.add(part.attr)
    return found


def test_the_seat_and_its_launchers_set_every_attribute_in_init():
    classes = {node.name: node for name in SEAT_MODULES for node in ast.parse(MODULES[name].read_text(
        encoding="utf-8")).body if isinstance(node, ast.ClassDef)}

    def initialised(cls: ast.ClassDef) -> set[str]:
        found = set().union(*(_set_on_self(item) for item in cls.body
                              if isinstance(item, ast.FunctionDef) and item.name == "__init__"))
        for base in cls.bases:
            base_name = base.value if isinstance(base, ast.Subscript) else base
            if isinstance(base_name, ast.Name) and base_name.id in classes:
                found |= initialised(classes[base_name.id])
        return found

    late = sorted(f"{cls.name}.{attribute} (first set in {item.name})" for cls in classes.values()
                  for item in cls.body if isinstance(item, ast.FunctionDef) and item.name != "__init__"
                  for attribute in _set_on_self(item) - initialised(cls))
    assert "ProcessBot" in classes and "ProgramLauncher" in classes and "TemplateLauncher" in classes
    assert late == [], "attributes first set outside __init__: " + ", ".join(late)
