"""A line whose inline formulas carry sub- and superscripts, cut by MuPDF into blocks at each
formula (issue 23, 2203.00130 p37 outside the corpus): LaTeX draws a formula's subscript
after its superscript, back under it, and MuPDF starts the next block there, so each piece
of the line after the first begins with the subscript of the formula before it, and the
last subscript begins the block of the next line.

The pieces overlapped by that subscript were not joined: the formula before them and the
words after it ("and") were read as display equations, never sent, left in English at their
old place over the translation, and the subscripts were copied apart from their formulas.
"""

from __future__ import annotations

import functools

import pymupdf

from tests.helpers.pdfgen.sheet import MATH, Sheet
from tests.helpers.pdfgen.typeset import glyph_boxes, render_page, times_words
from translation.read.flow.passage import passages
from translation.read.paragraph import Paragraph

_NAMES = ("SLE", "PDF", "SD", "QA")


def _scripted_line() -> bytes:
    """A paragraph whose middle line holds four formulas ``β`` with a superscript name and a
    subscript digit, the subscript drawn last, back under the superscript (as TeX does)."""
    p = Sheet()
    y = 200.0
    p.put(72, y - 14, "We report all the estimated coefficients in Table 3 and we read them", 10)

    def beta(x: float, name: str, digit: str) -> float:
        x = p.put(x, y, "β", 10, MATH)
        end = p.put(x + 0.3, y - 3.5, name, 7, MATH)
        p.put(x + 0.3, y + 3.3, digit, 7)
        return end

    x = p.put(beta(72, "SLE", "1") + 3, y, "is the mean difference in score for the paper.", 10)
    x = p.put(beta(x + 3, "PDF", "2"), y, ",", 10)
    x = p.put(beta(x + 3, "SD", "2") + 3, y, "and", 10)
    beta(x + 3, "QA", "2")
    p.put(72, y + 14, "are the mean differences in score for the baseline against the variant.", 10)
    return p.done()


@functools.cache
def _read() -> tuple[list[Paragraph], pymupdf.Page]:
    return render_page(_scripted_line(), 0)


def _drawn(page: pymupdf.Page, font: str) -> str:
    return "".join(
        chr(c[0]) for t in page.get_texttrace() if font in t["font"] for c in t["chars"]
    ).replace(" ", "")


def test_the_pieces_of_a_scripted_line_are_one_paragraph() -> None:
    paragraphs, _ = _read()
    (request,) = passages(paragraphs)
    text = " ".join(request.text.split())
    assert "mean difference in score" in text and "are the mean differences" in text, text
    # Each formula is one placeholder with its subscript; "and" is a word of the sentence.
    assert text.startswith("We report") and " and {v" in text, text
    formulas = [v for piece in request.pieces for v in piece.placeholders.values()]
    for name in _NAMES:  # a subscript may be read between the letters of a superscript
        assert len([f for f in formulas if name in f.replace("2", "")]) == 1, formulas
    joined = "".join(formulas)
    assert joined.count("β") == 4 and sorted(c for c in joined if c.isdigit()) == list("1222")


def test_every_glyph_of_the_scripted_line_is_drawn_once_and_no_word_stays() -> None:
    _, page = _read()
    source = pymupdf.open(stream=_scripted_line())[0]
    # The formulas' glyphs are on the page once each: none left at its old place beside
    # its copy, none lost.
    assert sorted(_drawn(page, "Math")) == sorted(_drawn(source, "Math")), _drawn(page, "Math")
    digits = "".join(c for c in _drawn(page, "Times") if c.isdigit())
    assert sorted(digits) == list("1222"), digits
    # Each subscript is drawn with its formula, right after its "β" (not at its old place).
    betas = glyph_boxes(page, "Math", "β")
    for digit in glyph_boxes(page, "Times", "12"):
        middle = (digit.y0 + digit.y1) / 2
        assert [b for b in betas if abs(digit.x0 - b.x1) < 1.5 and b.y0 < middle < b.y1 + 3], (
            digit,
            betas,
        )
    assert not [w for w in times_words(page, page.rect) if w.isalpha()]
    # No glyph of the source stands where the translation is set.
    kept = [
        pymupdf.Rect(c[3])
        for t in page.get_texttrace()
        if "Math" in t["font"] or "Times" in t["font"]
        for c in t["chars"]
        if chr(c[0]).strip()
    ]
    new = [
        pymupdf.Rect(c[3])
        for t in page.get_texttrace()
        if "Math" not in t["font"] and "Times" not in t["font"]
        for c in t["chars"]
        if chr(c[0]).strip()
    ]
    over = [(a, b) for a in kept for b in new if (a & b).get_area() > 0.2 * a.get_area()]
    assert not over, over
