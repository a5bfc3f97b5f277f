"""The dual (LR) output on turned pages: the source left, its translation right, both upright,
on every page whatever its /Rotate."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from tests.fakes.pseudo import pseudo_translate
from translation.outputs import render_dual
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.segment import restore

SENTENCE = "The source text of this page reads from left to right in English words"


def hangul(text: str) -> bool:
    return any("\uac00" <= c <= "\ud7af" for c in text)


def english(text: str) -> bool:
    return bool(re.search(r"[A-Za-z]{4,}", text))


def sides(page: pymupdf.Page) -> tuple[str, str, list[tuple[float, float]]]:
    """The text of the lines in the left and the right half of a dual page, and the writing
    direction of every line as the page shows it."""
    half = page.rect.width / 2
    left: list[str] = []
    right: list[str] = []
    directions: list[tuple[float, float]] = []
    for block in page.get_text("dict")["blocks"]:
        for line in block.get("lines", ()):
            text = "".join(span["text"] for span in line["spans"]).strip()
            if len(text) < 3:
                continue
            x0, _, x1, _ = line["bbox"]
            (left if (x0 + x1) / 2 < half else right).append(text)
            directions.append((round(line["dir"][0]), round(line["dir"][1])))
    return " ".join(left), " ".join(right), directions


def assert_source_left(dual: bytes, mono: bytes) -> None:
    """Every page of ``dual`` shows English left, and right the Korean its ``mono`` page has
    (a page of references has none), all upright."""
    translated = [hangul(page.get_text()) for page in pymupdf.open(stream=mono)]
    for number, page in enumerate(pymupdf.open(stream=dual)):
        assert page.rotation == 0
        left, right, directions = sides(page)
        assert english(left) and not hangul(left), f"page {number + 1}: {left[:80]!r}"
        assert hangul(right) == translated[number], f"page {number + 1}: {right[:80]!r}"
        upright = sum(d == (1, 0) for d in directions)
        assert upright >= 0.9 * len(directions), f"page {number + 1} is not upright"


@pytest.mark.corpus
def test_the_dual_of_turned_pages_has_the_source_left(
    corpus_dir: Path, test_output_dir: Path
) -> None:
    """Corpus 13 is written upright, pages 2-4 stored with /Rotate 90, 180, 270: on every dual
    page the English source is left, the Korean translation right, both reading upright."""
    (path,) = corpus_dir.glob("13_*.pdf")
    data = path.read_bytes()
    doc = open_document(data)
    paragraphs = extract_paragraphs(doc)
    translations = {p.id: restore(pseudo_translate(p.text, "ko"), p) for p in paragraphs}
    mono = render_mono(doc, paragraphs, translations, "ko")
    dual = render_dual(data, mono)
    assert_source_left(dual, mono)
    assert sum(hangul(pymupdf.open(stream=mono)[n].get_text()) for n in (1, 2, 3)) == 3
    pymupdf.open(stream=dual)[2].get_pixmap(dpi=40).save(test_output_dir / "dual-rotate-180.png")


def _write(page: pymupdf.Page, turn: int, korean: bool) -> None:
    """Lines that a viewer of ``page`` sees upright after turning the page by ``turn``."""
    for i in range(12):
        spot = pymupdf.Point(60, 80 + 20 * i) * page.derotation_matrix
        if korean:
            text = "이 페이지의 번역은 오른쪽에 있습니다"
            page.insert_text(spot, text, fontsize=11, fontname="korea", rotate=turn)
        else:
            page.insert_text(spot, SENTENCE, fontsize=11, rotate=turn)


@pytest.mark.parametrize(
    ("rotation", "written"),
    [(180, "upright"), (90, "upright"), (270, "upright"), (90, "sideways"), (270, "sideways")],
)
def test_a_turned_page_reads_with_its_source_left(rotation: int, written: str) -> None:
    """A page stored upright under /Rotate, and a landscape page written sideways that its
    /Rotate sets upright: either way the dual shows it upright, source left."""
    pair = []
    for korean in (False, True):
        doc = pymupdf.open()
        page = doc.new_page()
        if written == "sideways":
            page.set_rotation(rotation)
            _write(page, rotation, korean)
        else:
            _write(page, 0, korean)
            page.set_rotation(rotation)
        pair.append(doc.tobytes())
    assert_source_left(render_dual(pair[0], pair[1]), pair[1])
    swapped = pymupdf.open(stream=render_dual(pair[0], pair[1], translation_first=True))[0]
    left, right, _ = sides(swapped)
    assert hangul(left) and not hangul(right)
