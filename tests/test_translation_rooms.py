"""The rooms of ``translation/`` import each other only along the data flow: pipeline and worker
use read, model and render; render uses read's plain data; read and model never use render;
nothing in translation/ imports the server or the GPU manager; no import circles."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "translation"

#: Imports across rooms that are allowed although the rule says otherwise, with why.
EXCEPTIONS = {
    # The glossary protects terms in paragraphs the way formulas are protected.
    ("translation.model.glossary", "translation.read.paragraph"),
    ("translation.model.glossary", "translation.read.formulas"),
}
#: What render may take from read: plain data and the conventions a paragraph's text carries.
RENDER_FROM_READ = {
    "translation.read.layout",
    "translation.read.paragraph",
    "translation.read.formulas",
    "translation.read.style",
}


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Each module of translation/ and the modules it imports (any depth, at any place)."""
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
    outside = ("zotero_server", "vllm_manager")
    return {
        name: {m for m in deps if m in graph or m.startswith(outside)} - {name}
        for name, deps in graph.items()
    }


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ("read", "model", "render") else "top"


def test_rooms_import_along_the_data_flow() -> None:
    wrong = []
    for module, deps in _imports().items():
        for dep in deps:
            if dep.startswith(("zotero_server", "vllm_manager")):
                wrong.append((module, dep))
                continue
            if not dep.startswith("translation.") or (module, dep) in EXCEPTIONS:
                continue
            here, there = _room(module), _room(dep)
            if here == there or here == "top":
                continue
            if there == "top" or {here, there} == {"read", "model"}:
                wrong.append((module, dep))
            elif there == "render":  # read and model never use render
                wrong.append((module, dep))
            elif here == "render" and dep not in RENDER_FROM_READ:
                wrong.append((module, dep))
            elif here == "render" and there == "model":
                wrong.append((module, dep))
    assert sorted(wrong) == []


def test_no_import_circles() -> None:
    graph = {m: {d for d in deps if d.startswith("translation.")} for m, deps in _imports().items()}
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
    assert circles == []
