"""Hard limits on what one PDF may ask of the engine (pure: counts over ``PageLayout``).

A page of 200,000 tiny spans or a 5,000-page file costs seconds and gigabytes to read; these
limits turn such a file into a clear ``PDFTooComplexError`` (HTTP 400) as soon as the page that
crosses them is read. The defaults sit far above real papers (a dense page has a few thousand
spans); the server takes them from ``ZT_PDF_MAX_*``.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.errors import PDFTooComplexError
from translation.read.layout import PageLayout

#: The defaults: far above real papers (a dense page has a few thousand spans).
MAX_PAGES, MAX_PAGE_SPANS, MAX_PAGE_CHARS, MAX_TEXT_CHARS = 2000, 50_000, 200_000, 10_000_000


@dataclass(frozen=True)
class PdfLimits:
    max_pages: int = MAX_PAGES
    max_page_spans: int = MAX_PAGE_SPANS
    max_page_chars: int = MAX_PAGE_CHARS
    max_text_chars: int = MAX_TEXT_CHARS

    def check_page_count(self, count: int) -> None:
        if count > self.max_pages:
            raise PDFTooComplexError(
                f"the PDF has {count} pages; this server reads at most {self.max_pages}"
                " (ZT_PDF_MAX_PAGES)"
            )


DEFAULT_LIMITS = PdfLimits()


class TextTally:
    """Counts the text of the pages read so far; raises as soon as a limit is crossed."""

    def __init__(self, limits: PdfLimits) -> None:
        self._limits = limits
        self.chars = 0

    def add(self, layout: PageLayout) -> None:
        spans = chars = 0
        for block in layout.blocks:
            for line in block.lines:
                spans += len(line.spans)
                chars += sum(len(span.text) for span in line.spans)
        limits, page = self._limits, layout.index + 1
        if spans > limits.max_page_spans:
            raise PDFTooComplexError(
                f"page {page} has {spans} pieces of text; this server reads at most"
                f" {limits.max_page_spans} per page (ZT_PDF_MAX_PAGE_SPANS)"
            )
        if chars > limits.max_page_chars:
            raise PDFTooComplexError(
                f"page {page} has {chars} characters of text; this server reads at most"
                f" {limits.max_page_chars} per page (ZT_PDF_MAX_PAGE_CHARS)"
            )
        self.chars += chars
        if self.chars > limits.max_text_chars:
            raise PDFTooComplexError(
                f"the PDF has more than {limits.max_text_chars} characters of text"
                " (ZT_PDF_MAX_TEXT_CHARS)"
            )
