"""No glyph of the source stays where its translation is set, and nothing outside the paragraph
goes: a constructed page with the LaTeX logo in a title and a caption (its small raised "A"),
a drop cap, and a footnote whose marker is raised and whose inline formula holds a big Σ and a
raised ⊤, translated with the pseudo translator."""

from __future__ import annotations

import functools
from collections import Counter

import pymupdf
from pymupdf import mupdf

from tests.fakes.pseudo import pseudo_translate
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.flow.passage import translated

_TIMES = pymupdf.Font("tiro")
_TIMES_BOLD = pymupdf.Font("tibo")


def _math() -> pymupdf.Font:
    data, size = mupdf.fz_lookup_noto_math_font()
    return pymupdf.Font(fontbuffer=mupdf.raw_to_python_bytes(data, size))


class _Page:
    def __init__(self) -> None:
        self.doc = pymupdf.open()
        self.page = self.doc.new_page(width=595, height=842)
        self.writer = pymupdf.TextWriter(self.page.rect)
        self.math = _math()

    def put(self, x: float, y: float, text: str, size: float, font: pymupdf.Font = _TIMES) -> float:
        self.writer.append((x, y), text, font=font, fontsize=size)
        return x + float(font.text_length(text, size))

    def logo(self, x: float, y: float, size: float, font: pymupdf.Font) -> float:
        """LaTeX's logo as TeX sets it: a small raised "A", a lowered "E", kerned."""
        x = self.put(x, y, "L", size, font) - 0.36 * size
        x = self.put(x, y - 0.21 * size, "A", 0.7 * size, font) - 0.15 * size
        x = self.put(x, y, "T", size, font) - 0.1667 * size
        x = self.put(x, y + 0.2 * size, "E", size, font) - 0.125 * size
        return self.put(x, y, "X", size, font)


def _source() -> bytes:
    p = _Page()
    x = p.put(120, 90, "A Guide to ", 16, _TIMES_BOLD)
    p.put(p.logo(x, 90, 16, _TIMES_BOLD), 90, " for New Authors", 16, _TIMES_BOLD)
    for i, line in enumerate(
        (
            "Documents set in this system keep their layout when they are translated into",
            "another language, and the formulas they hold are copied as they look on the",
            "page, so that nothing of the source is lost on the way to the new text.",
        )
    ):
        p.put(72, 140 + 12 * i, line, 10)
    x = p.put(72, 186, "Figure 1: A page typeset with ", 9)
    p.put(p.logo(x, 186, 9, _TIMES), 186, " and its translation.", 9)
    p.put(72, 236, "T", 36)  # a drop cap over three lines
    for i, line in enumerate(
        (
            "he first paragraph of this section starts with a large initial letter that",
            "spans three lines of the text, as magazines and some journals print them,",
            "and the lines beside it are indented by the width of that letter.",
        )
    ):
        p.put(100, 216 + 12 * i, line, 10)
    p.put(72, 252, "The last line of the paragraph runs under the initial to the margin.", 10)
    p.page.draw_line((72, 748), (200, 748), width=0.5)
    p.put(72, 757, "1", 5.5)  # the footnote marker, raised
    x = p.put(76, 760, "We compute the score as ", 8)
    x = p.put(x, 761, "Σ", 11, p.math)
    x = p.put(x, 763, "i", 5.5, p.math)
    x = p.put(x + 1, 760, "x", 8, p.math)
    x = p.put(x, 757, "⊤", 5.5, p.math)
    x = p.put(x, 762, "i", 5.5, p.math)
    x = p.put(x + 1, 760, "y", 8, p.math)
    p.put(x + 2, 760, " over all pairs of the batch and report the mean over five runs.", 8)
    p.put(72, 770, "The same holds for the validation split, which we never use for training.", 8)
    p.put(295, 805, "3", 9)  # the page number: not translated, never erased
    p.writer.write_text(p.page)
    data: bytes = p.doc.tobytes()
    return data


@functools.cache
def _rendered() -> pymupdf.Page:
    data = _source()
    paragraphs = extract_paragraphs(open_document(data))
    texts = translated(paragraphs, lambda text: pseudo_translate(text, "ko"))
    return pymupdf.open(stream=render_mono(open_document(data), paragraphs, texts, "ko"))[0]


def _source_glyphs(page: pymupdf.Page) -> list[tuple[str, tuple[float, ...], float]]:
    """(character, box, size) of the glyphs left in the source's text fonts."""
    return [
        (chr(c[0]), tuple(c[3]), t["size"])
        for t in page.get_texttrace()
        if "Times" in t["font"]
        for c in t["chars"]
        if chr(c[0]).strip()
    ]


def test_no_source_glyph_stays_under_the_translation() -> None:
    left = _source_glyphs(_rendered())
    # Before: "LA" of the logos stayed (a formula copy before a translated "TEX"), and the
    # footnote's first words stayed, their band put on the raised marker's baseline.
    assert [char for char, _, _ in left] == ["3"], left


def test_the_page_number_outside_every_paragraph_stays() -> None:
    ((char, box, size),) = _source_glyphs(_rendered())
    assert char == "3" and abs(box[0] - 295) < 1 and size == 9


def test_a_footnote_formula_is_set_once_at_its_new_place() -> None:
    page = _rendered()
    math = Counter(
        chr(c[0]) for t in page.get_texttrace() if "Math" in t["font"] for c in t["chars"]
    )
    assert math["Σ"] == 1 and math["⊤"] == 1
