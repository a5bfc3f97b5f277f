"""How a document's pages are read: the OCR mode, the source language and the resolution."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from common.language import Language

#: Resolution the page is rendered at for Tesseract: enough for 7 pt footnotes.
OCR_DPI = 300


class OcrMode(StrEnum):
    AUTO = "auto"  # OCR the pages without text that an image covers
    ALWAYS = "always"  # OCR every page, ignoring its text layer
    NEVER = "never"


@dataclass(frozen=True)
class OcrOptions:
    """How a document's pages are read: ``mode``, the source ``language``, the resolution, and
    how many scanned pages are read at once (``processes``; ``translation.read.ocr.pool``)."""

    mode: OcrMode = OcrMode.AUTO
    language: Language = Language("en")
    dpi: int = OCR_DPI
    processes: int = 1


#: Pages without text that a scan covers are read by OCR, in English.
DEFAULT_OCR = OcrOptions()
