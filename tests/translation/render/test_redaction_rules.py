"""What leaves a page with a translated paragraph besides its glyphs: the rules under its
words (underlines), never the rules of its neighbours; and no glyph of the source stays where
its translation is set, while nothing outside the paragraph goes (a constructed page with the
LaTeX logo in a title and a caption, its small raised "A", a drop cap, and a footnote whose
marker is raised and whose inline formula holds a big Σ and a raised ⊤)."""

from __future__ import annotations

import functools
from collections import Counter
from pathlib import Path

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_translate
from tests.helpers.pdfgen.sheet import TIMES, TIMES_BOLD, Sheet, math_font
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.flow.passage import translated
from translation.read.math.formulas import restore
from translation.render.redaction import underlines

# A band of a 10 pt line whose baseline is at y=101 (rows.make_row: base - 0.6 to - 0.1 size).
BAND = (100.0, 95.0, 200.0, 100.0)


def test_a_rule_just_under_the_words_is_their_underline() -> None:
    under = (120.0, 101.5, 180.0, 101.9)
    assert underlines([under], [BAND]) == [under]


@pytest.mark.parametrize(
    "rule",
    [
        (60.0, 101.5, 300.0, 101.9),  # wider than the words: a table rule or a separator
        (120.0, 110.0, 180.0, 110.4),  # a line lower: the next line's or a footnote rule
        (120.0, 90.0, 180.0, 90.4),  # above the baseline: a strike-through is not ours
        (120.0, 99.0, 180.0, 104.0),  # not thin: a box
    ],
)
def test_other_rules_are_not_underlines(rule: tuple[float, float, float, float]) -> None:
    assert underlines([rule], [BAND]) == []


@pytest.mark.corpus
def test_underlines_of_a_translated_footnote_leave_with_it(corpus_dir: Path) -> None:
    """09 p2: footnote 4's underlined words; the rules would strike through the translation."""
    (path,) = corpus_dir.glob("09_*.pdf")
    data = path.read_bytes()
    paragraphs = extract_paragraphs(open_document(data), [1])
    translations = {p.id: restore(pseudo_translate(p.text, "en"), p) for p in paragraphs}
    out = pymupdf.open(stream=render_mono(open_document(data), paragraphs, translations, "en"))
    source = pymupdf.open(stream=data)

    def rules(page: pymupdf.Page) -> set[tuple[int, int, int]]:
        return {
            (round(d["rect"].x0), round(d["rect"].y0), round(d["rect"].x1))
            for d in page.get_drawings()
            if d["rect"].height < 1.5 and d["rect"].width > 3
        }

    footnote = {(121, 751, 295), (77, 764, 148)}
    assert footnote <= rules(source[1])
    assert not footnote & rules(out[1])
    assert rules(source[1]) - footnote == rules(out[1])  # the table's rules all stay


class _LogoSheet(Sheet):
    """A page with LaTeX's logo among its words, and the math font at hand."""

    def __init__(self) -> None:
        super().__init__()
        self.math = math_font()

    def logo(self, x: float, y: float, size: float, font: pymupdf.Font) -> float:
        """LaTeX's logo as TeX sets it: a small raised "A", a lowered "E", kerned."""
        x = self.put(x, y, "L", size, font) - 0.36 * size
        x = self.put(x, y - 0.21 * size, "A", 0.7 * size, font) - 0.15 * size
        x = self.put(x, y, "T", size, font) - 0.1667 * size
        x = self.put(x, y + 0.2 * size, "E", size, font) - 0.125 * size
        return self.put(x, y, "X", size, font)


def _source() -> bytes:
    p = _LogoSheet()
    x = p.put(120, 90, "A Guide to ", 16, TIMES_BOLD)
    p.put(p.logo(x, 90, 16, TIMES_BOLD), 90, " for New Authors", 16, TIMES_BOLD)
    for i, line in enumerate(
        (
            "Documents set in this system keep their layout when they are translated into",
            "another language, and the formulas they hold are copied as they look on the",
            "page, so that nothing of the source is lost on the way to the new text.",
        )
    ):
        p.put(72, 140 + 12 * i, line, 10)
    x = p.put(72, 186, "Figure 1: A page typeset with ", 9)
    p.put(p.logo(x, 186, 9, TIMES), 186, " and its translation.", 9)
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
    return p.done()


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
    """Origin: issue 23 remnants (source glyphs left under the translation)."""
    left = _source_glyphs(_rendered())
    # Before: "LA" of the logos stayed (a formula copy before a translated "TEX"), and the
    # footnote's first words stayed, their band put on the raised marker's baseline.
    assert [char for char, _, _ in left] == ["3"], left


def test_the_page_number_outside_every_paragraph_stays() -> None:
    """Origin: issue 23 remnants (source glyphs left under the translation)."""
    ((char, box, size),) = _source_glyphs(_rendered())
    assert char == "3" and abs(box[0] - 295) < 1 and size == 9


def test_a_footnote_formula_is_set_once_at_its_new_place() -> None:
    """Origin: issue 23 remnants (source glyphs left under the translation)."""
    page = _rendered()
    math = Counter(
        chr(c[0]) for t in page.get_texttrace() if "Math" in t["font"] for c in t["chars"]
    )
    assert math["Σ"] == 1 and math["⊤"] == 1


def test_a_prefixed_logo_is_a_word_not_a_copy() -> None:
    """ "PDF" before the logo ("PDFLaTeX"): the logo is still the word, translated with its
    line; before, the small raised "A" was a formula copied as it looks, and with it the
    "L" it is kerned under, shown cut in two beside the translation.
    Origin: corpus2 145 p3 (overprint: "LA" over the translation's "P")."""
    p = _LogoSheet()
    x = p.put(72, 140, "Documents are set with PDF", 10)
    p.put(p.logo(x, 140, 10, TIMES), 140, " and they keep their layout when translated.", 10)
    p.put(72, 152, "The formulas they hold are copied as they look on the page itself.", 10)
    data = p.done()
    (para,) = extract_paragraphs(open_document(data))
    assert "PDFLaTeX" in para.text and not para.formula_boxes
    out = pymupdf.open(
        stream=render_mono(open_document(data), [para], {para.id: "번역 PDFLaTeX 문서"}, "ko")
    )
    assert _source_glyphs(out[0]) == []
