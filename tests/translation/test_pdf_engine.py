"""The PDF engine end to end on generated papers: what a reader checks in the translated PDF.

Translations come from the same pseudo translator the fake vLLM uses, so every expected word
is known. Ground truth (where each paragraph, header, label and number is) comes from the
generator in tests/helpers/pdfgen.py.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from common.errors import (
    EmptyPDFError,
    InputError,
    NotAPDFError,
    NoTextLayerError,
    PasswordRequiredError,
)
from tests.fakes.pseudo import pseudo_translate, pseudo_words
from tests.helpers.pdfgen.paper import BODY_WORDS, REFERENCE_WORDS, Truth, make_paper
from translation.outputs import render_dual
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.ocr import OcrMode, OcrOptions
from translation.read.segment import Paragraph, ParagraphKind, restore

Rect = tuple[float, float, float, float]


# --- helpers ------------------------------------------------------------------------------


def translate(paragraphs: list[Paragraph], lang: str) -> dict[str, str]:
    return {p.id: restore(pseudo_translate(p.text, lang), p) for p in paragraphs}


def spans(page: pymupdf.Page) -> Iterator[tuple[dict[str, Any], tuple[float, float]]]:
    """Every text span with its line direction, in unrotated page coordinates."""
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                if span["text"].strip():
                    yield span, line["dir"]


def text_in(page: pymupdf.Page, rect: Rect, margin: float = 2.0) -> str:
    """The text of the spans whose centre lies in ``rect``, without whitespace."""
    x0, y0, x1, y1 = rect
    out = []
    for span, _ in spans(page):
        sx0, sy0, sx1, sy1 = span["bbox"]
        cx, cy = (sx0 + sx1) / 2, (sy0 + sy1) / 2
        if x0 - margin <= cx <= x1 + margin and y0 - margin <= cy <= y1 + margin:
            out.append(span["text"])
    return re.sub(r"\s+", "", "".join(out))


def page_words(page: pymupdf.Page) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]+", page.get_text())}


def normalized(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def overlap(a: Rect, b: Rect) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return max(0.0, w) * max(0.0, h)


def source_of(body_rect: Rect, page: int, paragraphs: list[Paragraph]) -> Paragraph | None:
    candidates = [p for p in paragraphs if p.page == page]
    best = max(candidates, key=lambda p: overlap(p.bbox, body_rect), default=None)
    return best if best is not None and overlap(best.bbox, body_rect) > 0 else None


def has_script(text: str, lang: str) -> bool:
    if lang == "ko":
        return any("\uac00" <= c <= "\ud7af" for c in text)
    if lang == "ja":
        return any("\u3040" <= c <= "\u30ff" for c in text)
    if lang == "zh":
        return any("\u4e00" <= c <= "\u9fff" for c in text)
    return "~" in text


def translated_fraction(
    out: pymupdf.Document, truth: Truth, paragraphs: list[Paragraph], lang: str
) -> float:
    """Share of the body paragraphs whose pseudo translation is there, inside their block."""
    found = 0
    for body in truth.body:
        source = source_of(body.rect, body.page, paragraphs)
        if source is None:
            continue
        expected = pseudo_words(source.text, lang)
        seen = text_in(out[body.page], body.rect)
        if expected and sum(w in seen for w in expected) >= 0.9 * len(expected):
            found += 1
    return found / len(truth.body)


# --- fixtures -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def paper() -> tuple[bytes, Truth]:
    return make_paper(pages=3, appendix=True, rotated_page=None)


@pytest.fixture(scope="module")
def extracted(paper: tuple[bytes, Truth]) -> list[Paragraph]:
    doc = open_document(paper[0])
    return extract_paragraphs(doc)


@pytest.fixture(scope="module")
def mono_ko(paper: tuple[bytes, Truth], extracted: list[Paragraph]) -> bytes:
    doc = open_document(paper[0])
    return render_mono(doc, extracted, translate(extracted, "ko"), "ko")


# --- extraction ---------------------------------------------------------------------------


def test_every_body_paragraph_is_extracted_whole(
    paper: tuple[bytes, Truth], extracted: list[Paragraph]
) -> None:
    """Each body paragraph comes out as one paragraph with its words in order, hyphenated
    line breaks joined and inline math behind placeholders."""
    _, truth = paper
    for body in truth.body:
        source = source_of(body.rect, body.page, extracted)
        assert source is not None, body.text
        as_text = dataclasses.replace(source, glyph_formulas=frozenset())  # no copy markers
        restored = normalized(restore(source.text, as_text))
        assert restored == normalized(body.text)
        assert set(body.math) <= {source.placeholders[k] for k in source.glyph_formulas}
        for formula in body.math:
            assert formula not in source.text  # protected...
            assert formula in source.placeholders.values()  # ...and kept


def test_nothing_but_body_headings_and_cells_is_extracted(
    paper: tuple[bytes, Truth], extracted: list[Paragraph]
) -> None:
    _, truth = paper
    texts = " ".join(p.text for p in extracted)
    assert "Journal of Synthetic Testing" not in texts
    assert not any(word in texts for word in REFERENCE_WORDS)
    assert not any(word in texts for word in ("Encoder", "Decoder", "Memory"))
    assert "81.25" not in texts and "85.60" not in texts
    assert truth.equation not in texts
    assert not any(p.text.strip().isdigit() for p in extracted)


def test_reading_order_is_left_column_then_right(
    paper: tuple[bytes, Truth], extracted: list[Paragraph]
) -> None:
    _, truth = paper
    order = [
        extracted.index(p)
        for body in truth.body
        if (p := source_of(body.rect, body.page, extracted)) is not None
    ]
    assert order == sorted(order)  # the generator fills left column, right column, next page


def test_references_are_skipped_and_the_appendix_is_translated(
    paper: tuple[bytes, Truth], extracted: list[Paragraph]
) -> None:
    _, truth = paper
    kinds = {p.kind for p in extracted}
    assert ParagraphKind.REFERENCE not in kinds
    assert any("Appendix text explains" in p.text for p in extracted)
    doc = open_document(paper[0])
    with_refs = extract_paragraphs(doc, include_references=True)
    refs = [p for p in with_refs if p.kind == ParagraphKind.REFERENCE and p.text != "References"]
    assert len(refs) == len(truth.references)
    for (_, entry), para in zip(truth.references, refs, strict=True):
        assert normalized(para.text) == normalized(entry)


def test_page_selection_keeps_the_references_state(paper: tuple[bytes, Truth]) -> None:
    """Asking for the last page only still knows that the references started there."""
    doc = open_document(paper[0])
    last = extract_paragraphs(doc, pages=[2])
    assert {p.page for p in last} == {2}
    assert not any(word in p.text for p in last for word in REFERENCE_WORDS)
    assert any("Appendix text" in p.text for p in last)


# --- mono output --------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["ko", "zh", "ja", "de"])
def test_mono_has_the_translation_of_every_body_paragraph_in_its_block(
    paper: tuple[bytes, Truth], extracted: list[Paragraph], lang: str
) -> None:
    data, truth = paper
    doc = open_document(data)
    out = pymupdf.open(stream=render_mono(doc, extracted, translate(extracted, lang), lang))
    assert translated_fraction(out, truth, extracted, lang) >= 0.95


def test_mono_leaves_no_source_body_text(mono_ko: bytes) -> None:
    out = pymupdf.open(stream=mono_ko)
    for page in out:
        left = page_words(page) & set(BODY_WORDS)
        assert not left, f"page {page.number}: {sorted(left)[:10]}"
        assert page.search_for("generalization") == []


def test_mono_keeps_headers_page_numbers_labels_numbers_and_equation(
    paper: tuple[bytes, Truth], mono_ko: bytes
) -> None:
    _, truth = paper
    out = pymupdf.open(stream=mono_ko)
    assert truth.kept
    for page, what, rect in truth.kept:
        expected = re.sub(r"\s+", "", what.split(":", 1)[1])
        assert text_in(out[page], rect) == expected, what


def test_mono_keeps_the_references_untouched(paper: tuple[bytes, Truth], mono_ko: bytes) -> None:
    _, truth = paper
    out = pymupdf.open(stream=mono_ko)
    for page, entry in truth.references:
        assert normalized(entry) in normalized(out[page].get_text())


def test_inline_formulas_come_back_intact(
    paper: tuple[bytes, Truth], extracted: list[Paragraph], mono_ko: bytes
) -> None:
    _, truth = paper
    out = pymupdf.open(stream=mono_ko)
    formulas = [(b, m) for b in truth.body for m in b.math]
    assert formulas
    for body, formula in formulas:
        assert formula in text_in(out[body.page], body.rect)
    text = "".join(page.get_text() for page in out)
    assert not re.search(r"\{\s*[vV]\s*\d+\s*\}", text)  # no placeholder leaked


def test_inline_formulas_are_copied_as_their_glyphs(
    paper: tuple[bytes, Truth], mono_ko: bytes
) -> None:
    """Formulas in a math font keep their look (sub/superscripts in place): their glyphs are
    copied as vectors (no picture), keep their text, and no marker character leaks."""
    _, truth = paper
    out = pymupdf.open(stream=mono_ko)
    for body in truth.body:
        if not body.math:
            continue
        page = out[body.page]
        assert not page.get_image_info(), body.text
        for formula in body.math:
            assert formula in text_in(page, body.rect)
    text = "".join(page.get_text() for page in out)
    assert not any(ord(c) >= 0xF0000 for c in text)


def test_translated_text_stays_inside_its_block(
    paper: tuple[bytes, Truth], extracted: list[Paragraph], mono_ko: bytes
) -> None:
    """No translated line spills out of its paragraph's box or over anything kept."""
    _, truth = paper
    out = pymupdf.open(stream=mono_ko)
    kept = [(page, rect) for page, _, rect in truth.kept]
    for page in out:
        boxes = [p.bbox for p in extracted if p.page == page.number]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert overlap(a, b) < 1.0, (a, b)
        for span, _ in spans(page):
            if not has_script(span["text"], "ko"):
                continue
            x0, y0, x1, y1 = span["bbox"]
            h = y1 - y0
            glyphs = (x0, y0 + 0.25 * h, x1, y1 - 0.25 * h)  # ascent/descent boxes are loose
            assert any(
                b[0] - 1 <= glyphs[0]
                and glyphs[2] <= b[2] + 1
                and b[1] - 2 <= glyphs[1]
                and glyphs[3] <= b[3] + 2
                for b in boxes
            ), (page.number, span["text"], span["bbox"])
            for kept_page, rect in kept:
                if kept_page == page.number:
                    assert overlap(glyphs, rect) == 0, (span["text"], rect)


