"""Described terms (issue 35, point 2): a list of terms, each a bold label in the text's size
set over its description, a noun phrase or a list of them ended on purpose on no stop (a
card's terms: "전월 이용금액 기준" over "매월 1일부터 말일까지 이용한 일시불 및 할부 이용금액").
The label is a heading; each description is one request, an entry of the list (a list item),
not a body sentence left open."""

from __future__ import annotations

from tests.helpers.corpus2 import corpus2_pages
from tests.helpers.pdfgen.columns import INTRO, TOP, WIDE
from tests.helpers.pdfgen.sheet import LEADING, SIZE, Sheet, read, words_at, wrap
from translation.read.flow.passage import passages
from translation.read.paragraph import Paragraph, ParagraphKind

_TERMS = [
    (
        "Spending counted",
        "Lump-sum and instalment purchases made from the first to the last day of each month",
    ),
    (
        "Spending left out",
        "Insurance premiums, national and local taxes, university tuition, public transport,"
        " taxis, apartment fees, gift card purchases and top-ups, voucher purchases",
    ),
]


def _terms_page(terms: list[tuple[str, str]], stop: str = "") -> bytes:
    """A paragraph, then each term's label in Times Bold at the text's size, its description
    under it (wrapped at 300 points, ended with ``stop``), a line skipped between terms."""
    sheet = Sheet()
    y = sheet.paragraph(INTRO, WIDE, TOP) + LEADING
    for term, text in terms:
        words_at(sheet.page, [(WIDE[0], y, term, SIZE, "tibo")])
        y += 1.6 * LEADING
        for line in wrap(text + stop, 300):
            words_at(sheet.page, [(WIDE[0], y, line, SIZE, "tiro")])
            y += LEADING
        y += LEADING
    return sheet.done()


def _holding(paragraphs: list[Paragraph], words: str) -> Paragraph:
    (found,) = [p for p in paragraphs if words in p.text]
    return found


def test_each_description_under_its_label_is_an_entry_of_the_list() -> None:
    paragraphs = read(_terms_page(_TERMS))
    found = passages(paragraphs)
    for term, text in _TERMS:
        assert _holding(paragraphs, term).kind is ParagraphKind.HEADING
        description = _holding(paragraphs, text[:20])
        assert description.kind is ParagraphKind.LIST_ITEM, [p.kind for p in paragraphs]
        (passage,) = [p for p in found if text[:20] in p.text]
        assert " ".join(passage.text.split()) == text


def test_descriptions_that_end_their_sentences_stay_body_text() -> None:
    """Paragraphs under bold headings that end their sentences are paragraphs, as they were."""
    paragraphs = read(_terms_page(_TERMS, "."))
    assert not [p for p in paragraphs if p.kind is ParagraphKind.LIST_ITEM]


def test_one_heading_over_an_open_text_is_no_list() -> None:
    """A single label over a text ended on no stop is a heading and its text: a list of
    terms has two at least."""
    paragraphs = read(_terms_page(_TERMS[:1]))
    assert _holding(paragraphs, "Lump-sum").kind is ParagraphKind.BODY


def test_a_card_terms_pages_descriptions_are_entries_under_their_labels() -> None:
    """corpus2 144 p1 (its labels bold by the weight their face states): the descriptions
    were body requests flagged as fragments or as ending inside a sentence."""
    paragraphs = read(corpus2_pages("144_ko_card_terms_text_tables_ilovepdf.pdf", [0]))
    for words, ends in [
        ("매월 1일부터", "할부 이용금액"),
        ("건강보험/국민연금", "상품권 구매건"),
        ("무이자할부, 다이어트할부", "상품권 구매건"),
    ]:
        description = _holding(paragraphs, words)
        assert description.kind is ParagraphKind.LIST_ITEM
        assert description.text.startswith(words) and description.text.endswith(ends)
    assert _holding(paragraphs, "전월 이용금액 제외 대상").kind is ParagraphKind.HEADING
