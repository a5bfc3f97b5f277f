"""A formula's glyphs at the edges of what is erased and copied: constructed pages translated
with the pseudo translator (an IEEE-style analog-circuits paper, outside the corpus).

- A transistor name "M" ending a span of words, its subscript "3" after it: the characters'
  boxes were estimated evenly along the span, the wide "M" given an average letter's box, so
  the formula's copy showed only its right half.
- A display equation's first piece, "V" and its superscript "th", in a block of its own: the
  row took the size of the two script letters, read them as letters of a word "Vth", sent it
  as a paragraph and erased it from the equation.
- A big parenthesis of TeX's math extension font whose font box (all MuPDF gives of its glyphs)
  hardly reaches above its origin and half an em below it: its probe was set above the origin,
  outside the band of its own line; it was neither erased nor copied with its formula.
"""

from __future__ import annotations

import functools

import pymupdf
import pytest

from tests.helpers.glyphs import source_glyphs
from tests.helpers.pdfgen.sheet import MATH, Sheet
from tests.helpers.pdfgen.type3 import draw_cmex_glyph
from tests.helpers.pdfgen.typeset import glyph_boxes, render_page
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.pages.glyph_advances import advances

_ITALIC = pymupdf.Font("tiit")


def _ink(page: pymupdf.Page, clip: pymupdf.Rect) -> int:
    """How many dark pixels ``page`` shows inside ``clip`` (600 dpi)."""
    pix = page.get_pixmap(dpi=600, clip=clip, colorspace=pymupdf.csGRAY)
    return sum(1 for value in pix.samples if value < 128)


# --- glyph advances ---------------------------------------------------------------------------


def _char(c: str, x: float, width: float) -> dict[str, object]:
    return {"c": c, "origin": (x, 100.0), "bbox": (x, 92.0, x + width, 102.0)}


def test_each_character_advances_to_the_next_ones_origin() -> None:
    chars = [_char("i", 10.0, 2.8), _char("s", 12.8, 3.9), _char(" ", 16.7, 2.5)]
    chars.append(_char("M", 19.2, 8.9))
    assert advances(chars, (1.0, 0.0)) == pytest.approx((2.8, 3.9, 2.5, 8.9))


def test_an_accent_set_back_over_its_letter_advances_nothing() -> None:
    chars = [_char("e", 10.0, 4.4), _char("\u00b4", 12.0, 3.3)]
    chars[1]["origin"] = (11.0, 100.0)
    got = advances([chars[0], chars[1], _char("s", 14.4, 3.9)], (1.0, 0.0))
    assert got == pytest.approx((1.0, 3.4, 3.9))


def test_vertical_text_advances_along_its_direction() -> None:
    chars = [
        {"c": "a", "origin": (100.0, 50.0), "bbox": (92.0, 46.0, 102.0, 50.0)},
        {"c": "b", "origin": (100.0, 46.0), "bbox": (92.0, 41.0, 102.0, 46.0)},
    ]
    assert advances(chars, (0.0, -1.0)) == pytest.approx((4.0, 5.0))


# --- a wide capital at the end of a span --------------------------------------------------------


def _transistor_names() -> bytes:
    """A paragraph naming transistors M3 and M4: each "M" ends a span of words in the text
    face, its subscript digit a span of its own."""
    p = Sheet()
    p.put(
        72,
        100,
        "Some words of the paragraph above the line that holds the transistor names, set",
        10,
    )
    x = p.put(72, 112, "long enough to be prose. At the level of the PMOS transistors M", 10)
    x = p.put(x, 113.5, "3", 7)
    x = p.put(x, 112, " and M", 10)
    x = p.put(x, 113.5, "4", 7)
    p.put(x, 112, ", the current mirror gives", 10)
    p.put(
        72, 124, "the same current in both branches of the circuit, as the next section shows.", 10
    )
    return p.done()


def test_a_transistor_name_is_copied_whole() -> None:
    data = _transistor_names()
    (para,), page = render_page(data, 0)
    assert sorted(para.placeholders.values()) == ["M3", "M4"], para.text
    source = pymupdf.open(stream=data)[0]
    # The names' "M"s, not the one of "PMOS" (after the names in drawing order).
    names = source_glyphs(source, "M")[-2:]
    whole = [_ink(source, box) for box in names]
    copies = source_glyphs(page, "M")
    assert len(copies) == 2, copies
    scale = copies[0].width / names[0].width
    for box, ink in zip(copies, whole, strict=True):
        # All of the letter is shown, not its right half.
        assert _ink(page, box) > 0.85 * scale * scale * ink, (box, _ink(page, box), ink)


# --- a display equation's first piece -----------------------------------------------------------


