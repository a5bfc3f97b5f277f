"""/crop, /compare and /crop-compare geometry: columns cut apart and put side by side."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_translate
from tests.helpers.pdfgen.paper import BODY_WORDS, COLUMN, GUTTER, MARGIN_X, make_paper
from tests.helpers.pdfgen.sheet import lines_at
from translation.outputs import compare, crop_columns, crop_compare
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.segment import restore


def words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)}


def hangul(text: str) -> bool:
    return any("\uac00" <= c <= "\ud7af" for c in text)


def halves(page: pymupdf.Page) -> tuple[str, str]:
    """Text of the spans centred in the left and in the right half of a page (clipping does
    not stop extraction, so a line cut at the seam would show up on both sides)."""
    half = page.rect.width / 2
    left: list[str] = []
    right: list[str] = []
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", ()):
            for span in line["spans"]:
                x0, _, x1, _ = span["bbox"]
                (left if (x0 + x1) / 2 < half else right).append(span["text"])
    return " ".join(left), " ".join(right)


@pytest.fixture(scope="module")
def paper() -> tuple[bytes, bytes]:
    data, _ = make_paper(pages=2, appendix=False, seed=5)
    doc = open_document(data)
    paragraphs = extract_paragraphs(doc)
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    return data, render_mono(doc, paragraphs, translations, "ko")


def one_column_page() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    lines_at(page, 72, 80, ["A single column of ordinary text " * 2] * 20, 10, "helv", pitch=14)
    return bytes(doc.tobytes())


def test_two_column_pages_are_cut_into_their_columns(paper: tuple[bytes, bytes]) -> None:
    """Page 1 fills both columns and is cut in two; page 2 (the last) only uses the left
    column and stays whole."""
    source = pymupdf.open(stream=paper[0])
    out = pymupdf.open(stream=crop_columns(paper[0]))
    assert out.page_count == 3
    split = MARGIN_X + COLUMN + GUTTER / 2
    left, right, last = out
    assert left.rect.width == pytest.approx(split, abs=3)
    assert right.rect.width == pytest.approx(source[0].rect.width - split, abs=3)
    assert left.rect.height == right.rect.height == source[0].rect.height
    height = source[0].rect.height
    for page, area in ((left, (0, 0, split, height)), (right, (split, 0, 1e4, height))):
        assert words(page.get_text()) == words(source[0].get_text(clip=pymupdf.Rect(area)))
    assert last.rect == source[1].rect


def test_a_one_column_page_stays_whole() -> None:
    data = one_column_page()
    out = pymupdf.open(stream=crop_columns(data))
    assert out.page_count == 1
    assert out[0].rect == pymupdf.open(stream=data)[0].rect


def test_compare_puts_original_and_translation_side_by_side(paper: tuple[bytes, bytes]) -> None:
    data, mono = paper
    out = pymupdf.open(stream=compare(data, mono))
    width = pymupdf.open(stream=data)[0].rect.width
    page = out[0]
    assert page.rect.width == pytest.approx(2 * width)
    assert words(page.get_text(clip=pymupdf.Rect(0, 0, width, 1e4))) & set(BODY_WORDS)
    assert hangul(page.get_text(clip=pymupdf.Rect(width, 0, 2 * width, 1e4)))


def test_crop_compare_pairs_each_column_with_its_translation(
    paper: tuple[bytes, bytes], test_output_dir: Path
) -> None:
    data, mono = paper
    out = pymupdf.open(stream=crop_compare(data, mono))
    assert out.page_count == 3  # two columns of page 1, page 2 whole
    for page in out:
        left, right = halves(page)
        assert not hangul(left) and hangul(right)
        assert words(left) & set(BODY_WORDS) and not words(right) & set(BODY_WORDS)
    first = pymupdf.open(stream=crop_compare(data, mono, translation_first=True))[0]
    assert hangul(halves(first)[0])
    out[0].get_pixmap(dpi=50).save(test_output_dir / "pdf-crop-compare.png")


def _gray(pixmap: pymupdf.Pixmap) -> list[list[float]]:
    n = pixmap.n
    data = pixmap.samples
    return [
        [
            sum(data[(y * pixmap.width + x) * n + i] for i in range(n)) / n
            for x in range(pixmap.width)
        ]
        for y in range(pixmap.height)
    ]


def _mean_difference(a: list[list[float]], b: list[list[float]], x_offset: int) -> float:
    rows = range(len(b))
    cols = range(len(b[0]))
    total = sum(abs(a[y][x + x_offset] - b[y][x]) for y in rows for x in cols)
    return total / (len(b) * len(b[0]))


@pytest.mark.corpus
@pytest.mark.parametrize("build", ["compare", "crop_compare"])
def test_turned_pages_are_shown_the_way_they_read(corpus_dir: Path, build: str) -> None:
    """Pages written upright and turned by /Rotate 90, 180 and 270 (corpus 13) appear side by
    side upright, the way they read: whole, nothing cut off, the source left."""
    (path,) = corpus_dir.glob("13_*.pdf")
    data = path.read_bytes()
    source = pymupdf.open(stream=data)
    blank = pymupdf.open(stream=data)
    for page in blank:
        page.add_redact_annot(page.cropbox)
        page.apply_redactions()
    make = compare if build == "compare" else crop_compare
    out = pymupdf.open(stream=make(data, blank.tobytes()))
    turned = [n for n in range(source.page_count) if source[n].rotation]
    assert {source[n].rotation for n in turned} == {90, 180, 270}
    # crop_compare cuts the unturned two-column pages in two: find each turned page by size.
    shown: list[pymupdf.Page] = []
    offset = 0
    for number in range(source.page_count):
        if number in turned:
            shown.append(out[number + offset])
        elif build == "crop_compare":
            offset += 1  # this page became two pages, one per column
    assert len(shown) == len(turned)
    for number, page in zip(turned, shown, strict=True):
        source[number].set_rotation(0)
        original = _gray(source[number].get_pixmap(dpi=20))
        side_by_side = _gray(page.get_pixmap(dpi=20))
        assert len(side_by_side) == len(original)
        assert len(side_by_side[0]) >= 2 * len(original[0]) - 1
        assert _mean_difference(side_by_side, original, 0) < 1.0, f"page {number + 1}"
