"""Scanned pages: when to OCR a page, the OCR call, and its text as our layout.

A scanned page has no text, only an image covering it; its words are pixels. Such a page is
read by Tesseract (``tesseract``), and what the OCR found becomes a
:class:`~translation.read.layout.PageLayout` like any other page's (``lines``, with the font
sizes from ``sizes`` and the boxes cut to their ``ink``), so segmentation needs no special case.
The figures drawn in a scan are found in its ink (``drawings``); rendering paints the scanned
words over (``covers``). ``languages`` maps our language codes to Tesseract's data, ``pages``
says which pages are read by OCR, ``options`` how, ``budget`` for how long.

The names the rest of the code uses are importable from here.
"""

from translation.read.ocr.budget import OcrBudget, OcrTurn, OnPage
from translation.read.ocr.covers import paint_covers, tall_box_bands
from translation.read.ocr.languages import OcrUnavailableError, tessdata
from translation.read.ocr.options import DEFAULT_OCR, OCR_DPI, OcrMode, OcrOptions
from translation.read.ocr.pages import needs_ocr, words_are_pixels
from translation.read.ocr.tesseract import read_ocr_page

__all__ = [
    "DEFAULT_OCR",
    "OCR_DPI",
    "OcrBudget",
    "OcrMode",
    "OcrOptions",
    "OcrTurn",
    "OcrUnavailableError",
    "OnPage",
    "needs_ocr",
    "paint_covers",
    "read_ocr_page",
    "tall_box_bands",
    "tessdata",
    "words_are_pixels",
]
