"""A paragraph set after a list item with space between them, not indented, the item's last
line ending its sentence near the column's edge (01 p13: item "9. Sentence BERT." and the
paragraph "During hyperparameter optimization ..."): two requests, not one.

A paragraph's lines are measured against the leading of their own size: a report set
double-spaced, each line a block of its own, beside tables set tight (135_zh), or a manual's
body beside its vertical examples (140_ja), keeps each paragraph one request.

The page is a real PDF written with PyMuPDF; what is checked is what is sent to the model.
"""

from __future__ import annotations

import pymupdf

from tests.helpers.pdfgen.sheet import lines_at, words_at
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


_REPORT = [
    "　　公司董事会、监事会及董事、监事、高级管理人员保证季度报告内容的真",
    "实、准确、完整，不存在虚假记载、误导性陈述或者重大遗漏，并承担个别和",
    "连带的法律责任。",
    "　　所有董事均已出席了审议本次季报的董事会会议。公司负责人及会计机构负",
    "责人声明：保证季度报告中财务报表的真实、准确、完整。",
]


def test_a_report_set_double_spaced_beside_tight_tables_keeps_its_paragraphs() -> None:
    """Origin: 135_zh p2: a quarterly report's paragraphs, 14 pt type on a 31 pt pitch, each
    line a block of its own, and its tables' rows at 9 pt set tight: measured against the
    tables' leading, each line was a request ("...保证季度报告内容的真" | "实、准确...")."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="china-s")
    y = 100.0
    for line in _REPORT:
        words_at(page, [(57, y, line, 14, "china-s")])
        y += 31
    for i in range(12):
        row = f"项目{i}    本报告期末    上年度末    增减变动幅度 {i}.{i}%"
        words_at(page, [(57, y + 20, row, 9, "china-s")])
        y += 11.7
    paragraphs = extract_paragraphs(open_document(doc.tobytes()))
    texts = [p.text for p in paragraphs]
    assert texts[:2] == [
        "".join(_REPORT[:3]).replace("　", ""),
        "".join(_REPORT[3:]).replace("　", ""),
    ], texts
