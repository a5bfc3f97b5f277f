"""Bold by the weight a face's descriptor states (issue 35, point 2): a family whose faces are
named by number ("Yoon Gothic 740" the text, "780" the headings) says nothing of its weight in
its names, but its PDF states it (``/FontWeight 700``). A short line in such a face over its
paragraph is a heading, as one in a face named bold is, not the paragraph's first words."""

from __future__ import annotations

import pytest

from tests.helpers.corpus2 import corpus2_pages
from tests.helpers.pdfgen.columns import INTRO, OUTRO, TOP, WIDE
from tests.helpers.pdfgen.sheet import HELV, LEADING, SIZE, Sheet, face_at, read, words_at
from translation.read.pages.font_weights import stated_weight
from translation.read.paragraph import ParagraphKind


def test_the_weight_is_read_from_the_descriptor() -> None:
    assert stated_weight("<< /FontName /A+YoonGothicPro780 /FontWeight 700 /StemV 144 >>") == 700
    assert stated_weight("<</FontWeight 500/StemV 120>>") == 500
    assert stated_weight("<< /FontName /CMR10 /StemV 69 >>") is None


def _headed_page(weight: int) -> bytes:
    """Two short lines in a sans face whose name says "Regular", each over a paragraph of
    Times, the face's descriptor stating ``weight``."""
    sheet = Sheet()
    face = face_at(sheet.page, "F9", HELV, weight)
    y = TOP
    for head, text in [("Eligible purchases", INTRO), ("Purchases left out", OUTRO)]:
        words_at(sheet.page, [(WIDE[0], y, head, SIZE, face)])
        y = sheet.paragraph(text, WIDE, y + 1.5 * LEADING, indent=False) + LEADING
    return sheet.done()


@pytest.mark.parametrize("weight", [700, 600])
def test_a_line_in_a_face_stated_bold_is_a_heading(weight: int) -> None:
    paragraphs = read(_headed_page(weight))
    heads = [p.text for p in paragraphs if p.kind is ParagraphKind.HEADING]
    assert heads == ["Eligible purchases", "Purchases left out"], [p.text for p in paragraphs]
    (first,) = [p for p in paragraphs if "Automatic evaluation" in p.text]
    assert first.text.startswith("Automatic evaluation")


def test_a_face_stated_regular_or_medium_is_no_bold() -> None:
    """400 and 500 (medium) are the text's weights: the line reads on into its paragraph as
    it did."""
    for weight in (400, 500):
        paragraphs = read(_headed_page(weight))
        assert not [p for p in paragraphs if p.kind is ParagraphKind.HEADING]


def test_a_card_terms_pages_labels_are_headings_over_their_descriptions() -> None:
    """corpus2 144 (a Korean card's terms, Yoon Gothic 740/770/780): the labels over the
    descriptions at the page's foot were sent as body fragments ("서비스 제공 기준")."""
    paragraphs = read(corpus2_pages("144_ko_card_terms_text_tables_ilovepdf.pdf", [0]))
    heads = {p.text for p in paragraphs if p.kind is ParagraphKind.HEADING}
    for label in (
        "서비스 제공 기준",
        "전월 이용금액 기준",
        "전월 이용금액 제외 대상",
        "적립 제외 대상",
        "기타",
    ):
        assert label in heads, sorted(heads)
    (description,) = [p for p in paragraphs if "매월 1일부터" in p.text]
    assert description.text.startswith("매월 1일부터 말일까지")
