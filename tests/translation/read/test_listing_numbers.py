"""A listing that numbers its lines (an algorithm float): its numbers are kept as printed and
join no request, each numbered line is its own unit and lines of keywords alone are kept."""

from __future__ import annotations

import pymupdf

from tests.helpers.corpus2 import corpus2_pages
from tests.helpers.pdfgen.sheet import lines_at, words_at
from translation.read.document import open_document
from translation.read.extraction import extract_document
from translation.read.segmentation import Segmentation

PROSE = (
    "We describe a careful method for the evaluation of the models that we study in this",
    "paper, and we compare it with the previous approaches on several of the datasets that",
    "are common in the field, with results that support the main hypothesis of the work.",
)
#: (indent, text) of each numbered line.
LISTING = (
    (0, "while the queue is not empty do"),
    (12, "take the first node of the queue;"),
    (12, "end"),
    (12, "else"),
    (12, "begin"),
    (24, "mark the node as visited and go on;"),
    (0, "end"),
)


def read(data: bytes) -> Segmentation:
    return extract_document(open_document(data))


def _numbered_listing() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    y = lines_at(page, 72, 90, PROSE, size=10)
    for n, (indent, text) in enumerate(LISTING, start=1):
        baseline = y + 14 + 12 * n
        words_at(page, [(84 - 3.9 * len(str(n)), baseline, str(n), 7, "tiro")])
        words_at(page, [(96 + indent, baseline, text, 10, "tiro")])
    lines_at(page, 72, y + 14 + 12 * (len(LISTING) + 2), PROSE, size=10)
    return bytes(doc.tobytes())


def test_a_listings_line_numbers_are_kept_and_each_numbered_line_is_its_own_unit() -> None:
    found = read(_numbered_listing())
    texts = [p.text for p in found.paragraphs]
    numbers = [k.text for k in found.kept if k.reason == "line number"]
    assert numbers == [str(n) for n in range(1, len(LISTING) + 1)]
    assert "take the first node of the queue;" in texts
    assert "mark the node as visited and go on;" in texts
    assert not any(t in ("end", "else", "begin") or "end else" in t for t in texts)
    assert not any(t[:1].isdigit() for t in texts)


def test_an_algorithm2e_listing_keeps_its_numbers_out_of_its_lines() -> None:
    """algorithm2e's boxed example (p8): no "11 end 12 else 13 begin", one line a request."""
    found = read(corpus2_pages("132_tex_algorithm2e_doc_algorithms_p12of60.pdf", [7]))
    texts = [p.text for p in found.paragraphs]
    numbers = {k.text for k in found.kept if k.reason == "line number"}
    assert {str(n) for n in range(1, 45)} <= numbers
    assert "we do that, else nothing;" in texts
    assert "a while loop including a repeat–until loop;" in texts
    assert not any(t[:2].strip().isdigit() for t in texts)
    assert not any("end" in t.split() and "begin" in t.split() for t in texts)
