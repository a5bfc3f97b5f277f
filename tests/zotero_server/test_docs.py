"""The documentation names every setting and every route exactly once, and only real ones.

``docs/settings.md`` and ``docs/api.md`` hold blocks generated from the settings object and the
apps' OpenAPI schemas (``zotero_server.reference_docs``); these tests hold the pages equal to
what the code generates, so a new setting or route fails here until ``make docs`` is run.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from common.settings import ENV_PREFIX, Settings
from tests.conftest import REPO_ROOT
from zotero_server import reference_docs

DOCS = REPO_ROOT / "docs"
# The pages this project's guide consists of; a page another branch adds is checked once here.
GUIDE = [
    REPO_ROOT / "README.md",
    *(
        DOCS / n
        for n in ("reading.md", "gpu.md", "api.md", "settings.md", "deploy.md", "benchmarks.md")
    ),
]


def _rows(text: str, key: str) -> int:
    """How many table rows of ``text`` open with the cell `` `key` ``."""
    return sum(1 for line in text.splitlines() if line.startswith(f"| `{key}` |"))


@pytest.mark.parametrize(("page", "name", "generated"), list(reference_docs.blocks()))
def test_the_generated_blocks_are_what_the_code_generates(
    page: Path, name: str, generated: str
) -> None:
    current = reference_docs.current_block(page.read_text(encoding="utf-8"), name)
    assert current is not None, f"docs/{page.name} lost its generated:{name} marker lines"
    assert current == generated, f"docs/{page.name} is stale: run `make docs`"


def test_every_setting_has_exactly_one_row_in_the_settings_page() -> None:
    text = reference_docs.SETTINGS_PAGE.read_text(encoding="utf-8")
    names = [f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields]
    counts = {name: _rows(text, name) for name in names}
    assert {n: c for n, c in counts.items() if c != 1} == {}
    documented = re.findall(r"^\| `(ZT_[A-Z0-9_]+)` \|", text, flags=re.M)
    assert sorted(set(documented) - set(names)) == []  # no row for a setting that is gone


def test_every_route_has_exactly_one_row_in_its_servers_table() -> None:
    text = reference_docs.API_PAGE.read_text(encoding="utf-8")
    for title, app in reference_docs.apps():
        assert f"### {title}" in text
        section = text.split(f"### {title}", 1)[1].split("\n### ", 1)[0]
        endpoints = reference_docs.operations(app)
        assert endpoints, title
        for endpoint in endpoints:
            assert endpoint.description, f"{endpoint.key}: give its endpoint a docstring"
            assert _rows(section, endpoint.key) == 1, f"{endpoint.key} under {title!r}"
        listed = re.findall(r"^\| `([A-Z]+ /[^`]*)` \|", section, flags=re.M)
        assert sorted(set(listed) - {e.key for e in endpoints}) == []  # no route that is gone


def test_the_guide_names_only_settings_that_exist() -> None:
    known = {f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields}
    known.add(f"{ENV_PREFIX}CONFIG")
    unknown = set()
    for page in GUIDE:
        for name, star in re.findall(r"\b(ZT_[A-Z0-9_]*[A-Z0-9])(_\*)?", page.read_text()):
            if star and any(k.startswith(name + "_") for k in known):
                continue  # `ZT_PDF_MAX_*`: a family of settings
            if name not in known:
                unknown.add(f"{page.name}: {name}")
    assert sorted(unknown) == []


def test_the_guides_links_point_at_files_that_exist() -> None:
    # docs/zotero-reader-plugins.md is written on another branch; linked from here already.
    pending = {DOCS / "zotero-reader-plugins.md"}
    broken = []
    for page in GUIDE:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target:
                continue
            path = (page.parent / target).resolve()
            if not path.exists() and path not in pending:
                broken.append(f"{page.name}: {target}")
    assert broken == []


def test_regenerating_a_stale_block_restores_it(tmp_path: Path) -> None:
    page = tmp_path / "settings.md"
    begin, end = reference_docs.begin_marker("settings"), reference_docs.end_marker("settings")
    page.write_text(f"# Settings\n\n{begin}\n| `ZT_GONE` | `1` | old |\n{end}\n\nprose\n")
    text = reference_docs.replace_block(page.read_text(), "settings", "NEW")
    assert text == f"# Settings\n\n{begin}\nNEW\n{end}\n\nprose\n"
    with pytest.raises(ValueError, match="generated:api"):
        reference_docs.replace_block("no markers here", "api", "NEW")
