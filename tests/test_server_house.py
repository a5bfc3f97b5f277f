"""The modules of ``zotero_server/`` import each other without circles (counting imports under
``TYPE_CHECKING`` and inside functions: a circle hidden there is still one), and stay small."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "zotero_server"
#: Lines a module of the package may have; a bigger one holds more than one concept.
MAX_LINES = 500


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Each module of zotero_server/ and the package's modules it imports (anywhere in it)."""
    graph: dict[str, set[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
        graph[_module(path)] = found
    # ``from zotero_server import __version__`` needs the package, not its modules.
    return {
        name: {m for m in deps if m in graph} - {name, "zotero_server"}
        for name, deps in graph.items()
    }


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for dep in sorted(graph.get(module, ())):
            if state.get(dep) == 1:
                circles.append([*path[path.index(dep) :], dep])
            elif dep not in state and dep in graph:
                visit(dep, [*path, dep])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return circles


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _circles(graph) == [["a", "b", "c", "a"]]


def test_no_import_circles() -> None:
    assert _circles(_imports()) == []


def test_the_app_module_only_builds_the_app() -> None:
    """Routes, the lifespan and the job service never reach back into the app module."""
    importers = sorted(name for name, deps in _imports().items() if "zotero_server.app" in deps)
    assert importers == ["zotero_server.cli"]


def test_modules_stay_small() -> None:
    sizes = {
        _module(path): len(path.read_text(encoding="utf-8").splitlines())
        for path in PACKAGE.rglob("*.py")
    }
    assert {name: lines for name, lines in sizes.items() if lines > MAX_LINES} == {}
