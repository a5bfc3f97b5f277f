"""Scanned tables (issue 23 item 6): the rules of a scanned table are taken out of the image
Tesseract reads, so it reads the cells' numbers and words apart instead of reading the rules as
letters and losing the numbers beside them; the table comes out as a table."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_translate
from tests.helpers.ocr import needs_ocr, scan_of
from tests.helpers.pdfgen.sheet import lines_at
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.math.formulas import restore
from translation.read.ocr.rules import erase_rules, rule_pixels

SCAN = "10_scanned_imageonly_naacl2018_s2_literature_graph.pdf"


def _image(width: int, height: int) -> bytearray:
    return bytearray(b"\xff" * (width * height))


def _ink(image: bytearray, width: int, box: tuple[int, int, int, int], level: int = 0) -> None:
    x0, y0, x1, y1 = box
    for y in range(y0, y1):
        image[y * width + x0 : y * width + x1] = bytes([level]) * (x1 - x0)


def test_rules_are_long_thin_runs_and_glyphs_and_fills_are_not() -> None:
    width, height = 200, 120
    image = _image(width, height)
    _ink(image, width, (10, 10, 190, 12))  # a horizontal rule, 2 px thick
    _ink(image, width, (100, 15, 103, 110))  # a vertical rule, 3 px thick
    _ink(image, width, (20, 30, 22, 45))  # a glyph's stem, 15 px: too short
    _ink(image, width, (120, 40, 190, 100))  # a filled area of a figure: too thick
    # A rule skewed by the scan: it steps down a pixel every 60 px.
    for step in range(3):
        _ink(image, width, (10 + 60 * step, 112 + step, 70 + 60 * step, 114 + step), level=40)
    horizontal, vertical = rule_pixels(bytes(image), width, height, 40, 6)
    rows = {y for y, _, _ in horizontal}
    assert {10, 11} <= rows and not rows & set(range(40, 100))
    assert {112, 113, 114, 115} <= rows
    assert {x for x, _, _ in vertical} == {100, 101, 102}
    clean = erase_rules(bytes(image), width, horizontal, vertical)
    assert clean[11 * width + 50] == 0xFF and clean[60 * width + 101] == 0xFF
    assert clean[35 * width + 21] == 0  # the glyph stays
    assert clean[70 * width + 150] == 0  # the fill stays


@pytest.mark.slow
@needs_ocr("en")
@pytest.mark.corpus
def test_a_scanned_ruled_table_keeps_its_numbers_and_sends_its_labels_as_cells(
    corpus_dir: Path, test_output_dir: Path
) -> None:
    """Corpus 10 page 6, Table 4: "Baseline | 84.2 | 54.2", "Neural | 84.6 | 85.8", ruled.
    Tesseract read the rules as "FA" and lost 84.2, 54.2 and 84.6; the row labels and a
    number went out as one paragraph, and its cover hid the whole table."""
    out = pymupdf.open()
    with pymupdf.open(corpus_dir / SCAN) as src:
        out.insert_pdf(src, from_page=5, to_page=5)
    data = bytes(out.tobytes())
    doc = open_document(data)
    paragraphs = extract_paragraphs(doc)
    table = pymupdf.Rect(340, 60, 480, 122)
    cells = [p.text for p in paragraphs if pymupdf.Rect(p.bbox).intersects(table)]
    # One request a cell: the labels (and the header's words), never a number.
    assert "Baseline" in cells and "Neural" in cells
    assert all(len(cell.split()) == 1 for cell in cells), cells
    assert not any(c.isdigit() for cell in cells for c in cell), cells
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    mono = pymupdf.open(stream=render_mono(doc, paragraphs, translations, "ko"))[0]
    mono.get_pixmap(dpi=150, clip=table).save(test_output_dir / "ocr-table-4.png")
    # The numbers' cells look as in the scan: nothing painted or set over them.
    numbers = pymupdf.Rect(405, 88, 462, 118)
    original = pymupdf.open(stream=data)[0].get_pixmap(dpi=100, clip=numbers).samples
    shown = mono.get_pixmap(dpi=100, clip=numbers).samples
    differ = sum(abs(a - b) > 64 for a, b in zip(original, shown, strict=True))
    assert differ < 0.01 * len(original)


#: A typewritten letter's paragraph: one character per step, two spaces after a stop, so its
#: word spaces line up from line to line as a table's gutters would.
TYPED = [
    "In facsimile a photocell is caused to perform a raster scan over",
    "the subject copy.  The variations of print density on the page",
    "cause the photocell to generate an analogous video signal.  This",
    "signal is used to modulate a carrier, which is sent to a remote",
    "place over a radio or cable link.  At the remote terminal the",
    "signal is turned into print again, line by line, as it arrives.",
]


@needs_ocr("en")
def test_a_typewritten_paragraph_read_by_ocr_is_running_text_not_cells() -> None:
    """Read by OCR, a word's box is its ink: a typewriter's spaces, a character wide, come out
    a little wider or narrower with the letters beside them, and line up down the paragraph.
    They are its word spaces (alike within a fifth of the size, ``INK_EVEN_SPACES``), never a
    table's gutters. Origin: corpus2 150, a 1972 typed letter, whose two paragraphs came out
    as 15 cells of a table, each translated apart."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    lines_at(page, 72, 120, TYPED, size=10, font="cour", pitch=12)
    paragraphs = extract_paragraphs(open_document(scan_of(bytes(doc.tobytes()), dpi=200)))
    words = " ".join(w for line in TYPED for w in line.split())
    assert [p.kind for p in paragraphs] == ["body"]
    assert " ".join(paragraphs[0].text.split()) == words
