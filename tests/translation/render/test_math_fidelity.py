"""Math next to translated text (issue 10, part 2), on corpus pages: no glyph of a formula is
erased or moved by the redaction of a neighbouring paragraph, display equations stay as they
are, and formulas inside translated text are copied as vectors (no pictures)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from tests.conftest import CORPUS_DIR
from tests.fakes.pseudo import pseudo_translate
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.math.formulas import restore
from translation.read.pages.page_space import TEXT_FLAGS
from translation.read.paragraph import Paragraph
from translation.render.glyphs import path_boxes
from translation.render.redaction import formula_rules, own_paths, redact

pytestmark = pytest.mark.corpus

# Paper 01 p3: eq. (2), its number, and the big {( )} delimiters whose glyph boxes reach into
# the lines above and below.
EQ2 = pymupdf.Rect(74, 486, 292, 503)
EQ2_LINE_ABOVE = pymupdf.Rect(72, 474, 291, 486)


def _paper(corpus_dir: Path, prefix: str) -> bytes:
    (path,) = corpus_dir.glob(f"{prefix}_*.pdf")
    return path.read_bytes()


Rendered = tuple[pymupdf.Document, pymupdf.Document, list[Paragraph]]


def _render(data: bytes, pages: list[int]) -> Rendered:
    paragraphs = [p for p in extract_paragraphs(open_document(data), pages) if p.page in pages]
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    mono = render_mono(open_document(data), paragraphs, translations, "ko")
    return pymupdf.open(stream=data), pymupdf.open(stream=mono), paragraphs


@pytest.fixture(scope="module")
def corpus() -> Path:
    if not CORPUS_DIR.is_dir():
        pytest.skip(f"corpus not found at {CORPUS_DIR}")
    return CORPUS_DIR


@pytest.fixture(scope="module")
def specter(corpus: Path) -> Iterator[Rendered]:
    yield _render(_paper(corpus, "01"), [2])


@pytest.fixture(scope="module")
def word_math(corpus: Path) -> Iterator[Rendered]:
    yield _render(_paper(corpus, "07"), [4, 5])


def _glyphs(page: pymupdf.Page, area: pymupdf.Rect) -> Counter[tuple[str, str, int, int]]:
    """(char, font, origin) of the glyphs whose origin lies in ``area``."""
    found: Counter[tuple[str, str, int, int]] = Counter()
    for block in page.get_text("rawdict", flags=TEXT_FLAGS)["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                for char in span["chars"]:
                    x, y = char["origin"]
                    if char["c"].strip() and area.contains(pymupdf.Point(x, y)):
                        key = (char["c"], span["font"], round(x * 2), round(y * 2))
                        found[key] += 1
    return found


def test_display_equation_keeps_every_glyph_next_to_translated_text(specter: Rendered) -> None:
    """Paper 01 p3 eq. (2): the paragraphs above and below are translated; the equation's
    glyphs are all there, where they were, and the equation looks exactly as before."""
    source, out, paragraphs = specter
    assert any(pymupdf.Rect(p.bbox).y1 < EQ2.y0 for p in paragraphs)
    assert any(pymupdf.Rect(p.bbox).y0 > EQ2.y1 for p in paragraphs)
    before = _glyphs(source[2], EQ2)
    assert sum(before.values()) >= 30
    assert _glyphs(out[2], EQ2) == before
    clip = EQ2 + (0, 1, 0, -1)  # the ink of the equation, off the lines around it
    a = source[2].get_pixmap(dpi=150, clip=clip)
    b = out[2].get_pixmap(dpi=150, clip=clip)
    assert a.samples == b.samples


def test_no_fragments_of_a_formula_over_the_line_above(specter: Rendered) -> None:
    """The line above eq. (2) holds translated text only: no glyph of a math font sits on
    it (the old pictures of "put back" glyphs left P Q P P P there), and the page has no
    pictures."""
    source, out, _ = specter
    assert not [key for key in _glyphs(out[2], EQ2_LINE_ABOVE) if key[1].startswith("CM")]
    assert [key for key in _glyphs(source[2], EQ2) if key[1] == "CMEX10"]
    assert len(out[2].get_images()) == len(source[2].get_images()) == 0


def test_display_equations_are_never_part_of_a_translated_paragraph(
    specter: Rendered, word_math: Rendered
) -> None:
    """No translated paragraph covers a display equation: eq. (2) of paper 01, and the
    softmax equations of paper 07 p6 ("exp" stays an operator name, never a word)."""
    _, _, paragraphs = specter
    assert not any(pymupdf.Rect(p.bbox).intersects(EQ2) for p in paragraphs)
    source, out, paragraphs = word_math
    names = [
        pymupdf.Point(span["origin"]) + (1, -2)
        for block in source[5].get_text("dict", flags=TEXT_FLAGS)["blocks"]
        for line in block.get("lines", ())
        for span in line["spans"]
        if span["text"].startswith("exp") and "Math" in span["font"]
    ]
    assert len(names) >= 3
    for point in names:
        assert not any(pymupdf.Rect(p.bbox).contains(point) for p in paragraphs if p.page == 5)
    assert not any("exp" in p.text.split() for p in paragraphs)
    after = [glyph for glyph in _glyphs(out[5], out[5].rect) if "Math" in glyph[1]]
    assert all(any(g[0] == "e" and abs(g[2] / 2 - (p.x - 1)) < 0.5 for g in after) for p in names)


def test_big_operator_of_an_inline_fraction_comes_with_its_sentence(corpus: Path) -> None:
    """Paper 03 p4: "defined as 1/|S| Σ F_summ where S is the set" is set by MuPDF in three
    blocks (the Σ, whose box reaches over three lines, alone): the line is one sentence of
    its paragraph, translated ("defined as" gone), and its formula, Σ included, is copied."""
    source, out, paragraphs = _render(_paper(corpus, "03"), [3])
    (para,) = [p for p in paragraphs if "defined as" in p.text]
    assert "faithfulness score of a system is defined as {v" in para.text
    sigma = [key for key in _glyphs(source[3], pymupdf.Rect(366, 416, 382, 424))]
    assert [key[1] for key in sigma] == ["CMEX10"]
    after = _glyphs(out[3], pymupdf.Rect(para.bbox))
    assert any(key[:2] == sigma[0][:2] for key in after)
    assert "defined" not in out[3].get_textbox(pymupdf.Rect(para.bbox))


def test_word_brackets_and_arrows_leave_with_their_paragraph(
    corpus_dir: Path, word_math: Rendered
) -> None:
    """Paper 07 p5-6 (Word, Cambria Math): after redaction no glyph and no bracket or brace
    (Word draws stretched ones as paths) of a translated paragraph is left at its old
    place, under the translation; the display equations keep theirs."""
    _, _, paragraphs = word_math
    doc = pymupdf.open(stream=_paper(corpus_dir, "07"))
    for number in (4, 5):
        page = doc[number]
        own = [p for p in paragraphs if p.page == number]
        rects = [r for p in own for r in p.rects]
        assert own_paths(path_boxes(page), rects)  # brackets drawn as paths exist here
        # Brackets go with their lines, a formula's rules (the bar over alpha) with it.
        gone = set(own_paths(path_boxes(page), rects)) | set(formula_rules(path_boxes(page), own))
        kept_before = len(path_boxes(page)) - len(gone)
        assert redact(page, own) > 1000
        assert not own_paths(path_boxes(page), rects)
        assert len(path_boxes(page)) == kept_before
        left = _glyphs(page, pymupdf.Rect(page.rect))
        for char, _, x2, y2 in left:  # none under the translation (a Word superscript too)
            point = pymupdf.Point(x2 / 2, y2 / 2)
            assert not any(pymupdf.Rect(p.bbox).contains(point) for p in own), char


def test_formula_copies_are_vectors(specter: Rendered, word_math: Rendered) -> None:
    """Formulas inside translated text are copied as form XObjects holding their original
    glyphs: the output pages have exactly the source's images (none), and each copy brings
    its formula's text along (searchable)."""
    for source, out, paragraphs in (specter, word_math):
        for number in {p.page for p in paragraphs}:
            assert len(out[number].get_images()) == len(source[number].get_images())
            copies = [x for x in out[number].get_xobjects() if x[1].startswith("ZtF")]
            assert len(copies) >= 10
    _, out, paragraphs = specter
    (para,) = [p for p in paragraphs if "hard negative example" in p.text]
    assert "cite" in out[2].get_textbox(pymupdf.Rect(para.bbox))


