"""Which pages are read by OCR, and which pages' words are pixels of a scan."""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf

from translation.read.layout import Rect
from translation.read.ocr.options import OcrMode

#: Of the page: images covering this much of a page without text make it a scan.
_SCANNED_SHARE = 0.5


def is_scanned(text_chars: int, images: Sequence[Rect], width: float, height: float) -> bool:
    """Whether a page is a scan: no text, and images covering at least half of it."""
    if text_chars or width <= 0 or height <= 0:
        return False
    covered = sum(max(0.0, r[2] - r[0]) * max(0.0, r[3] - r[1]) for r in images)
    return covered >= _SCANNED_SHARE * width * height


def needs_ocr(page: pymupdf.Page, mode: OcrMode, text_flags: int) -> bool:
    """Whether ``page`` is read by OCR under ``mode``."""
    if mode is OcrMode.NEVER:
        return False
    if mode is OcrMode.ALWAYS:
        return True
    if page.get_text("text", flags=text_flags).strip():
        return False
    images = [tuple(rect) for kind, rect in page.get_bboxlog() if kind.endswith("image")]
    box = page.rect
    return is_scanned(0, images, box.width, box.height)


#: The text render mode of an OCR layer: neither filled nor stroked.
_INVISIBLE = 3


def words_are_pixels(page: pymupdf.Page, mode: OcrMode, text_flags: int) -> bool:
    """Whether the words of ``page`` are pixels of a scan, to be painted over rather than
    removed glyph by glyph: a page read by OCR, or a scan that carries its own OCR text layer
    (invisible text over an image covering the page: removing that text leaves the words of
    the image)."""
    if needs_ocr(page, mode, text_flags):
        return True
    images = [tuple(rect) for kind, rect in page.get_bboxlog() if kind.endswith("image")]
    if not is_scanned(0, images, page.rect.width, page.rect.height):
        return False
    traced = page.get_texttrace()
    return bool(traced) and all(t["type"] == _INVISIBLE for t in traced)
