"""Preview images as the PDF worker draws them (``translation.render.preview.page_png``)."""

from __future__ import annotations

import pymupdf

from translation.render.preview import MAX_ASPECT, page_png


def _cmyk_page() -> pymupdf.Page:
    doc = pymupdf.open()
    page = doc.new_page()
    # CMYK is where colour management shows: its ICC conversion and the plain formula differ.
    page.draw_rect(pymupdf.Rect(50, 50, 500, 700), color=None, fill=(0.1, 0.7, 0.2, 0.05))
    return page


def test_a_thumbnail_without_colour_management_leaves_the_large_views_calibrated() -> None:
    page = _cmyk_page()
    calibrated = page_png(page, 160)
    thumbnail = page_png(page, 160, colour_managed=False)
    image = pymupdf.Pixmap(thumbnail)
    assert image.width == 160
    assert image.pixel(80, 100) != pymupdf.Pixmap(calibrated).pixel(80, 100)
    # The next large view is drawn colour-managed again, exactly as before the thumbnail.
    assert page_png(page, 160) == calibrated


def test_a_strip_of_a_page_is_cut_to_its_top() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=100, height=1000)
    image = pymupdf.Pixmap(page_png(page, 5000, colour_managed=False))
    assert image.width == 1200
    assert image.height <= MAX_ASPECT * 1200