def _equation_piece() -> bytes:
    """Two lines of text, a display equation whose first glyph "V" carries a superscript "th"
    and a subscript "n,2" (MuPDF keeps "V" and "th" in a line of their own), and a line of
    text below."""
    p = Sheet()
    p.put(
        72,
        100,
        "The currents of the two transistors are equal, and so are those of the other two.",
        10,
    )
    p.put(72, 112, "Substituting the relations above in the first relation, we obtain", 10)
    y = 140
    x = p.put(120, y, "V", 12, _ITALIC)
    p.put(x + 0.8, y - 5, "th", 8, _ITALIC)
    after = p.put(x, y + 3, "n", 8, _ITALIC)
    after = p.put(after, y + 3, ",", 8, MATH)
    after = p.put(after, y + 3, "2", 8)
    after = p.put(after + 3, y, "+", 12, MATH)
    after = p.put(after + 3, y, "RI", 12, _ITALIC)
    after = p.put(after, y + 2, "D", 8, _ITALIC)
    after = p.put(after + 3, y, "=", 12, MATH)
    after = p.put(after + 3, y, "V", 12, _ITALIC)
    p.put(after + 0.8, y - 5, "th", 8, _ITALIC)
    p.put(after, y + 3, "n", 8, _ITALIC)
    p.put(450, y, "(A.4)", 10)
    p.put(
        72, 168, "By assuming no threshold voltage mismatch between the transistors, we obtain", 10
    )
    return p.done()


def test_no_piece_of_a_display_equation_is_sent() -> None:
    data = _equation_piece()
    sent = [p.text for p in extract_paragraphs(open_document(data))]
    assert not [t for t in sent if "th" in t.split() or "Vth" in t], sent
    assert len(sent) == 3, sent


def test_a_display_equation_keeps_its_first_glyph() -> None:
    data = _equation_piece()
    _, page = render_page(data, 0)
    source = pymupdf.open(stream=data)[0]
    (first, _) = sorted(source_glyphs(source, "V"), key=lambda r: r.x0)
    kept = [r for r in source_glyphs(page, "V") if abs(r.x0 - first.x0) < 0.5]
    assert len(kept) == 1 and abs(kept[0].y0 - first.y0) < 0.5, (kept, first)


# --- a big parenthesis with the font's box ------------------------------------------------------

_SIZE = 10.0


def _hanging_parentheses() -> bytes:
    """A paragraph whose second line opens with "(W/L)_i μC": the parentheses are glyphs of a
    Type 3 font named like TeX's math extension font, whose box (0.056 em above the origin,
    0.438 below: txex's ascent and descent) is all MuPDF tells of them, their ink hanging
    1.3 em from their origins 0.93 em above the line's baseline."""
    p = Sheet()
    p.put(
        72,
        100,
        "where the threshold voltage of the transistor is set apart from its gain factor",
        _SIZE,
    )
    x = p.put(76.5, 106.5, "W", 7, _ITALIC)
    p.put(x - 5, 117.5, "L", 7, _ITALIC)
    x = p.put(x + 4.5, 114.5, "i", 7, _ITALIC)
    x = p.put(x + 1, 112, "μC", _SIZE, MATH)
    p.put(
        x + 3, 112, "with the index standing for the electrons or the holes of the channel,", _SIZE
    )
    p.put(
        72,
        124,
        "and at the level of the other two transistors the current mirror gives the same.",
        _SIZE,
    )
    data = p.done()
    doc = pymupdf.open(stream=data)
    page = doc[0]
    stem = b"356 0 0 -1300 356 56 d1 100 -1300 156 1356 re f"
    for at in (72.0, 82.7):
        draw_cmex_glyph(
            doc, page, "g", stem, bbox="0 -438 356 56", width=356, x=at,
            y=842 - (112 - 0.93 * _SIZE), size=_SIZE,
        )  # fmt: skip
    out: bytes = doc.tobytes()
    return out


@functools.cache
def _parentheses() -> tuple[pymupdf.Page, pymupdf.Page]:
    data = _hanging_parentheses()
    return pymupdf.open(stream=data)[0], render_page(data, 0)[1]


def test_big_parentheses_are_copied_with_their_formula() -> None:
    source, page = _parentheses()
    assert len(glyph_boxes(source, "CMEX", "g")) == 2
    brackets = glyph_boxes(page, "CMEX", "g")
    # Drawn once each, around the fraction they enclose (its copy), not lost.
    assert len(brackets) == 2, brackets
    (w,) = source_glyphs(page, "W")
    assert brackets[0].x1 <= w.x0 + 0.5 and w.x1 <= brackets[1].x0 + 0.5, (brackets, w)
    assert brackets[0].y0 < w.y0 + 0.5 * _SIZE, (brackets, w)
