"""A scan stored sideways and shown upright through ``/Rotate`` (``translation.read.ocr.turn``).

Its words are upright only as the viewer shows the page: OCR reads it that way and the layout is
carried into the unrotated page space the reader and renderer work in. Such a page once came out
as Tesseract's vertical lines of the unrotated page, read against the shown page's size: the
lines of two paragraphs interleaved, and every line called a figure's text, none translated.
Its translation, set turned back, must show on the page: it is written after the scan's words
are painted over, never under the paint.
"""

from __future__ import annotations

import re

import pymupdf
import pytest

from tests.conftest import CORPUS_DIR
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.ocr import needs_ocr, scan_of, turned_scan_of
from tests.helpers.pdfgen.sheet import lines_at
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.math.formulas import restore
from translation.read.ocr.turn import direction, point, rect
from translation.read.paragraph import Paragraph

pytestmark = needs_ocr("en")

CORPUS2_DIR = CORPUS_DIR.parent / "corpus2"

FIRST = [
    "Scanners store a page in whatever way",
    "it went through them, and a viewer",
    "turns it upright again for its reader.",
]
SECOND = [
    "The words of such a page run upright",
    "only on the screen, never in the file.",
]


def _letter() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    below = lines_at(page, 72, 120, FIRST, size=14, pitch=18)
    lines_at(page, 72, below + 24, SECOND, size=14, pitch=18)
    return bytes(doc.tobytes())


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


def _body(paragraphs: list[Paragraph]) -> list[list[str]]:
    return [_words(p.text) for p in paragraphs if _words(p.text)]


def test_a_quarter_turn_maps_boxes_points_and_directions() -> None:
    # The derotation of a 595 x 842 page shown through /Rotate 90 (PyMuPDF's).
    derotation = (0.0, -1.0, 1.0, 0.0, 0.0, 595.0)
    assert point(derotation, (100.0, 200.0)) == (200.0, 495.0)
    assert rect(derotation, (100.0, 200.0, 150.0, 210.0)) == (200.0, 445.0, 210.0, 495.0)
    # A line read left to right as shown runs up its unrotated page, as MuPDF says of one.
    assert direction(derotation, (1.0, 0.0)) == (0.0, -1.0)


def test_a_scan_shown_upright_through_rotate_is_read_as_shown() -> None:
    upright = extract_paragraphs(open_document(scan_of(_letter())))
    turned = extract_paragraphs(open_document(turned_scan_of(_letter())))
    expected = [_words(" ".join(FIRST)), _words(" ".join(SECOND))]
    assert _body(upright) == expected
    assert _body(turned) == expected
    assert {p.direction for p in turned} == {(0.0, -1.0)}
    # In the unrotated space: the first paragraph's lines stand left of the second's.
    first, second = turned
    assert first.bbox[2] < second.bbox[0]


def test_the_translation_of_a_turned_scan_shows_over_its_covers() -> None:
    data = turned_scan_of(_letter())
    paragraphs = extract_paragraphs(open_document(data))
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    mono = pymupdf.open(stream=render_mono(open_document(data), paragraphs, translations, "ko"))
    page = mono[0]
    assert page.rotation == 90
    # The page as shown: the Korean upright, in the letter's place, and inked.
    words = [w for w in page.get_text("words") if re.search("[\uac00-\ud7a3]", w[4])]
    assert len(words) >= 6
    pix = page.get_pixmap(dpi=72, colorspace=pymupdf.csGRAY)
    shown = page.rotation_matrix
    for word in words:
        box = pymupdf.Rect(word[:4]) * shown & pymupdf.Rect(0, 0, pix.width, pix.height)
        assert box.y0 < 300, word  # the letter's lines are in the page's top third, as shown
        dark = sum(
            pix.pixel(x, y)[0] < 128
            for x in range(int(box.x0), int(box.x1))
            for y in range(int(box.y0), int(box.y1))
        )
        assert dark > 0, f"{word[4]!r} is painted over"


@pytest.mark.skipif(not CORPUS2_DIR.is_dir(), reason=f"corpus2 not found at {CORPUS2_DIR}")
def test_a_letter_scanned_sideways_reads_its_paragraphs_in_order() -> None:
    """Origin: corpus2 150, a typed letter scanned, stored sideways, shown through /Rotate 90."""
    (path,) = CORPUS2_DIR.glob("150_*.pdf")
    paragraphs = extract_paragraphs(open_document(path.read_bytes()))
    text = " ".join(" ".join(_words(p.text)) for p in paragraphs)
    assert "dear pete" in text
    assert "permit me to introduce you to the facility of facsimile transmission" in text
    assert "in facsimile a photocell is caused to perform a raster scan over" in text
    assert "probably you have uses for this facility in your organisation" in text
    assert {p.direction for p in paragraphs} == {(0.0, -1.0)}
    # Typed: its word spaces, a character wide each, line up down the paragraph; read by
    # their ink they differ a little, and are still no table's gutters.
    letter = [p for p in paragraphs if re.search(r"signal|scan|facsimile", p.text)]
    assert len(letter) >= 4 and {p.kind for p in letter} == {"body"}
    assert any(
        "the subject copy the variations of print density on the document cause the photocell"
        in " ".join(_words(p.text))
        for p in paragraphs
    )