def test_mono_keeps_pages_and_sizes(paper: tuple[bytes, Truth], mono_ko: bytes) -> None:
    source = pymupdf.open(stream=paper[0])
    out = pymupdf.open(stream=mono_ko)
    assert out.page_count == source.page_count
    assert [p.rect for p in out] == [p.rect for p in source]


def test_the_font_is_embedded_once_and_subset(mono_ko: bytes) -> None:
    out = pymupdf.open(stream=mono_ko)
    droid: dict[int, str] = {}
    pages_using = 0
    for page in out:
        fonts = [f for f in page.get_fonts() if "Droid" in f[3]]
        pages_using += bool(fonts)
        for xref, ext, _, name, *_ in fonts:
            droid[xref] = name
            assert ext != "n/a"  # embedded
    assert pages_using == out.page_count
    assert len(droid) == 1
    assert "+" in next(iter(droid.values()))  # subset prefix


def test_include_references_translates_them(paper: tuple[bytes, Truth]) -> None:
    data, truth = paper
    doc = open_document(data)
    paragraphs = extract_paragraphs(doc, include_references=True)
    out = pymupdf.open(stream=render_mono(doc, paragraphs, translate(paragraphs, "ko"), "ko"))
    text = "".join(p.get_text() for p in out)
    assert not any(word in text for word in REFERENCE_WORDS)
    assert "Journal of Synthetic Testing" in text  # still not the header


