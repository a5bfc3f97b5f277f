"""The modules of ``zotero_server/`` import each other without circles (counting imports under
``TYPE_CHECKING`` and inside functions: a circle hidden there is still one), and stay small."""

from __future__ import annotations

from tests.helpers.imports import ROOT, circles, import_graph, module_name

#: Lines a module of the package may have; a bigger one holds more than one concept.
MAX_LINES = 500


def _imports() -> dict[str, set[str]]:
    """Each module of zotero_server/ and the package's modules it imports (anywhere in it)."""
    graph = import_graph("zotero_server")
    # ``from zotero_server import __version__`` needs the package, not its modules.
    return {
        name: {m for m in deps if m in graph} - {name, "zotero_server"}
        for name, deps in graph.items()
    }


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c", "a"]]


def test_no_importcircles() -> None:
    assert circles(_imports()) == []


def test_the_app_module_only_builds_the_app() -> None:
    """Routes, the lifespan and the job service never reach back into the app module; only the
    two entry points build it (the CLI, and the docs generator that reads its routes)."""
    importers = sorted(name for name, deps in _imports().items() if "zotero_server.app" in deps)
    assert importers == ["zotero_server.cli", "zotero_server.reference_docs"]


def test_modules_stay_small() -> None:
    sizes = {
        module_name(path): len(path.read_text(encoding="utf-8").splitlines())
        for path in (ROOT / "zotero_server").rglob("*.py")
    }
    assert {name: lines for name, lines in sizes.items() if lines > MAX_LINES} == {}
