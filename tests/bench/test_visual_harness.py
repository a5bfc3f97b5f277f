"""`make visual` (bench/visual.py): page pairs a reviewer compares by eye."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from bench import visual
from tests.fakes.pseudo import pseudo_translate

HANGUL = re.compile("[\uac00-\ud7a3]")


@pytest.mark.corpus
def test_one_page_becomes_a_side_by_side_png_with_an_index(
    corpus_dir: Path, tmp_path: Path
) -> None:
    out = tmp_path / "visual"
    code = visual.main(
        ["--papers", "12", "--pages", "2", "--dpi", "40", "--out", str(out)]
        + ["--corpus", str(corpus_dir)]
    )
    assert code == 0
    (paper,) = corpus_dir.glob("12_*.pdf")
    folder = out / paper.stem
    assert sorted(p.name for p in folder.iterdir()) == ["contact.png", "page-02.png"]

    page = pymupdf.open(paper)[1].rect
    png = pymupdf.Pixmap(str(folder / "page-02.png"))
    single = page.width * 40 / 72
    assert 2 * single <= png.width <= 2 * single + 8  # two pages and the gap between them
    assert page.height * 40 / 72 <= png.height <= page.height * 40 / 72 + 9  # and the label

    index = (out / "index.html").read_text(encoding="utf-8")
    assert f"{paper.stem}/page-02.png" in index
    assert f"{paper.stem}/contact.png" in index
    assert "<a href='#12'>12</a>" in index and "id='12'" in index


def rows(pix: pymupdf.Pixmap, x: int, y: int, width: int, height: int) -> list[bytes]:
    """The pixel rows of an area of ``pix``."""
    n, stride, data = pix.n, pix.stride, pix.samples
    return [data[r * stride + x * n : r * stride + (x + width) * n] for r in range(y, y + height)]


@pytest.mark.corpus
def test_the_original_is_left_and_the_translation_right(corpus_dir: Path) -> None:
    (paper,) = corpus_dir.glob("02_*.pdf")
    data = paper.read_bytes()
    mono, pages, paragraphs, _ = visual.translate(data, "en", "ko")
    assert pages == 8 and paragraphs > 8
    original, translated = pymupdf.open(stream=data)[1], pymupdf.open(stream=mono)[1]
    assert len(HANGUL.findall(translated.get_text())) > 1000

    pair = visual.pair_image(original, translated, 30, ("original", "translation"))
    left, right = original.get_pixmap(dpi=30), translated.get_pixmap(dpi=30)
    top = pair.height - left.height
    assert 0 < top < 10
    whole = (0, 0, left.width, left.height)
    assert rows(pair, 0, top, left.width, left.height) == rows(left, *whole)
    x = pair.width - right.width
    assert rows(pair, x, top, right.width, right.height) == rows(right, *whole)
    assert rows(left, *whole) != rows(right, *whole)


@pytest.mark.corpus
def test_rotated_pages_are_drawn_as_a_viewer_shows_them(corpus_dir: Path) -> None:
    (paper,) = corpus_dir.glob("13_*.pdf")
    page = pymupdf.open(paper)[1]
    assert page.rotation == 90
    pair = visual.pair_image(page, page, 20, ("", ""))
    shown = page.get_pixmap(dpi=20)  # landscape: the viewer turns the page
    assert shown.width > shown.height
    assert pair.width == 2 * shown.width + round(visual.GAP * 20 / 72)
    top = pair.height - shown.height
    assert rows(pair, 0, top, shown.width, shown.height) == rows(shown, 0, 0, *shown.irect[2:])


def test_page_ranges_and_default_pages() -> None:
    assert visual.parse_pages("1-3,7,2") == [1, 2, 3, 7]
    assert visual.pages_to_draw(37, None, all_pages=False) == [1, 2, 3, 4, 5, 6, 37]
    assert visual.pages_to_draw(4, None, all_pages=False) == [1, 2, 3, 4]
    assert visual.pages_to_draw(4, [2, 9], all_pages=False) == [2]
    assert visual.pages_to_draw(3, [1], all_pages=True) == [1, 2, 3]
    with pytest.raises(ValueError):
        visual.parse_pages("3-1")


def test_korean_pseudo_translates_into_latin_letters() -> None:
    english = pseudo_translate("보험약관 {v1} 2020년 COVID", "en")
    assert english.isascii()
    assert "{v1}" in english and "2020" in english
    # Other targets keep Korean as it is, as before.
    assert pseudo_translate("보험약관 {v1}", "ko") == "보험약관 {v1}"
