"""Vertical writing (issue 35, coverage you can account for): Japanese set in columns, top to
bottom, each glyph of which MuPDF reads as a line of its own.

- Read before: every glyph of a column, and every furigana or kanbun mark beside it, went out
  as a request of its own (corpus2 140: 40 fragments, a column spliced into a heading).
- Now: a stack of single CJK glyphs is one line running down the page, the small glyphs beside
  it its annotations; both are kept as printed (a level page's translation has no place for a
  column) and never join a level row; the prose around them is read as before.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from tests.helpers.pdfgen.sheet import words_at
from tests.helpers.pdfgen.typeset import render_page
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs, read_layout
from translation.read.pages.vertical_writing import DOWN

JA = pymupdf.Font("japan")
_COLUMN = "此乃信之所以為陛下禽也"
_NOTES = "ゆゑん"  # furigana beside the column, half its size
_PROSE = (
    "次の実例のとおり、後で使えるように漢文をあるマクロに保存し、新しい漢文段落を書き込み始められる。",
    "この機能を使う場合、必ず新しい版の処理系で実行してください。",
)


def _vertical_page() -> bytes:
    """Two lines of level Japanese prose, and under them a column of twelve glyphs set one
    under the other (as a TeX engine writes vertical text: one glyph a text object), with
    furigana beside it."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="ja", fontbuffer=JA.buffer)
    y = 100.0
    for line in _PROSE:
        words_at(page, [(72, y, line, 10, "ja")])
        y += 16.0
    top, size = 200.0, 12.0
    for k, char in enumerate(_COLUMN):
        words_at(page, [(300, top + (k + 1) * size - 1.5, char, size, "ja")])
    for k, char in enumerate(_NOTES):
        words_at(page, [(312, top + 3 * size + (k + 1) * 6, char, 6, "ja")])
    data: bytes = doc.tobytes()
    return data


def test_a_column_of_glyphs_is_one_line_down_the_page() -> None:
    layout = read_layout(pymupdf.open(stream=_vertical_page())[0])
    down = [ln for b in layout.blocks for ln in b.lines if ln.direction == DOWN]
    columns = ["".join(s.text for s in ln.spans) for ln in down]
    assert _COLUMN in columns, columns
    assert sorted(c for c in columns if c != _COLUMN) == sorted(_NOTES), columns
    assert all(s.mark for ln in down for s in ln.spans)  # kept as printed


def test_the_column_is_kept_as_printed_and_the_prose_sent() -> None:
    paragraphs, page = render_page(_vertical_page(), 0)
    texts = [p.text for p in paragraphs]
    assert len(texts) == 2 and texts[0].startswith("次の実例") and texts[1].startswith("この"), (
        texts
    )
    for text in texts:  # no glyph of the column or its furigana reaches a request
        assert not set(text) & set(_COLUMN + _NOTES) - set("の以"), text
    # The column stands where it was printed, glyph by glyph, in its own face.
    standing = page.get_text("text", clip=pymupdf.Rect(295, 195, 325, 350))
    assert "".join(standing.split()).startswith(_COLUMN[:6]), standing


def test_a_kanbun_specimen_is_no_request(corpus_dir: Path) -> None:
    """140 p6: the typeset kanbun specimen under the listing (two columns with their kana)
    went out glyph by glyph: fourteen requests of one to three characters."""
    path = corpus_dir.parent / "corpus2" / "140_ja_kanbun_vertical_luatex.pdf"
    if not path.exists():
        pytest.skip(f"corpus2 paper not found: {path}")
    paragraphs = extract_paragraphs(open_document(path.read_bytes()), pages=[5])
    below_listing = [p for p in paragraphs if min(r[1] for r in p.rects) > 450]
    assert below_listing == [], [p.text for p in below_listing]
    assert any("次の実例のとおり" in p.text for p in paragraphs)
