"""Opening a PDF: parse, authenticate and check that it can be translated.

PyMuPDF's exceptions never leave this module: they become ``common.errors`` types.
"""

from __future__ import annotations

import threading

import pymupdf

from common.errors import (
    EmptyPDFError,
    InputError,
    NotAPDFError,
    NoTextLayerError,
    PasswordRequiredError,
)
from translation.read.ocr import DEFAULT_OCR, OcrMode, OcrOptions, needs_ocr, tessdata
from translation.read.pages.page_space import TEXT_FLAGS
from translation.read.pages.pdf_limits import DEFAULT_LIMITS, PdfLimits

# Ligatures expanded, whitespace kept, text outside the media box ignored, no image blocks.

# PyMuPDF is not thread-safe, not even for different documents, and holds the GIL while it
# works; the server therefore does all of its PDF work in worker processes, one job per process
# (``translation.worker``). This lock only keeps the threads of one process apart (the CLI,
# tests, benchmarks); it never makes one server job wait for another.
PDF_LOCK = threading.RLock()


def open_document(
    data: bytes,
    password: str | None = None,
    limits: PdfLimits = DEFAULT_LIMITS,
    ocr: OcrOptions = DEFAULT_OCR,
) -> pymupdf.Document:
    """Open ``data`` as a PDF and check that it can be translated.

    Raises NotAPDFError (garbage, unparsable), EmptyPDFError (no pages: a truncated upload
    "repairs" to zero pages without an error), PasswordRequiredError (no or wrong password),
    PDFTooComplexError (more pages than ``limits`` allow) and NoTextLayerError (no text on any
    page, and no scan to OCR or OCR off by ``ocr``; ``OcrUnavailableError`` when the scan
    needs Tesseract or language data that is not installed). A PDF restricted only by an owner
    password opens.
    """
    if b"%PDF" not in data[:1024]:
        raise NotAPDFError("not a PDF file")
    with PDF_LOCK:
        return _open_checked(data, password, limits, ocr)


def inspect_pdf(data: bytes, password: str | None = None, ocr: OcrOptions | None = None) -> int:
    """Validate a PDF the way the pipeline will open it; return its page count.

    Raises the ``InputError`` subclasses of :func:`open_document`.
    """
    doc = open_document(data, password, ocr=ocr or DEFAULT_OCR)
    try:
        return int(doc.page_count)
    finally:
        doc.close()


def _parse(data: bytes) -> pymupdf.Document:
    try:
        return pymupdf.open(stream=data, filetype="pdf")
    except Exception as exc:  # PyMuPDF raises FileDataError, RuntimeError, ValueError...
        raise NotAPDFError(f"not a readable PDF file ({error_reason(exc)})") from None


def _open_checked(
    data: bytes, password: str | None, limits: PdfLimits, ocr: OcrOptions
) -> pymupdf.Document:
    doc = _parse(data)
    try:
        if doc.needs_pass:
            if not password:
                raise PasswordRequiredError("the PDF is password-protected: give the password")
            if not doc.authenticate(password):
                raise PasswordRequiredError("wrong password for this PDF")
        if doc.page_count == 0:
            raise EmptyPDFError("the PDF has no pages (truncated or damaged file)")
        limits.check_page_count(doc.page_count)
        if not _has_text(doc):
            if doc.is_repaired:  # what is left of a truncated file: pages without content
                raise EmptyPDFError("the PDF is truncated or damaged: nothing readable in it")
            _check_ocr(doc, ocr)
    except InputError:
        doc.close()
        raise
    except Exception as exc:
        doc.close()
        raise NotAPDFError(f"damaged PDF file ({error_reason(exc)})") from None
    return doc


def _check_ocr(doc: pymupdf.Document, ocr: OcrOptions) -> None:
    """A document without text opens only when OCR may read its scanned pages."""
    if ocr.mode is OcrMode.NEVER:
        raise NoTextLayerError(
            "the PDF has no text layer: it is scanned and needs OCR, which is off"
            " (--ocr never, ZT_OCR=never)"
        )
    if not any(needs_ocr(page, ocr.mode, TEXT_FLAGS) for page in doc):
        raise NoTextLayerError("the PDF has no text layer and no scanned page to read by OCR")
    tessdata(ocr.language)


def error_reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:120]


def _has_text(doc: pymupdf.Document) -> bool:
    for page in doc:
        if page.get_text("text", flags=TEXT_FLAGS).strip():
            return True
    return False


def open_plain(data: bytes, password: str | None) -> pymupdf.Document:
    """Open PDF bytes without the translatability checks of :func:`open_document`."""
    doc = _parse(data)
    if doc.needs_pass and not doc.authenticate(password or ""):
        doc.close()
        raise PasswordRequiredError("the PDF is password-protected: give the password")
    if doc.page_count == 0:
        doc.close()
        raise EmptyPDFError("the PDF has no pages (truncated or damaged file)")
    return doc
