"""The PDF engine on every paper of ../shared/corpus (skipped where the corpus is missing).

Each translatable paper is extracted, translated with the pseudo translator and rendered mono and
dual; a reader's checks follow. Big papers are translated on their first pages only (the other
pages are still read and written) to keep the suite fast.
"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from common.errors import EmptyPDFError, NotAPDFError, NoTextLayerError, PasswordRequiredError
from tests.fakes.pseudo import pseudo_translate, pseudo_words
from translation.outputs import render_dual
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.ocr import OcrMode, OcrOptions
from translation.read.segment import Paragraph, restore

pytestmark = pytest.mark.corpus

TRANSLATABLE = {
    "01": None,
    "02": None,
    "03": 5,  # pages translated (None = all)
    "04": None,
    "05": 5,
    "07": 5,
    "09": None,
    "12": None,
    "13": None,
}
PASSWORDS = {"11": "1234"}


def paper(corpus_dir: Path, number: str) -> bytes:
    (path,) = corpus_dir.glob(f"{number}_*.pdf")
    return path.read_bytes()


Spans = list[tuple[tuple[float, float, float, float], str]]


def page_spans(page: pymupdf.Page) -> Spans:
    return [
        (span["bbox"], span["text"])
        for block in page.get_text("dict")["blocks"]
        for line in block.get("lines", ())
        for span in line["spans"]
    ]


def words_in(spans: Spans, rect: tuple[float, float, float, float]) -> str:
    """The text of the spans whose centre lies in ``rect``, without whitespace."""
    x0, y0, x1, y1 = rect
    out = [
        text
        for (sx0, sy0, sx1, sy1), text in spans
        if x0 - 2 <= (sx0 + sx1) / 2 <= x1 + 2 and y0 - 2 <= (sy0 + sy1) / 2 <= y1 + 2
    ]
    return re.sub(r"\s+", "", "".join(out))


def translate(paragraphs: list[Paragraph]) -> dict[str, str]:
    return {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}


@pytest.mark.parametrize("number", sorted(TRANSLATABLE))
def test_paper_translates_to_mono_and_dual(corpus_dir: Path, number: str) -> None:
    data = paper(corpus_dir, number)
    doc = open_document(data)
    limit = TRANSLATABLE[number]
    pages = list(range(min(limit, doc.page_count))) if limit else None
    paragraphs = extract_paragraphs(doc, pages)
    assert len(paragraphs) >= (doc.page_count if pages is None else len(pages))
    for i, a in enumerate(paragraphs):  # boxes never overlap, so translations cannot either
        for b in paragraphs[i + 1 :]:
            if a.page == b.page:
                w = min(a.bbox[2], b.bbox[2]) - max(a.bbox[0], b.bbox[0])
                h = min(a.bbox[3], b.bbox[3]) - max(a.bbox[1], b.bbox[1])
                assert w <= 1 or h <= 1, (a.id, a.text[:40], b.id, b.text[:40])
    mono = render_mono(doc, paragraphs, translate(paragraphs), "ko")
    out = pymupdf.open(stream=mono)
    source = pymupdf.open(stream=data)
    assert out.page_count == source.page_count
    assert [p.rect for p in out] == [p.rect for p in source]
    assert len(mono) <= 1.3 * len(data) + 1_000_000

    present = clean = 0
    spans = {number: page_spans(out[number]) for number in {p.page for p in paragraphs}}
    for para in paragraphs:
        seen = words_in(spans[para.page], para.bbox)
        expected = pseudo_words(para.text, "ko")
        if sum(w in seen for w in expected) >= 0.9 * len(expected):
            present += 1
        source_words = [w for w in re.findall(r"[A-Za-z]{5,}", para.text)]
        if sum(w in seen for w in source_words) <= 0.1 * len(source_words):
            clean += 1
    assert present >= 0.95 * len(paragraphs)
    assert clean >= 0.95 * len(paragraphs)
    text = "".join(p.get_text() for p in out)
    assert not re.search(r"\{\s*[vV]\s*\d+\s*\}", text)

    dual = pymupdf.open(stream=render_dual(data, mono, "LR"))
    assert dual.page_count == source.page_count
    assert dual[0].rect.width == pytest.approx(source[0].rect.width * 2)


def visible_text(page: pymupdf.Page, rect: pymupdf.Rect) -> str:
    return "".join(
        chr(c[0])
        for trace in page.get_texttrace()
        if trace["type"] != 3
        for c in trace["chars"]
        if rect.intersects(c[3])
    )


def test_formulas_of_fonts_with_a_wrong_text_layer_keep_their_glyphs(corpus_dir: Path) -> None:
    """Paper 02 p5: MathTime fonts read "x_k = [c_k; w_k]" as "xk D ŒckI wk"; the formula is
    copied as it looks (its own glyphs, as vectors), never typeset from that text."""
    doc = open_document(paper(corpus_dir, "02"))
    paragraphs = extract_paragraphs(doc, [4])
    (para,) = [p for p in paragraphs if "token embedding" in p.text]
    (key,) = [k for k, v in para.placeholders.items() if "Œ" in v]
    assert key in para.glyph_formulas
    out = pymupdf.open(stream=render_mono(doc, paragraphs, translate(paragraphs), "ko"))
    fonts = {
        trace["font"]
        for trace in out[4].get_texttrace()
        if pymupdf.Rect(para.bbox).intersects(trace["bbox"])
        and any(chr(c[0]) == "Œ" for c in trace["chars"])
    }
    assert fonts and all("MathTime" in font or "MT" in font for font in fonts), fonts
    assert not out[4].get_image_info()


def test_display_equations_with_labels_stay_and_inline_math_is_copied(corpus_dir: Path) -> None:
    """Paper 04 p2: the aligned block "token ids (W) = {...}" is not translated; the inline
    "H = [h1, ..., hn]⊤ ∈ Rn×d" keeps its sub/superscripts (copied as glyphs)."""
    paragraphs = extract_paragraphs(open_document(paper(corpus_dir, "04")), [1])
    assert not any(label in p.text for p in paragraphs for label in ("token ids", "rank ids"))
    (para,) = [
        p for p in paragraphs if any(v.startswith("H = [h") for v in p.placeholders.values())
    ]
    assert all(key in para.glyph_formulas for key in para.placeholders)


def test_a_licence_sentence_across_the_footer_band_stays_whole(corpus_dir: Path) -> None:
    paragraphs = extract_paragraphs(open_document(paper(corpus_dir, "07")), [0])
    text = " ".join(p.text for p in paragraphs)
    assert "Any further distribution" not in text and "must maintain attribution" not in text


def test_highlighted_example_text_is_translated_with_its_paragraph(corpus_dir: Path) -> None:
    """Paper 05 p3: word highlights are not figures, so a paragraph with highlighted lines is
    translated whole, not its plain lines alone."""
    paragraphs = extract_paragraphs(open_document(paper(corpus_dir, "05")), [2])
    (para,) = [p for p in paragraphs if "whose disparate impact denied" in p.text]
    assert "Michigan state anti-discrimination law" in para.text
    assert "The EEOC sought injunctive relief" in para.text


def test_rotated_pages_come_out_right(corpus_dir: Path, test_output_dir: Path) -> None:
    """Pages 2-4 of paper 13 carry /Rotate 90, 180, 270: their translation sits where the
    original text was and runs in the same direction; the rotation itself is kept."""
    data = paper(corpus_dir, "13")
    doc = open_document(data)
    paragraphs = extract_paragraphs(doc, [1, 2, 3])
    out = pymupdf.open(stream=render_mono(doc, paragraphs, translate(paragraphs), "ko"))
    source = pymupdf.open(stream=data)
    for number, rotation in ((1, 90), (2, 180), (3, 270)):
        assert out[number].rotation == rotation
        source_dirs = {
            tuple(line["dir"])
            for block in source[number].get_text("dict")["blocks"]
            for line in block.get("lines", ())
        }
        hangul_dirs = {
            tuple(line["dir"])
            for block in out[number].get_text("dict")["blocks"]
            for line in block.get("lines", ())
            if any("\uac00" <= c <= "\ud7af" for s in line["spans"] for c in s["text"])
        }
        assert hangul_dirs and hangul_dirs <= source_dirs
        mine = [p for p in paragraphs if p.page == number]
        spans = page_spans(out[number])
        placed = sum(
            all(w in words_in(spans, p.bbox) for w in pseudo_words(p.text, "ko")) for p in mine
        )
        assert placed >= 0.9 * len(mine)
    out[1].get_pixmap(dpi=50).save(test_output_dir / "pdf-corpus13-rotate90-ko.png")


def test_scanned_paper_needs_ocr(corpus_dir: Path) -> None:
    # With OCR on (the default) it is read by OCR: tests/translation/read/ocr/test_ocr.py.
    with pytest.raises(NoTextLayerError, match="OCR"):
        open_document(paper(corpus_dir, "10"), ocr=OcrOptions(OcrMode.NEVER))


def test_encrypted_paper_needs_its_password(corpus_dir: Path) -> None:
    data = paper(corpus_dir, "11")
    with pytest.raises(PasswordRequiredError):
        open_document(data)
    with pytest.raises(PasswordRequiredError):
        open_document(data, "wrong")
    doc = open_document(data, PASSWORDS["11"])
    paragraphs = extract_paragraphs(doc)
    assert paragraphs
    mono = render_mono(doc, paragraphs, translate(paragraphs), "ko")
    dual = pymupdf.open(stream=render_dual(data, mono, "TB", password=PASSWORDS["11"]))
    assert dual.page_count == 2


def test_truncated_paper_is_empty(corpus_dir: Path) -> None:
    with pytest.raises(EmptyPDFError):
        open_document(paper(corpus_dir, "14"))


def test_not_a_pdf(corpus_dir: Path) -> None:
    with pytest.raises(NotAPDFError):
        open_document(paper(corpus_dir, "15"))


def test_permission_restricted_paper_opens_and_renders(corpus_dir: Path) -> None:
    data = paper(corpus_dir, "12")
    assert pymupdf.open(stream=data).metadata["encryption"]  # owner password, no user one
    doc = open_document(data)
    paragraphs = extract_paragraphs(doc)
    mono = render_mono(doc, paragraphs, translate(paragraphs), "ko")
    out = pymupdf.open(stream=mono)
    assert not out.metadata["encryption"]  # the translation is the user's own derived copy
    assert any("\uac00" <= c <= "\ud7af" for c in out[0].get_text())
