"""Fixtures every test module may use. Area-specific fixtures live beside their tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

import translation  # noqa: F401  (before PyMuPDF: see translation/__init__.py)
from common.settings import Settings, load_settings

# Fixture modules shared by several test files.
pytest_plugins = ["tests.helpers.vllm"]

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIR = REPO_ROOT.parent / "shared" / "corpus"
TEST_OUTPUT = REPO_ROOT / "test-output"


@pytest.fixture
def corpus_dir() -> Path:
    """The shared corpus of real papers; tests that need it skip where it is missing."""
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"corpus not found at {CORPUS_DIR}")
    return CORPUS_DIR


#: ``corpus_cut(name, pages)``: the path of a corpus paper cut to ``pages`` (0-based, in order).
CorpusCut = Callable[[str, Sequence[int]], Path]


@pytest.fixture(scope="session")
def corpus_cut(tmp_path_factory: pytest.TempPathFactory) -> CorpusCut:
    """Corpus papers cut to the pages a test is about, each cut written once per session.

    A test whose subject is a setting or a route, not a whole paper's layout, reads only the
    pages its asserts depend on (the page with the table, the pages naming a term...).
    """
    import pymupdf  # here, not above: after ``translation`` (see translation/__init__.py)

    if not CORPUS_DIR.is_dir():
        pytest.skip(f"corpus not found at {CORPUS_DIR}")
    folder = tmp_path_factory.mktemp("corpus-cuts")
    made: dict[tuple[str, tuple[int, ...]], Path] = {}

    def cut(name: str, pages: Sequence[int]) -> Path:
        key = (name, tuple(pages))
        if key not in made:
            target = folder / f"{Path(name).stem}-p{'-'.join(map(str, key[1]))}.pdf"
            with pymupdf.open(CORPUS_DIR / name) as doc:
                doc.select(list(key[1]))
                doc.save(target, garbage=1)  # drops what only the other pages used
            made[key] = target
        return made[key]

    return cut


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No test reads the developer's ZT_* variables or writes into their data dir."""
    import os

    for name in list(os.environ):
        if name.startswith("ZT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    # Nor their default config file (~/.config/zotero-translate/config.toml).
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    yield


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings with a private data dir; tests override fields with model_copy(update=...)."""
    return load_settings(data_dir=tmp_path / "data")


@pytest.fixture
def test_output_dir() -> Path:
    """A folder kept after the run (screenshots, sample outputs) under test-output/."""
    TEST_OUTPUT.mkdir(exist_ok=True)
    return TEST_OUTPUT


@pytest.hookimpl(wrapper=True)  # around xdist's hook, which reads the groups into node ids
def pytest_collection_modifyitems(items: list[pytest.Item]) -> Iterator[None]:
    """Groups for pytest-xdist's ``--dist loadgroup`` (`make test`), each run on one worker.

    Browser tests share one: one browser at a time beside the other workers' tests keeps their
    waits within bounds. The tests of a module that share a module-scoped fixture (a scan read
    by OCR, a JupyterLab, rendered papers) share one too, so the fixture is built once, not
    once per worker. Everything else is handed out a test at a time, the ``slow`` ones first:
    a long test handed out last keeps one worker busy while the other has nothing left to do.
    """
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # a stable sort
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.xdist_group("browser"))
        elif _shares_module_fixture(item):
            item.add_marker(pytest.mark.xdist_group(f"module:{item.nodeid.split('::')[0]}"))
    yield
    _carry_group_suffixes(items)


def _carry_group_suffixes(items: list[pytest.Item]) -> None:
    """Carry the ``@group`` xdist wrote into the node id pytest reads.

    pytest 9.2 keeps a structured node id (``_id``) while xdist 3.8 still writes the old string
    field (``_nodeid``), so ``--dist loadgroup`` silently stopped grouping: pytest-xdist#1386,
    whose fix (#1388) is not released. A no-op once xdist writes the id itself, or without it.
    """
    for item in items:
        legacy = item.__dict__.get("_nodeid")
        structured = getattr(item, "_id", None)
        if isinstance(legacy, str) and structured is not None and str(structured) != legacy:
            item._id = type(structured).parse(legacy)


def _shares_module_fixture(item: pytest.Item) -> bool:
    """Whether ``item`` uses a fixture built once per module (or class)."""
    info = getattr(item, "_fixtureinfo", None)  # pytest.Function's; other items have none
    if info is None:
        return False
    return any(
        definition.scope in ("module", "class", "package")
        for definitions in info.name2fixturedefs.values()
        for definition in definitions
    )
