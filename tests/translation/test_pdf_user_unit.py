"""A page with ``/UserUnit 2``: MuPDF reads it at twice its crop box's size, and the
translation is set in that same space, where the source text was and at its size."""

from __future__ import annotations

import functools

import pymupdf

from tests.fakes.pseudo import pseudo_translate
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.flow.passage import translated

_LINES = (
    "The method we propose reads every page of the paper and sends each paragraph",
    "to the model as one request, so that the sentences keep their context and the",
    "translation reads as one text; the layout of the page is kept as it was printed.",
)
# (font, top baseline in PDF units): one paragraph high on the page, one low (past the crop
# box's height once the page is read at twice its size), one in italics.
_PARAGRAPHS = (("tiro", 100.0), ("tiro", 600.0), ("tiit", 700.0))
_SIZE = 10.0


def _hangul(text: str) -> bool:
    return any("\uac00" <= c <= "\ud7af" for c in text)


@functools.cache
def _source() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    writer = pymupdf.TextWriter(page.rect)
    for name, top in _PARAGRAPHS:
        font = pymupdf.Font(name)
        for k, line in enumerate(_LINES):
            writer.append((72, top + 12 * k), line, font=font, fontsize=_SIZE)
    writer.write_text(page)
    doc.xref_set_key(page.xref, "UserUnit", "2")
    data: bytes = doc.tobytes()
    return data


def _line_boxes(page: pymupdf.Page, korean: bool) -> list[tuple[pymupdf.Rect, float]]:
    """(box, size) of the page's lines in Korean (``korean``) or in English."""
    found = []
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", ()):
            text = "".join(span["text"] for span in line["spans"])
            if text.strip() and _hangul(text) == korean:
                found.append((pymupdf.Rect(line["bbox"]), line["spans"][0]["size"]))
    return found


@functools.cache
def _rendered() -> bytes:
    data = _source()
    paragraphs = extract_paragraphs(open_document(data))
    texts = translated(paragraphs, lambda text: pseudo_translate(text, "ko"))
    return render_mono(open_document(data), paragraphs, texts, "ko")


def test_every_paragraph_of_a_user_unit_page_is_read() -> None:
    paragraphs = extract_paragraphs(open_document(_source()))
    assert [" ".join(p.text.split()) for p in paragraphs] == [" ".join(_LINES)] * 3


def test_the_translation_is_set_where_the_source_was_at_its_size() -> None:
    source = pymupdf.open(stream=_source())[0]
    page = pymupdf.open(stream=_rendered())[0]
    assert page.rect == source.rect == pymupdf.Rect(0, 0, 1190, 1684)
    assert not _line_boxes(page, korean=False), "English left on the page"
    english = _line_boxes(source, korean=False)
    korean = _line_boxes(page, korean=True)
    assert len(korean) >= len(_PARAGRAPHS) * 2
    for name, top in _PARAGRAPHS:
        # Each paragraph's block in page space (twice its PDF units) holds its translation.
        where = pymupdf.Rect(120, 2 * (top - _SIZE) - 4, 1190 - 144, 2 * (top + 24) + 8)
        was = [box for box, _ in english if box in where]
        now = [(box, size) for box, size in korean if box in where]
        assert len(was) == len(_LINES) and len(now) >= 2, (name, top, korean)
        left = min(box.x0 for box in was)
        assert all(abs(box.x0 - left) < 2 for box, _ in now), (name, now)
        assert all(box.x1 <= max(b.x1 for b in was) + 2 for box, _ in now), (name, now)
        assert all(1.6 * _SIZE < size <= 2 * _SIZE + 0.01 for _, size in now), (name, now)
