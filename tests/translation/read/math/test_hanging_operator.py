"""An inline sum whose big operator, a glyph of TeX's math extension font, hangs from its
origin in a block of its own (issue 23, corpus 03 p4: ``1/|S| Σ_{summ∈S} F_summ``).

The font's box (all MuPDF gives of the glyph) reaches almost three sizes below the origin and
0.77 above (CMEX10's FontBBox): the operator's row was given a baseline near the foot of that
box, two lines too low, and the glyph's probe was put above its origin, as for a glyph
standing on it. Its redaction band and the probe missed each other: the operator was neither
erased nor copied and stayed at its old place, over the formula's copy set further left.
"""

from __future__ import annotations

import functools

import pymupdf

from tests.helpers.pdfgen.sheet import MATH, Sheet
from tests.helpers.pdfgen.type3 import draw_cmex_glyph
from tests.helpers.pdfgen.typeset import glyph_boxes, render_page, times_words
from translation.read.paragraph import Paragraph

_BASE = 113.0  # the formula line's baseline
_SIZE = 11.0


@functools.cache
def _sum_line(bbox: str = "-24 -2960 1454 772", name: str = "CMEX10") -> bytes:
    """Three lines of a paragraph; the second holds ``1/n Σ_{i∈I} F_i``, the Σ a glyph of a
    Type 3 font named like TeX's math extension font, with its FontBBox (``bbox``: CMEX10's;
    Latin Modern's reaches 0.05 above the origin, not 0.77), drawn from its
    origin 0.75 em above the baseline down to 0.25 em below it (TeX's text-style sum,
    centred on the axis).
    The content draws the line's words before the Σ, then the Σ, then the rest, as TeX does:
    MuPDF sets the three pieces apart."""
    before = Sheet()
    doc, page = before.doc, before.page
    before.put(72, _BASE - 13, "Some words of the line above the formula, set long enough to be")
    x = before.put(72, _BASE, "and the score of a system is defined as") + 4
    before.put(x + 2.5, _BASE - 4.3, "1", 8, MATH)  # the fraction 1/n before the sum
    sigma_x = before.put(x, _BASE + 3.9, "|n|", 8, MATH) + 3
    before.done()
    sigma = (
        b"1056 0 0 -1000 1056 0 d1 "
        b"40 0 m 980 0 l 980 -150 l 300 -500 l 980 -850 l 980 -1000 l 40 -1000 l 450 -500 l f"
    )
    origin = 842 - (_BASE - 0.75 * _SIZE)
    draw_cmex_glyph(
        doc, page, "P", sigma, bbox=bbox, width=1056, x=sigma_x, y=origin, size=_SIZE, name=name,
    )  # fmt: skip
    after = Sheet(doc, page=page)
    x = after.put(sigma_x + 11.6, _BASE + 3.2, "i∈I", 8, MATH)  # the sum's subscript
    x = after.put(x + 1, _BASE, "F", _SIZE, MATH)
    x = after.put(x, _BASE + 1.6, "i", 8, MATH)
    after.put(x + 3, _BASE, "where the sum runs over the set.", _SIZE)
    after.put(72, _BASE + 13, "The line below ends the paragraph after the formula line.")
    return after.done()


@functools.cache
def _read() -> tuple[list[Paragraph], pymupdf.Page]:
    return render_page(_sum_line(), 0)


def test_a_hanging_sum_is_one_formula_with_its_summand() -> None:
    paragraphs, _ = _read()
    (para,) = paragraphs
    (key,) = para.placeholders
    assert "is defined as " + key + " where the sum" in para.text, para.text
    # The formula's box is its own line's: it reaches no glyph of the lines around it (their
    # probes, 0.3 size over their baselines, 13 points away).
    (box,) = para.formula_boxes[key]
    assert _BASE - 13 - 0.3 * _SIZE < box[1] and box[3] < _BASE + 13 - 0.3 * _SIZE, box


def test_a_hanging_sum_is_erased_and_drawn_once_before_its_summand() -> None:
    _, page = _read()
    source = pymupdf.open(stream=_sum_line())[0]
    (before,) = glyph_boxes(source, "CMEX", "P")
    sums = glyph_boxes(page, "CMEX", "P")
    # Drawn once, in the formula's copy: moved with it, not left at its old place.
    assert len(sums) == 1 and abs(sums[0].x0 - before.x0) > 2, (sums, before)
    # Right before its summand, as in the source (the copy is scaled), not over it.
    (summand,) = glyph_boxes(page, "Math", "F")
    (was,) = glyph_boxes(source, "Math", "F")
    scale = sums[0].width / before.width
    assert 0.7 < scale <= 1.0, (sums[0], before)
    assert abs((summand.x0 - sums[0].x0) - scale * (was.x0 - before.x0)) < 0.5, (sums, summand)
    assert abs((summand.y0 - sums[0].y0) - scale * (was.y0 - before.y0)) < 0.5, (sums, summand)
    assert not [w for w in times_words(page, page.rect) if w]


def test_a_hanging_sum_of_latin_modern_is_erased_and_copied() -> None:
    """Latin Modern's extension font boxes its glyphs from 2.96 below the origin to 0.05
    above: the Σ's probe, taken at the middle of that box, lay a line lower, so the sum was
    neither erased nor copied, left standing under the next line's translation.
    Origin: corpus2 122 p2 ("argmin_θ Σ_i Ψ": the Σ over the translation below)."""
    data = _sum_line("0 -2960 1056 50", "LMMathExtension10-Regular")
    _, page = render_page(data, 0)
    (before,) = glyph_boxes(pymupdf.open(stream=data)[0], "LMMathExtension", "P")
    sums = glyph_boxes(page, "LMMathExtension", "P")
    assert len(sums) == 1 and abs(sums[0].x0 - before.x0) > 2, (sums, before)