def test_paragraphs_without_translation_stay(paper: tuple[bytes, Truth]) -> None:
    data, _ = paper
    doc = open_document(data)
    paragraphs = extract_paragraphs(doc)
    first = paragraphs[0]
    translations = translate(paragraphs[1:], "ko")
    out = pymupdf.open(stream=render_mono(doc, paragraphs, translations, "ko"))
    assert normalized(first.text) in normalized(out[first.page].get_text())


# --- dual ---------------------------------------------------------------------------------


def test_dual_lr_puts_original_and_translation_side_by_side(
    paper: tuple[bytes, Truth], mono_ko: bytes
) -> None:
    source = pymupdf.open(stream=paper[0])
    out = pymupdf.open(stream=render_dual(paper[0], mono_ko, "LR"))
    assert out.page_count == source.page_count
    for page, src in zip(out, source, strict=True):
        assert page.rect.width == pytest.approx(2 * src.rect.width)
        assert page.rect.height == pytest.approx(src.rect.height)
        left = page.get_text(clip=pymupdf.Rect(0, 0, src.rect.width, src.rect.height))
        right = page.get_text(clip=pymupdf.Rect(src.rect.width, 0, page.rect.width, 1e4))
        assert page_words_of(left) & set(BODY_WORDS)
        assert not page_words_of(right) & set(BODY_WORDS)
        assert has_script(right, "ko")
    swapped = pymupdf.open(stream=render_dual(paper[0], mono_ko, "LR", translation_first=True))
    left = swapped[0].get_text(clip=pymupdf.Rect(0, 0, source[0].rect.width, 1e4))
    assert has_script(left, "ko")


