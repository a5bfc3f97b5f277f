"""The test suite's own layout: a test module is named by the concept it tests, never by the
campaign that wrote it, and no module of ``tests/`` imports a test module (shared helpers live
in ``tests/helpers/``, shared fixtures there or in ``conftest.py``)."""

from __future__ import annotations

from collections.abc import Iterable

from tests.helpers.imports import ROOT, import_graph

#: Names of the campaigns that wrote tests; a case's origin goes in its docstring instead.
CAMPAIGNS = ("hardening", "polish", "qa_regressions", "remnants", "read_outside")


def campaign_named(modules: Iterable[str]) -> list[str]:
    """The test modules (dotted names) whose own name holds a campaign's."""
    return sorted(m for m in modules if any(c in m.rpartition(".")[2] for c in CAMPAIGNS))


def imports_of_test_modules(graph: dict[str, set[str]]) -> dict[str, list[str]]:
    """Each module of the graph that imports a test module other than itself, and those."""
    found = {
        module: sorted(
            dep
            for dep in deps
            if dep != module and dep.rpartition(".")[2].startswith("test_") and dep in graph
        )
        for module, deps in graph.items()
    }
    return {module: deps for module, deps in found.items() if deps}


def _tests_graph() -> dict[str, set[str]]:
    return import_graph("tests")


def test_the_checks_find_a_campaign_name_and_an_import_of_a_test_module() -> None:
    assert campaign_named(["tests.test_hardening_pdf", "tests.test_tables"]) == [
        "tests.test_hardening_pdf"
    ]
    assert campaign_named(["tests.helpers.pdfgen", "tests.test_polish"]) == ["tests.test_polish"]
    graph = {
        "tests.test_a": {"tests.test_b", "tests.helpers.server", "tests.test_a"},
        "tests.test_b": {"tests.helpers.server"},
        "tests.helpers.server": {"tests.test_b"},
    }
    assert imports_of_test_modules(graph) == {
        "tests.test_a": ["tests.test_b"],
        "tests.helpers.server": ["tests.test_b"],
    }


def test_no_test_module_is_named_after_a_campaign() -> None:
    modules = [m for m in _tests_graph() if m.rpartition(".")[2].startswith("test_")]
    assert len(modules) > 100  # the suite was found
    assert campaign_named(modules) == []


def test_no_module_of_the_tests_imports_a_test_module() -> None:
    graph = _tests_graph()
    assert "tests.helpers.pdfgen.sheet" in graph and (ROOT / "tests" / "conftest.py").exists()
    assert imports_of_test_modules(graph) == {}
