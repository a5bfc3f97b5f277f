"""A paragraph set after a list item with space between them, not indented, the item's last
line ending its sentence near the column's edge (01 p13: item "9. Sentence BERT." and the
paragraph "During hyperparameter optimization ..."): two requests, not one.

The page is a real PDF written with PyMuPDF; what is checked is what is sent to the model.
"""

from __future__ import annotations

import pymupdf

from tests.helpers.pdfgen.sheet import lines_at
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.paragraph import ParagraphKind

_ITEM = [
    "9. Sentence BERT. Sentence BERT is a general-domain",
    "pretrained model aimed at embedding sentences. The",
    "authors fine-tuned it using a triplet loss, where the",
    "positive sentences were taken from the same section",
    "as the seed sentence, to produce a final embedding.",
]
_NEXT = [
    "During hyperparameter optimization we chose how to",
    "compute the weights of the terms by taking several",
    "combinations of the parameters of the vectorizer.",
]
_PITCH = 13.5


def _page(space: float) -> bytes:
    """The item and the paragraph in a column 220 pt wide, ``space`` points of extra white
    between them."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = lines_at(page, 72, 100.0, _ITEM, 11, pitch=_PITCH)
    lines_at(page, 72, y + space, _NEXT, 11, pitch=_PITCH)
    data: bytes = doc.tobytes()
    return data


def _texts(space: float) -> list[tuple[ParagraphKind, str]]:
    paragraphs = extract_paragraphs(open_document(_page(space)))
    return [(p.kind, " ".join((p.label + p.text).split())) for p in paragraphs]


def test_a_paragraph_set_apart_after_a_list_item_is_its_own_request() -> None:
    texts = _texts(5.0)
    assert texts == [
        (ParagraphKind.LIST_ITEM, " ".join(_ITEM)),
        (ParagraphKind.BODY, " ".join(_NEXT)),
    ], texts


def test_lines_at_the_items_own_pitch_stay_in_the_item() -> None:
    """Without the space the next lines read on (nothing else tells them apart)."""
    (only,) = _texts(0.0)
    assert only == (ParagraphKind.LIST_ITEM, " ".join(_ITEM + _NEXT))
