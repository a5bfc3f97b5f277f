"""Regions that must be sent (issue 23 item 2): every body region reaches the model in every
source language, short headings and captions included, and a title stays a title. Each test
sets a real PDF page with PyMuPDF and reads what the pipeline sends."""

from __future__ import annotations

import struct
from functools import cache

import pymupdf

from tests.fakes.pseudo import pseudo_translate
from tests.helpers.pdfgen.sheet import lines_at, words_at
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_document
from translation.read.math.formulas import restore
from translation.read.paragraph import Paragraph, ParagraphKind

KOREAN_BODY = (
    "본 연구에서는 새로운 방법을 제안한다. 이 방법은 기존의 방법보다 빠르고 정확하다.",
    "실험 결과는 제안한 방법이 여러 데이터에서 좋은 성능을 보임을 보여준다.",
)
JAPANESE_BODY = (
    "本研究では新しい手法を提案する。この手法は従来の手法よりも高速かつ正確である。",
    "実験の結果、提案手法が多くのデータで良い性能を示すことが分かった。",
)


@cache
def fixed_pitch_cjk() -> bytes:
    """PyMuPDF's CJK font declaring itself fixed-pitch, as MS Gothic, MS Mincho, GulimChe and
    BatangChe do (their ideographs are all one em wide): MuPDF then flags its spans
    monospaced."""
    font = bytearray(pymupdf.Font("japan").buffer)
    (tables,) = struct.unpack(">H", font[4:6])
    for i in range(tables):
        tag, _, offset, _ = struct.unpack(">4sIII", font[12 + 16 * i : 28 + 16 * i])
        if tag == b"post":
            font[offset + 12 : offset + 16] = struct.pack(">I", 1)  # isFixedPitch
            return bytes(font)
    raise AssertionError("the CJK font has no post table")


def read(data: bytes) -> list[Paragraph]:
    return extract_document(open_document(data)).paragraphs


def cjk_page(body_font: str, body: tuple[str, ...], heads: list[str], captions: list[str]) -> bytes:
    """Headings and captions in a fixed-pitch CJK face (a Word document's Gothic), body text
    in a proportional one; a ruled table of numbers under the table caption and a picture
    above the figure caption."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="gothic", fontbuffer=fixed_pitch_cjk())
    y = 90.0
    for head in heads:
        words_at(page, [(72, y, head, 11, "gothic")])
        y = lines_at(page, 72, y + 20, body, 10, body_font, pitch=14) + 8
    table_caption, figure_caption = captions
    words_at(page, [(200, y, table_caption, 9, "gothic")])
    y += 8
    page.draw_line((200, y), (420, y))
    y += 13
    for cells in (("A", "81.2", "79.4"), ("B", "85.3", "83.1"), ("C", "87.1", "84.9")):
        for x, cell in zip((205, 290, 360), cells, strict=True):
            words_at(page, [(x, y, cell, 9, "helv")])
        y += 13
    page.draw_line((200, y - 8), (420, y - 8))
    y += 10
    page.draw_rect((200, y, 400, y + 80), color=(0, 0, 0), fill=(0.8, 0.8, 0.9))
    y += 95
    words_at(page, [(200, y, figure_caption, 9, "gothic")])
    y += 20
    y = lines_at(page, 72, y, body, 10, body_font, pitch=14)
    return bytes(doc.tobytes())


def kinds(paragraphs: list[Paragraph]) -> dict[str, ParagraphKind]:
    return {p.text: p.kind for p in paragraphs}


def test_korean_short_headings_and_captions_in_a_fixed_pitch_face_are_sent() -> None:
    heads = ["1. 서론", "2.1 실험 설정", "결론"]
    captions = ["표 1. 실험 결과", "그림 1. 모델 구조"]
    sent = kinds(read(cjk_page("korea", KOREAN_BODY, heads, captions)))
    for head in heads:
        assert sent.get(head) == ParagraphKind.HEADING, (head, sent)
    for caption in captions:
        assert sent.get(caption) == ParagraphKind.CAPTION, (caption, sent)


def test_japanese_short_headings_and_captions_in_a_fixed_pitch_face_are_sent() -> None:
    heads = ["1. はじめに", "2.1 実験設定", "結論"]
    captions = ["表1 実験結果", "図1 モデルの構造"]
    sent = kinds(read(cjk_page("japan", JAPANESE_BODY, heads, captions)))
    for head in heads:
        assert sent.get(head) == ParagraphKind.HEADING, (head, sent)
    for caption in captions:
        assert sent.get(caption) == ParagraphKind.CAPTION, (caption, sent)


def test_a_title_repeated_in_the_running_head_is_sent_as_the_title_on_page_one() -> None:
    title = "Careful Evaluation of Synthetic Benchmarks"
    lines = (
        "We describe a careful method for the evaluation of the models that we study in this",
        "paper, and we compare it with the previous approaches on several of the datasets that",
        "are common in the field, with results that support the main hypothesis of the work.",
    )
    doc = pymupdf.open()
    for number in range(3):
        page = doc.new_page(width=595, height=842)
        if number == 0:
            width = pymupdf.get_text_length(title, "tibo", 16)
            words_at(page, [((595 - width) / 2, 80, title, 16, "tibo")])
            y = 130.0
        else:  # the running head: the title again, small and in italics
            width = pymupdf.get_text_length(title, "tiit", 8)
            words_at(page, [((595 - width) / 2, 40, title, 8, "tiit")])
            y = 90.0
        for _ in range(4):
            y = lines_at(page, 72, y, lines, 10, pitch=12.5)
            y += 8
        words_at(page, [(290, 805, str(number + 1), 9, "tiro")])
    paragraphs = read(bytes(doc.tobytes()))
    titles = [p for p in paragraphs if p.text == title]
    assert [(p.page, p.kind) for p in titles] == [(0, ParagraphKind.HEADING)]
    assert paragraphs[0].text == title  # first, where the reader meets it


def _body(page: pymupdf.Page, x: float) -> None:
    """Four paragraphs of PROSE from ``x``, below the band where rows recurring page after
    page are running heads (the same text on every page would be one)."""
    y = 140.0
    for _ in range(4):
        y = lines_at(page, x, y, PROSE, 10, pitch=12.5)
        y += 8


def test_a_running_heads_last_line_beside_the_page_number_is_not_sent() -> None:
    """ACM's odd pages (2203.00130): the title runs over two lines of the head, its last word
    alone on the second, the page number at the right on that line; MuPDF cuts that line into
    two cells, and a recurring cell was taken for a table's header cell and sent each time."""
    head = "Paper Plain: Making Medical Research Papers Approachable to Healthcare Consumers with"
    doc = pymupdf.open()
    for number in range(8):
        page = doc.new_page(width=612, height=792)
        if number % 2:
            words_at(
                page,
                [
                    (73, 75, head, 9, "tiro"),
                    (73, 86, "Processing", 9, "tiro"),
                    (498, 86, str(number + 1), 9, "tiro"),
                ],
            )
        else:
            words_at(page, [(110, 79, str(number + 1), 9, "tiro")])
        _body(page, 73.0)
    sent = [p.text for p in read(bytes(doc.tobytes()))]
    assert not [t for t in sent if "Processing" in t or "Healthcare" in t], sent
    assert " ".join(sent).count("We describe a careful method") == 32  # the body, all of it