def test_mathtime_glyphs_stay_in_their_formula(corpus: Path) -> None:
    """Paper 02 (MathTime fonts): p3 "g_k and h_k" with an arrow the font maps to a space are
    formulas, not the words "g" and "h"; p6 "f(m)" keeps its ")" (the font reads it "/")."""
    paragraphs = extract_paragraphs(open_document(_paper(corpus, "02")), [2, 5])
    (vectors,) = [p for p in paragraphs if "weight matrix" in p.text]
    assert not re.search(r"(?<![{\w])[gh](?![\w}])", vectors.text), vectors.text
    assert {"g k", "h k"} <= set(vectors.placeholders.values())
    (scores,) = [p for p in paragraphs if "cosine similarity" in p.text]
    assert "}/" not in scores.text
    assert {"f.m/", "g.e/"} <= set(scores.placeholders.values())
    assert {k for k, v in scores.placeholders.items() if v in ("f.m/", "g.e/")} <= set(
        scores.glyph_formulas
    )


def test_the_bar_of_an_inline_formula_moves_with_it(word_math: Rendered) -> None:
    """07 p6: the overline of "ᾱ_ij" (a thin path) leaves its old place with the sentence and
    is drawn again over the copied formula; nothing thin is left where the text was."""
    source, output, _ = word_math
    bar = pymupdf.Rect(386.0, 653.7, 398.4, 654.5)

    def bars(page: pymupdf.Page) -> list[pymupdf.Rect]:
        return [
            d["rect"]
            for d in page.get_drawings()
            if d["rect"].height < 1.5 and 8 < d["rect"].width < 20 and 640 < d["rect"].y0 < 670
        ]

    assert any(abs(r.x0 - bar.x0) < 0.5 for r in bars(source[5]))
    moved = bars(output[5])
    assert moved, "the bar is gone"
    assert not any(abs(r.x0 - bar.x0) < 0.5 for r in moved), "the bar stayed over the translation"
