"""The import graph of one of our packages, read from its source (nothing is imported), and the
circles in it: for the tests that keep the house's arrows pointing one way."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def module_name(path: Path) -> str:
    """``translation/read/rows.py`` -> ``translation.read.rows.row`` (a package's ``__init__`` is
    the package)."""
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(package: str) -> dict[str, set[str]]:
    """Each module of ``package`` and every module name it imports, anywhere in the file (under
    ``TYPE_CHECKING`` and inside functions too: a circle hidden there is still one). An
    ``from a import b`` counts as both ``a`` and ``a.b``; relative imports are not used here."""
    graph: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names)
        graph[module_name(path)] = found
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle found by a depth-first walk, each as the path that closes it."""
    state: dict[str, int] = {}
    found: list[list[str]] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for dep in sorted(graph.get(module, ())):
            if state.get(dep) == 1:
                found.append([*path[path.index(dep) :], dep])
            elif dep not in state and dep in graph:
                visit(dep, [*path, dep])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return found
