"""Pages of ``corpus2/`` (the audit's second corpus) for tests that read a real page."""

from __future__ import annotations

import pymupdf
import pytest

from tests.conftest import CORPUS_DIR

CORPUS2 = CORPUS_DIR.parent / "corpus2"


def corpus2_pages(name: str, pages: list[int]) -> bytes:
    """The PDF bytes of ``pages`` (0-based) of the corpus2 paper ``name``; the test is
    skipped, with the path in the reason, where corpus2 is not on this machine."""
    path = CORPUS2 / name
    if not path.is_file():
        pytest.skip(f"corpus2 not found at {CORPUS2}")
    with pymupdf.open(path) as doc:
        doc.select(pages)
        return bytes(doc.tobytes(garbage=1))