def page_words_of(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)}


def test_dual_tb_alternates_pages(paper: tuple[bytes, Truth], mono_ko: bytes) -> None:
    source = pymupdf.open(stream=paper[0])
    out = pymupdf.open(stream=render_dual(paper[0], mono_ko, "TB"))
    assert out.page_count == 2 * source.page_count
    for i, page in enumerate(out):
        assert page.rect == source[i // 2].rect
        assert has_script(page.get_text(), "ko") == (i % 2 == 1)
    flipped = pymupdf.open(stream=render_dual(paper[0], mono_ko, "tb", translation_first=True))
    assert has_script(flipped[0].get_text(), "ko")


def test_dual_rejects_an_unknown_mode(paper: tuple[bytes, Truth], mono_ko: bytes) -> None:
    with pytest.raises(InputError, match="LR or TB"):
        render_dual(paper[0], mono_ko, "XY")


# --- rotated pages ------------------------------------------------------------------------


def test_a_rotated_page_is_translated_in_place_and_in_the_same_direction(
    test_output_dir: Path,
) -> None:
    data, truth = make_paper(pages=3, rotated_page=1, seed=11)
    doc = open_document(data)
    paragraphs = extract_paragraphs(doc)
    source = pymupdf.open(stream=data)
    source_dirs = {tuple(d) for _, d in spans(source[1])}
    out = pymupdf.open(stream=render_mono(doc, paragraphs, translate(paragraphs, "ko"), "ko"))
    assert out[1].rotation == 90
    assert translated_fraction(out, truth, paragraphs, "ko") >= 0.95
    dirs = {tuple(d) for s, d in spans(out[1]) if has_script(s["text"], "ko")}
    assert dirs and dirs <= source_dirs
    out[1].get_pixmap(dpi=60).save(test_output_dir / "pdf-rotated-page-ko.png")


# --- bad input ----------------------------------------------------------------------------


def test_garbage_is_not_a_pdf() -> None:
    with pytest.raises(NotAPDFError):
        open_document(b"hello, this is not a PDF at all")
    with pytest.raises(NotAPDFError):
        open_document(b"")
    with pytest.raises(NotAPDFError):
        open_document(b"%PDF-1.4\nnot really\n%%EOF")


def test_a_truncated_pdf_has_no_pages(paper: tuple[bytes, Truth]) -> None:
    data = make_paper(pages=2, seed=3)[0]
    doc = pymupdf.open(stream=data)
    plain = doc.tobytes(garbage=0, deflate=False, use_objstms=0)
    with pytest.raises((EmptyPDFError, NotAPDFError)) as info:
        open_document(plain[: len(plain) // 20])
    assert "pages" in str(info.value) or "PDF" in str(info.value)


def test_password_protected_pdf_needs_the_password(paper: tuple[bytes, Truth]) -> None:
    doc = pymupdf.open(stream=paper[0])
    locked = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="s3cret", owner_pw="own")
    with pytest.raises(PasswordRequiredError, match="password"):
        open_document(locked)
    with pytest.raises(PasswordRequiredError, match="wrong password"):
        open_document(locked, "nope")
    opened = open_document(locked, "s3cret")
    paragraphs = extract_paragraphs(opened)
    assert paragraphs
    mono = render_mono(opened, paragraphs, translate(paragraphs, "ko"), "ko")
    assert not pymupdf.open(stream=mono).needs_pass
    dual = pymupdf.open(stream=render_dual(locked, mono, "LR", password="s3cret"))
    assert dual.page_count == opened.page_count


def test_owner_password_only_pdf_translates(paper: tuple[bytes, Truth]) -> None:
    doc = pymupdf.open(stream=paper[0])
    restricted = doc.tobytes(
        encryption=pymupdf.PDF_ENCRYPT_AES_128,
        owner_pw="owner",
        permissions=pymupdf.PDF_PERM_PRINT,
    )
    opened = open_document(restricted)
    paragraphs = extract_paragraphs(opened)
    out = pymupdf.open(stream=render_mono(opened, paragraphs, translate(paragraphs, "ko"), "ko"))
    assert has_script(out[0].get_text(), "ko")


def test_a_scanned_pdf_has_no_text_layer() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    pix = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 40, 40), False)
    pix.clear_with(200)
    page.insert_image(page.rect, pixmap=pix)
    # With OCR on (the default) such a page is read by OCR: tests/translation/read/ocr/test_ocr.py.
    with pytest.raises(NoTextLayerError, match="OCR"):
        open_document(doc.tobytes(), ocr=OcrOptions(OcrMode.NEVER))
