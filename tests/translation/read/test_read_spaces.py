"""Real spaces (issue 22 item 3): where a PDF draws no space glyphs, only gaps, the word spaces
are recovered from the gaps, for Korean and Latin text alike; Chinese gets none."""

from __future__ import annotations

import pymupdf

from tests.helpers.glyphs import dark_pixels, source_glyphs
from tests.helpers.pdfgen.sheet import words_at
from tests.helpers.pdfgen.typeset import glyph_boxes, translate
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.pages.word_gaps import with_gap_spaces

LATIN = "We read every paper whole and send each sentence to the model at once."
KOREAN = "이 보고서는 패키지를 이용하여 문서를 빠르게 검토하는 방법을 설명한다."
CHINESE = "我们 提出 一种 新的 方法 来 翻译 整篇 论文。"


def gap_only_page(lines: list[tuple[str, str, int]]) -> bytes:
    """A page whose lines (font, words, gap in thousandths of the font size) place each word
    with a TJ gap and draw no space glyph; Latin in Helvetica, the rest in a CJK font."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_font(fontname="helv")
    page.insert_font(fontname="cjk", fontbuffer=pymupdf.Font("cjk").buffer)
    words_at(page, [(0, 0, " ", 11, "helv")])  # gives the page a content stream
    cjk = pymupdf.Font("cjk")
    ops = []
    for i, (font, words, gap) in enumerate(lines):
        if font == "helv":
            parts = [f"({w})" for w in words.split()]
        else:
            parts = [
                "<" + "".join(f"{cjk.has_glyph(ord(c)):04x}" for c in w) + ">"
                for w in words.split()
            ]
        ops.append(f"BT /{font} 10 Tf 72 {600 - 40 * i} Td [{f' {-gap} '.join(parts)}] TJ ET")
    doc.update_stream(page.get_contents()[0], "\n".join(ops).encode())
    return bytes(doc.tobytes())


def test_word_spaces_come_back_from_the_gaps() -> None:
    data = gap_only_page([("helv", LATIN, 120), ("cjk", KOREAN, 250), ("cjk", CHINESE, 250)])
    texts = [p.text for p in extract_paragraphs(open_document(data))]
    assert texts == [LATIN, KOREAN, CHINESE.replace(" ", "")]


def test_letter_spacing_is_no_word_gap() -> None:
    char = lambda c, x: {"c": c, "origin": (x, 10.0), "bbox": (x, 0.0, x + 5.0, 12.0)}  # noqa: E731
    # Letters 0.5 apart (letter-spaced) and a word gap of 2.5, at size 10.
    chars = [char(c, x) for c, x in zip("abcde", (0.0, 5.5, 11.0, 18.5, 24.0), strict=True)]
    page = {"blocks": [{"lines": [{"dir": (1.0, 0.0), "spans": [{"size": 10.0, "chars": chars}]}]}]}
    span = with_gap_spaces(page)["blocks"][0]["lines"][0]["spans"][0]
    assert span["text"] == "abc de" and "chars" not in span


def test_a_formula_on_a_gap_spaced_line_is_copied_whole() -> None:
    """A glyph on a line whose spaces come from gaps keeps its own advance (not an even share
    of the span's width, spaces added): the formula's box is its glyph's, and the copy set in
    the translation shows all its ink.
    Origin: corpus2 146 p1 (old Hangul syllables without Unicode, copied half cut off)."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    words_at(page, [(0, 0, " ", 11, "helv")])  # gives the page a content stream
    words = "(illuminated) -110 (windows) -110 (minimize) -110 (W\\261W) -110 (when) -110 (WWWW)"
    ops = f"BT /helv 10 Tf 72 600 Td [{words} -110 (is) -110 (minimal.)] TJ ET"
    doc.update_stream(page.get_contents()[0], ops.encode())
    data = bytes(doc.tobytes())
    (para,) = extract_paragraphs(open_document(data))
    (source,) = source_glyphs(pymupdf.open(stream=data)[0], "±")
    ((x0, _, x1, _),) = para.formula_boxes["{v1}"]
    assert abs(x0 - source.x0) < 0.5 and abs(x1 - source.x1) < 0.5
    _, out = translate(data, "ko")
    (copied,) = glyph_boxes(out, "Helvetica", "±")
    ink = dark_pixels(pymupdf.open(stream=data)[0], source)
    assert ink > 0 and abs(dark_pixels(out, copied) - ink) <= 0.1 * ink
