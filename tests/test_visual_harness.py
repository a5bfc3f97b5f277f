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
        ["--papers", "02", "--pages", "2", "--dpi", "40", "--out", str(out)]
        + ["--corpus", str(corpus_dir)]
    )
    assert code == 0
    (paper,) = corpus_dir.glob("02_*.pdf")
    folder = out / paper.stem
    assert sorted(p.name for p in folder.iterdir()) == ["contact.png", "page-02.png"]

    page = pymupdf.open(paper)[1].rect
    png = pymupdf.Pixmap(str(folder / "page-02.png"))
    single = page.width * 40 / 72
    assert 2 * single <= png.width <= 2 * single + 12  # two pages and the gap between them
    assert page.height * 40 / 72 <= png.height <= page.height * 40 / 72 + 10  # and the label

    index = (out / "index.html").read_text(encoding="utf-8")
    assert f"{paper.stem}/page-02.png" in index
    assert f"{paper.stem}/contact.png" in index


@pytest.mark.corpus
def test_the_original_is_left_and_the_translation_right(corpus_dir: Path) -> None:
    (paper,) = corpus_dir.glob("02_*.pdf")
    data = paper.read_bytes()
    mono, pages, paragraphs = visual.translate(data, "en", "ko")
    assert pages == 8 and paragraphs > 8
    original, translated = pymupdf.open(stream=data), pymupdf.open(stream=mono)
    (pair,) = visual.pair_document(original, translated, [2], "ko")
    width = original[1].rect.width
    left = pair.get_text(clip=pymupdf.Rect(0, visual.LABEL + 1, width, pair.rect.height))
    right = pair.get_text(
        clip=pymupdf.Rect(pair.rect.width - width, visual.LABEL + 1, *pair.rect.br)
    )
    words = set(re.findall(r"[A-Za-z]{6,}", original[1].get_text()))
    assert len(words) > 100
    assert sum(w in left for w in words) >= 0.95 * len(words) and not HANGUL.search(left)
    assert sum(w in right for w in words) <= 0.2 * len(words)
    assert len(HANGUL.findall(right)) > 1000


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
