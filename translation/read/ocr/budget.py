"""What one document's OCR may take: pages, seconds in all, and seconds a page (pure).

Tesseract reads a page in seconds, a 240-page scan in a quarter of an hour: without bounds one
upload holds a PDF worker (and its CPU) for hours. The worker's parent process keeps an
:class:`OcrBudget` for each document it reads, told of every page as its OCR starts and ends
(:class:`OcrTurn`); a document with more pages to OCR than ``max_pages`` fails before the first
page is read, and a page still being read at :meth:`OcrBudget.start`'s deadline is stopped with
the error :meth:`OcrBudget.overrun` names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from common.errors import PDFProcessingError, PDFTooComplexError


@dataclass(frozen=True)
class OcrTurn:
    """One page read by OCR: ``page`` (0-based) is the ``nth`` (1-based) of the ``of`` pages
    of the document read by OCR."""

    page: int
    nth: int
    of: int

    @property
    def text(self) -> str:
        """What a task says while the page is read."""
        return f"reading page {self.nth} of {self.of} (OCR)"


#: Told ``(turn, done)`` before and after the OCR of a page (the worker's time limits).
OnPage = Callable[[OcrTurn, bool], None]


@dataclass
class OcrBudget:
    """The OCR bounds of one document and what it has spent (times are ``time.monotonic``)."""

    max_pages: int
    max_seconds: float
    page_timeout_s: float
    spent_s: float = 0.0
    #: The page being read, None between pages.
    reading: OcrTurn | None = None
    _since: float = 0.0
    _by_total: bool = False

    def start(self, turn: OcrTurn, now: float) -> float:
        """The deadline of the OCR of ``turn``'s page starting ``now``: the page's own time
        limit or what is left of the document's, whichever ends first. ``PDFTooComplexError``
        when the document has more pages to read by OCR than ``max_pages``."""
        if turn.of > self.max_pages:
            raise PDFTooComplexError(
                f"the PDF has {turn.of} scanned pages to read by OCR; this server reads at most"
                f" {self.max_pages} per job (ZT_OCR_MAX_PAGES): translate fewer pages at a time"
            )
        left = max(0.0, self.max_seconds - self.spent_s)
        self.reading, self._since, self._by_total = turn, now, left < self.page_timeout_s
        return now + min(left, self.page_timeout_s)

    def finish(self, now: float) -> None:
        """The page being read is done ``now``."""
        if self.reading is not None:
            self.spent_s += max(0.0, now - self._since)
        self.reading = None

    def overrun(self) -> PDFProcessingError:
        """The error of the page being read when its deadline passed."""
        turn = self.reading
        where = "" if turn is None else f" at page {turn.page + 1} ({turn.nth} of {turn.of})"
        if self._by_total:
            return PDFProcessingError(
                f"reading this PDF's scanned pages by OCR took longer than"
                f" {self.max_seconds:.0f} s in all (ZT_OCR_MAX_SECONDS); it was stopped{where}"
            )
        page = "a page" if turn is None else f"page {turn.page + 1}"
        return PDFProcessingError(
            f"the OCR of {page} took longer than {self.page_timeout_s:.0f} s"
            " (ZT_OCR_PAGE_TIMEOUT_S); it was stopped"
        )