def test_a_running_head_cut_in_two_at_its_gap_is_not_sent() -> None:
    """ACM's heads: the venue at the left and "Chang et al." (or the short title) at the
    right of one line, set just below the band kept for heads; the line is cut into two cells,
    which recur page after page with running text, not a table, under them."""
    doc = pymupdf.open()
    for number in range(8):
        page = doc.new_page(width=612, height=792)
        venue = "CHI '23, April 23-28, 2023, Hamburg, Germany"
        other = "Chang et al." if number % 2 else "CiteSee: Augmenting Citations in Papers"
        words_at(page, [(54, 68, venue if number % 2 else other, 7, "tiro")])
        right = other if number % 2 else venue
        x = 558 - pymupdf.get_text_length(right, "tiro", 7)
        words_at(page, [(x, 68, right, 7, "tiro")])
        if number == 5:  # a table at the page's head, under the running head
            for k, (name, count) in enumerate(
                (("Action", "Count"), ("Opens", "12"), ("Saves", "7"))
            ):
                words_at(
                    page,
                    [(430, 90 + 11 * k, name, 8, "tiro"), (520, 90 + 11 * k, count, 8, "tiro")],
                )
        _body(page, 54.0)
    sent = [p.text for p in read(bytes(doc.tobytes()))]
    assert not [t for t in sent if "Chang et al." in t or "Hamburg" in t or "CiteSee" in t], sent
    assert " ".join(sent).count("We describe a careful method") == 32  # the body, all of it


PROSE = (
    "We describe a careful method for the evaluation of the models that we study in this",
    "paper, and we compare it with the previous approaches on several of the datasets that",
    "are common in the field, with results that support the main hypothesis of the work.",
)


