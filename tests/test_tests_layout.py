"""The test suite's own layout: a test module is named by the concept it tests, never by the
campaign that wrote it, and no module of ``tests/`` imports a test module (shared helpers live
in ``tests/helpers/``, shared fixtures there or in ``conftest.py``)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

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
    assert campaign_named(
        ["tests.test_hardening_pdf", "tests.translation.read.tables.test_tables"]
    ) == ["tests.test_hardening_pdf"]
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


#: Test modules that still write their pages with raw ``insert_text``/``insert_textbox`` calls,
#: each with why. A new module builds its pages with ``tests/helpers/pdfgen/`` (one small paper:
#: ``pdfgen.textbox.small_paper``; words at exact points: ``pdfgen.sheet.words_at``/``lines_at``);
#: one that needs the raw call on purpose is listed here.
RAW_PAGE_BUILDERS = {
    # Raw on purpose: the file itself is the case.
    "test_worker_limits.py": "hostile PDFs: a content stream rewritten, a lone page number",
    "test_dual_rotation.py": "text written rotated (insert_text's rotate) on rotated pages",
    "test_ocr.py": "a scan's invisible text layer (render_mode=3) over its page image",
}

_RAW_CALL = re.compile(r"\.insert_text(?:box)?\(")
_OWN_PAPER = re.compile(r"^def (?:make_paper|small_paper)\(", re.MULTILINE)


def raw_page_builders(sources: dict[str, str]) -> list[str]:
    """The test modules (file names) that call ``insert_text``/``insert_textbox`` themselves or
    define a small-paper builder of their own."""
    return sorted(n for n, s in sources.items() if _RAW_CALL.search(s) or _OWN_PAPER.search(s))


def test_the_check_finds_a_raw_page_builder() -> None:
    sources = {
        "test_a.py": "page.insert_text((72, 72), 'x')\n",
        "test_b.py": "page.insert_textbox(rect, 'x')\n",
        "test_c.py": "def make_paper(path):\n    ...\n",
        "test_d.py": "data = small_paper(pages=2)\n",
    }
    assert raw_page_builders(sources) == ["test_a.py", "test_b.py", "test_c.py"]


def test_test_pages_are_built_by_pdfgen() -> None:
    """Origin: issue 34 criterion 5 (one page builder for constructed test pages)."""
    tests = ROOT / "tests"
    here = Path(__file__).name  # this module names the calls it looks for
    sources = {p.name: p.read_text() for p in tests.rglob("test_*.py") if p.name != here}
    assert len(sources) > 100  # the suite was found
    found = raw_page_builders(sources)
    assert sorted(set(found) - set(RAW_PAGE_BUILDERS)) == []
    assert sorted(set(RAW_PAGE_BUILDERS) - set(found)) == []  # a converted module leaves the list


#: Folders of ``tests/`` that hold no test modules of a source folder: the suite's own parts.
SUITE_PARTS = {"helpers", "fakes", "reader_clients", "__pycache__"}


def unmirrored(test_folders: Iterable[Path], root: Path) -> list[str]:
    """The test folders (relative to ``tests/``) with no source folder of the same path."""
    return sorted(str(f) for f in test_folders if not (root / f).is_dir())


def test_the_check_finds_a_test_folder_with_no_source_folder(tmp_path: Path) -> None:
    (tmp_path / "translation" / "read").mkdir(parents=True)
    folders = [Path("translation"), Path("translation/read"), Path("translation/reading")]
    assert unmirrored(folders, tmp_path) == ["translation/reading"]


def test_test_modules_mirror_the_source_folders() -> None:
    """Origin: issue 34 criterion 5: ``tests/translation/read/tables/`` tests
    ``translation/read/tables/``; only the suite's own tests sit at the top of ``tests/``."""
    tests = ROOT / "tests"
    folders = [
        p.parent.relative_to(tests)
        for p in tests.rglob("test_*.py")
        if not SUITE_PARTS & set(p.relative_to(tests).parts)
    ]
    assert len(folders) > 100  # the suite was found
    assert unmirrored({f for f in folders if f != Path(".")}, ROOT) == []
    top = sorted(p.name for p in tests.glob("test_*.py"))
    assert top == ["test_fake_vllm_protocol.py", "test_tests_layout.py"], top
