"""Skipping the OCR tests where Tesseract or its language data is missing (``.ci/run``
installs them: tesseract-ocr tesseract-ocr-eng ...)."""

from __future__ import annotations

import pymupdf
import pytest

from common.errors import ZTError
from common.language import Language
from translation.read.ocr.languages import debian_packages, tessdata, tesseract_language


def ocr_missing(language: str = "en") -> str | None:
    """Why the OCR of ``language`` cannot run here, or None when it can."""
    try:
        tessdata(Language.parse(language))
    except ZTError:
        packages = debian_packages(tesseract_language(Language.parse(language)))
        return f"no Tesseract data for {language!r}: install {packages}"
    return None


def needs_ocr(language: str = "en") -> pytest.MarkDecorator:
    """Mark a test (or ``pytestmark``) to skip, with the packages to install, without OCR."""
    reason = ocr_missing(language)
    return pytest.mark.skipif(reason is not None, reason=reason or "")


def scan_of(paper: bytes, dpi: int = 150) -> bytes:
    """``paper`` with every page an image of itself at ``dpi``: no text layer, read by OCR."""
    scan = pymupdf.open()
    with pymupdf.open(stream=paper, filetype="pdf") as src:
        for page in src:
            image = scan.new_page(width=page.rect.width, height=page.rect.height)
            image.insert_image(image.rect, pixmap=page.get_pixmap(dpi=dpi))
    return bytes(scan.tobytes())


def turned_scan_of(paper: bytes, dpi: int = 150) -> bytes:
    """``paper`` with every page an image of itself at ``dpi``, stored sideways and shown
    upright through ``/Rotate 90`` (as a scanner that turns the page in the viewer writes it):
    no text layer, its words upright only as the viewer shows the page."""
    scan = pymupdf.open()
    with pymupdf.open(stream=paper, filetype="pdf") as src:
        for page in src:
            image = scan.new_page(width=page.rect.height, height=page.rect.width)
            image.insert_image(image.rect, pixmap=page.get_pixmap(dpi=dpi), rotate=90)
            image.set_rotation(90)
    return bytes(scan.tobytes())
