"""Formulas drawn as pictures of their glyphs (issue 35, coverage and segmentation): an old
Distiller's output paints each glyph of a formula as a small one-bit image mask, and the text
layer has a hole where the formula stands.

- Read before: a sentence with an inline formula went out with a hole ("each disk can service
  users"), or cut in two where the hole was wide (two requests, or two table cells); the words
  between a display's pieces were requests of their own; the pictures stayed on the page under
  the translation.
- Now: the pictures on a text line are a formula inside it (a placeholder, copied back as drawn,
  erased from their old place); pictures on no line are a display left as printed.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pymupdf
import pytest

from tests.helpers.pdfgen.sheet import TIMES, Sheet
from tests.helpers.pdfgen.typeset import render_page
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs, read_layout
from translation.read.pages.inline_images import FONT
from translation.read.paragraph import Paragraph

_PLACEHOLDER = re.compile(r"\{v\d+\}")
#: The inline formula's pictures: (x, top, width, height), a letter, a lowered subscript, a
#: thin minus and a digit, set in the gap of the second line.
_GAP_X = 72 + float(TIMES.text_length("modulo the size of the array, each disk can service", 11))
_INLINE = (
    (_GAP_X + 3.0, 103.0, 8.0, 7.5),
    (_GAP_X + 11.0, 106.5, 4.0, 5.0),
    (_GAP_X + 17.5, 105.5, 6.5, 0.9),
    (_GAP_X + 26.0, 103.0, 4.5, 7.5),
)
#: A display of pictures centred between two paragraphs, on no text line.
_DISPLAY = tuple((250.0 + 12.0 * k, 150.0, 9.0, 9.0) for k in range(5))


def _picture(doc: pymupdf.Document, page: pymupdf.Page, box: tuple[float, ...]) -> None:
    """An inline image mask (``BI /IM true``) of one black pixel stretched over ``box``."""
    x, top, width, height = box
    stream = doc.get_new_xref()
    doc.update_object(stream, "<<>>")
    doc.update_stream(
        stream,
        f"q {width:g} 0 0 {height:g} {x:g} {842 - top - height:g} cm "
        "BI /IM true /W 1 /H 1 /BPC 1 ID ".encode()
        + b"\x00\nEI Q",
    )
    kind, contents = doc.xref_get_key(page.xref, "Contents")
    listed = contents[1:-1] if kind == "array" else contents
    doc.xref_set_key(page.xref, "Contents", f"[{listed} {stream} 0 R]")


def _distiller_page() -> bytes:
    """A paragraph whose second line holds a formula drawn as pictures, a display of pictures
    under it, and a paragraph after the display."""
    sheet = Sheet()
    sheet.lines(
        72,
        98,
        [
            "Although interleaving does not change the maximum throughput of the array, it",
            "modulo the size of the array, each disk can service",
        ],
    )
    sheet.put(_GAP_X + 36.0, 110, "users at once.", 11)
    sheet.lines(
        72,
        124,
        [
            "The total delay of the striped system in seconds is then given by the following",
            "expression, which holds for every segmentation level of the system:",
        ],
    )
    sheet.lines(
        72,
        184,
        [
            "where the number of free slots is the capacity of the disks less their users, and",
            "the delay grows with the number of disks in the array as shown in the figure.",
        ],
    )
    sheet.write()
    for box in (*_INLINE, *_DISPLAY):
        _picture(sheet.doc, sheet.page, box)
    data: bytes = sheet.doc.tobytes()
    return data


@functools.cache
def _read() -> tuple[list[Paragraph], pymupdf.Page]:
    return render_page(_distiller_page(), 0)


def _masks(page: pymupdf.Page) -> list[pymupdf.Rect]:
    return [pymupdf.Rect(r) for kind, r in page.get_bboxlog() if kind == "fill-imgmask"]


def test_a_formula_drawn_as_pictures_is_a_placeholder_inside_its_sentence() -> None:
    paragraphs, _ = _read()
    (para,) = [p for p in paragraphs if "can service" in p.text]
    assert re.search(r"can service \{v\d+\} ?users at once", para.text), para.text
    assert len(para.placeholders) == 1, para.placeholders
    assert "interleaving" in para.text  # one request: the sentence is not cut at the formula


def test_a_display_of_pictures_is_a_line_of_its_own_and_never_sent() -> None:
    page = pymupdf.open(stream=_distiller_page())[0]
    layout = read_layout(page)
    display = [
        line
        for block in layout.blocks
        for line in block.lines
        if all(s.font == FONT for s in line.spans) and line.bbox[1] > 140
    ]
    assert len(display) == 1, display  # the five pictures side by side: one line
    x0, _, x1, _ = display[0].bbox
    assert abs(x0 - _DISPLAY[0][0]) < 0.5 and abs(x1 - (_DISPLAY[-1][0] + 9.0)) < 0.5
    paragraphs, _ = _read()
    for p in paragraphs:  # no request is made of the display's pictures
        assert _PLACEHOLDER.sub("", p.text).strip(" .,"), p.text
    assert any("following expression" in p.text for p in paragraphs)
    assert any("number of free slots" in p.text for p in paragraphs)


def test_the_pictures_move_with_the_translation_and_the_display_stays() -> None:
    _, page = _read()
    after = _masks(page)
    for x, top, _, _ in _DISPLAY:  # the display, untouched, where it was
        assert any(abs(r.x0 - x) < 0.5 and abs(r.y0 - top) < 0.5 for r in after), after
    # The inline formula's pictures are gone from their place and drawn once in its copy.
    inline = [r for r in after if r.y1 < 140]
    for x, top, _, _ in _INLINE:
        assert not any(abs(r.x0 - x) < 0.3 and abs(r.y0 - top) < 0.3 for r in inline), inline
    assert len(inline) == len(_INLINE), inline


def _real_page(corpus_dir: Path, number: int) -> list[Paragraph]:
    path = corpus_dir.parent / "corpus2" / "104_ieee_tcsvt1997_distiller3_2col_p12of13.pdf"
    if not path.exists():
        pytest.skip(f"corpus2 paper not found: {path}")
    return extract_paragraphs(open_document(path.read_bytes()), pages=[number])


def test_a_distiller_papers_sentences_keep_their_formulas(corpus_dir: Path) -> None:
    """104 p9: "each disk can service U users, UN_d users can access ... at most U users can
    be in phase" went out with holes, cut where the formulas stood."""
    paragraphs = _real_page(corpus_dir, 8)
    (para,) = [p for p in paragraphs if "can service" in p.text]
    assert re.search(
        r"can service \{v\d+\} ?users, \{v\d+\} ?users can access a single popular video",
        para.text,
    ), para.text
    assert "at most {v" in para.text


def test_a_line_opening_with_a_formula_is_no_table_row(corpus_dir: Path) -> None:
    """104 p10: "N_s = N_d U_max - U. In the Appendix, we show that the" (its formula of
    pictures reaching over most of the line) was read as a row of two cells."""
    paragraphs = _real_page(corpus_dir, 9)
    (para,) = [p for p in paragraphs if "In the Appendix" in p.text]
    assert para.kind.value == "body", para.kind
    assert "number of available slots" in para.text, para.text
