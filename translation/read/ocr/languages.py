"""Tesseract's language data: its names for our languages, where its data lies, and the
error naming the Debian packages to install when it is missing.

Everything but :func:`tessdata` is pure.
"""

from __future__ import annotations

import functools
import os

import pymupdf

from common.errors import NoTextLayerError, UnsupportedLanguageError
from common.language import Language


class OcrUnavailableError(NoTextLayerError):
    """A page needs OCR and Tesseract or its data for the source language is missing."""

    error_type = "OcrUnavailable"


#: Our (the model's) language codes -> Tesseract's.
TESSERACT_LANGUAGES: dict[str, str] = {
    "ar": "ara", "bg": "bul", "bn": "ben", "ca": "cat", "cs": "ces", "da": "dan", "de": "deu",
    "el": "ell", "en": "eng", "es": "spa", "et": "est", "fa": "fas", "fi": "fin", "fil": "fil",
    "fr": "fra", "gu": "guj", "he": "heb", "hi": "hin", "hr": "hrv", "hu": "hun", "id": "ind",
    "is": "isl", "it": "ita", "ja": "jpn", "kn": "kan", "ko": "kor", "lt": "lit", "lv": "lav",
    "ml": "mal", "mr": "mar", "nl": "nld", "no": "nor", "pa": "pan", "pl": "pol", "pt": "por",
    "ro": "ron", "ru": "rus", "sk": "slk", "sl": "slv", "sr": "srp", "sv": "swe", "sw": "swa",
    "ta": "tam", "te": "tel", "th": "tha", "tr": "tur", "uk": "ukr", "ur": "urd", "vi": "vie",
    "zh-Hans": "chi_sim", "zh-Hant": "chi_tra",
}  # fmt: skip


def tesseract_language(language: Language) -> str:
    """Tesseract's name for ``language`` (Chinese, Simplified -> ``chi_sim``);
    ``UnsupportedLanguageError`` for one Tesseract has no data for."""
    if language.code not in TESSERACT_LANGUAGES:
        raise UnsupportedLanguageError(f"no OCR for the source language {language.code!r}")
    return TESSERACT_LANGUAGES[language.code]


def debian_packages(tess_lang: str) -> str:
    """The Debian packages that give Tesseract the language ``tess_lang``."""
    return f"tesseract-ocr tesseract-ocr-{tess_lang.replace('_', '-').lower()}"


def missing_data_message(tess_lang: str, found: str | None) -> str:
    """The one-line error for a scanned page when Tesseract or its ``tess_lang`` data is
    missing (``found``: the tessdata folder, None when there is no Tesseract at all)."""
    what = "Tesseract" if found is None else f"Tesseract's {tess_lang!r} data (not in {found})"
    return (
        f"the PDF has no text layer: it is scanned and needs OCR, but {what} is not installed;"
        f" install the Debian packages {debian_packages(tess_lang)}"
    )


@functools.lru_cache(maxsize=1)
def _tessdata_folder() -> str | None:
    try:
        folder = pymupdf.get_tessdata()
    except Exception:  # PyMuPDF raises RuntimeError when it finds no Tesseract
        return None
    return str(folder) if folder and os.path.isdir(folder) else None


def tessdata(language: Language) -> str:
    """The tessdata folder holding ``language``'s data; ``OcrUnavailableError``
    naming the packages to install when there is none."""
    tess = tesseract_language(language)
    folder = _tessdata_folder()
    if folder is None or not os.path.isfile(os.path.join(folder, f"{tess}.traineddata")):
        raise OcrUnavailableError(missing_data_message(tess, folder))
    return folder
