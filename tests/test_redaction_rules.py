"""What leaves a page with a translated paragraph besides its glyphs: the rules under its
words (underlines), never the rules of its neighbours."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_translate
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
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