def test_a_free_text_note_is_left_as_it_is_and_never_overprinted() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 90.0
    for _ in range(4):
        y = lines_at(page, 72, y, PROSE, 10, pitch=12.5)
        y += 8
    note = "Reviewer note: this claim needs a citation here"
    box = pymupdf.Rect(430, 95, 570, 140)
    page.add_freetext_annot(box, note, fontsize=8).update()  # no fill: see-through
    page.add_text_annot((80, 85), "Sticky note: please rephrase this paragraph")
    data = bytes(doc.tobytes())
    paragraphs = read(data)
    assert len(paragraphs) == 4
    assert not [p.text for p in paragraphs if "note" in p.text.lower()]

    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    out = pymupdf.open("pdf", render_mono(open_document(data), paragraphs, translations, "ko"))
    notes = {a.type[1]: a.info["content"] for a in out[0].annots()}
    assert notes == {"FreeText": note, "Text": "Sticky note: please rephrase this paragraph"}
    # Inside the note only its own words: no translation under it or beside it.
    inside = out[0].get_text("words", clip=box)
    assert " ".join(w[4] for w in inside) == note
    body = out[0].get_text("text", clip=(60, 80, 420, 270))
    assert "careful" not in body and sum("\uac00" <= c <= "\ud7af" for c in body) > 200


def test_a_word_comment_balloon_is_left_as_it_is_and_never_overprinted() -> None:
    """Word prints a comment as part of the page: a filled balloon in the right margin, tied
    to its place in the text by a dotted line."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 90.0
    for _ in range(2):
        y = lines_at(page, 60, y, PROSE, 10, pitch=12.5)
        y += 8
    short = "The results of the study are shown in the next section."
    words_at(page, [(60, y, short, 10, "tiro")])
    balloon = pymupdf.Rect(440, y - 12, 580, y + 14)
    page.draw_rect(balloon, color=(0.8, 0.2, 0.2), fill=(1, 0.9, 0.9), width=0.5)
    comment = ("Comment [AB1]: which section?", "Please give its number here.")
    words_at(page, [(444, y - 3, comment[0], 7, "helv"), (444, y + 7, comment[1], 7, "helv")])
    page.draw_line((330, y + 2), (440, y - 8), color=(0.8, 0.2, 0.2), dashes="[1 1] 0")
    data = bytes(doc.tobytes())
    paragraphs = read(data)
    assert [p.text for p in paragraphs if "Comment" in p.text or "Please" in p.text] == []
    assert paragraphs[-1].text == short

    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    out = pymupdf.open("pdf", render_mono(open_document(data), paragraphs, translations, "ko"))
    inside = out[0].get_text("words", clip=balloon)
    assert " ".join(w[4] for w in inside) == " ".join(comment)
    assert "careful" not in out[0].get_text("text", clip=(50, 80, 435, y + 20))


def test_a_note_of_whom_to_write_to_keeps_its_names() -> None:
    """value-error p1's footnote: "Correspondence to: Jishnu Ray Chowdhury, Yong Zhuang, Shuyi
    Wang." went out with the names, and 2203.00130's "Authors' addresses: ..."; a label with a
    sentence after it still does."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = 100.0
    y = lines_at(page, 72, y, PROSE, 10, pitch=12.5)
    page.draw_line((72, 700), (200, 700), width=0.4)
    note = "Correspondence to: Jishnu Ray Chowdhury, Yong Zhuang, Shuyi Wang."
    addresses = "Authors' addresses: Tal August, University of Washington, Seattle, USA."
    public = "Note: the data are public and free to use."
    notes = [
        (72, 712, note, 8, "tiro"),
        (72, 724, public, 8, "helv"),
        (72, 680, addresses, 7, "helv"),
    ]
    words_at(page, notes)
    sent = [p.text for p in read(bytes(doc.tobytes()))]
    assert not [t for t in sent if "Chowdhury" in t or "Tal August" in t], sent
    assert any("data are public" in t for t in sent), sent


def test_a_labelled_list_of_words_the_paper_uses_is_sent_as_keywords() -> None:
    """A label's title-case list whose words the paper prints in lower case is keywords, not
    names: sent. The names of a correspondence note still are not. Origin: corpus2 112's
    "Keywords: Answer Validation, Recognizing Textual Entailment, ..." and 118's "Chapter 4:
    Hardware Dependencies (And Other Complications)" were kept as author names."""
    body = (
        "We study answer validation as a case of recognizing textual entailment, where the",
        "information synthesis of several answers helps; the hardware dependencies of the",
        "system and its other complications are left to the appendix of this short report.",
    )
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    keywords = "Keywords: Answer Validation, Recognizing Textual Entailment, Information Synthesis"
    chapter = "Chapter 4: Hardware Dependencies, Other Complications"
    note = "Correspondence to: Jishnu Ray Chowdhury, Yong Zhuang, Shuyi Wang."
    words_at(page, [(72, 90, keywords, 10, "tiro"), (72, 120, chapter, 10, "tiro")])
    lines_at(page, 72, 160, body * 3, 10, pitch=12.5)
    page.draw_line((72, 700), (200, 700), width=0.4)
    words_at(page, [(72, 712, note, 8, "tiro")])
    sent = [p.text for p in read(bytes(doc.tobytes()))]
    assert any("Answer Validation, Recognizing Textual Entailment" in t for t in sent), sent
    assert any("Hardware Dependencies" in t for t in sent), sent
    assert not [t for t in sent if "Chowdhury" in t], sent
