"""Page previews of a document being typeset: thumbnails, large views and the partial PDF.

The image functions run in the job's PDF worker (``translation.worker``) on the document it
holds: a typeset page is drawn from the document being written, the original from a copy made
before any page was touched. Images are PNG, ``width`` pixels wide (at most
``MAX_PREVIEW_WIDTH``) and never taller than ``MAX_ASPECT`` times that, so a request cannot ask for
a poster. :class:`PageWatch` is how the pipeline tells whoever shows the pages what happens to
them; :class:`PageImages` is what renders them while the worker is alive.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from typing import Protocol

import pymupdf

#: A thumbnail's width in pixels: about 10 KiB of PNG and under a tenth of a page's typesetting.
THUMB_WIDTH = 160
#: The large view's width (a click on a thumbnail).
LARGE_WIDTH = 800
#: No preview wider than this, and none taller than ``MAX_ASPECT`` times its width.
MAX_PREVIEW_WIDTH = 1200
MAX_ASPECT = 3.0


class PageState(StrEnum):
    """Where a page that will be typeset stands."""

    WAITING = "waiting"  # some of its paragraphs wait for the model
    TYPESETTING = "typesetting"  # all translated; the worker is setting it
    DONE = "done"  # set in the document: a preview and the partial PDF show it


class PageImages(Protocol):
    """Renders a running job's pages (the PDF worker): only while the job runs."""

    async def preview(self, number: int, width: int, original: bool) -> bytes:
        """Page ``number`` (0-based) as a PNG ``width`` wide: as typeset so far, or original."""
        ...

    async def partial_pdf(self) -> bytes:
        """The document as it stands: the pages typeset so far, the rest as they came."""
        ...


class PageWatch(Protocol):
    """What the pipeline tells about the pages it typesets (the server's page previews).

    Called on the event loop, in this order: ``begin`` once the paper is read (again after a
    wait for the GPU), then ``typesetting``/``typeset`` per page, then ``end`` when the worker
    is gone (``failed`` when the translation raised).
    """

    def begin(self, pages: Sequence[int], images: PageImages) -> None: ...

    def thumbnail_width(self) -> int:
        """The width of the thumbnail to render with each page, 0 for none (nobody watches)."""
        ...

    def typesetting(self, number: int) -> None: ...

    def typeset(self, number: int, thumbnail: bytes | None) -> None: ...

    def end(self, failed: bool) -> None: ...


def page_png(page: pymupdf.Page, width: int, colour_managed: bool = True) -> bytes:
    """``page`` drawn ``width`` pixels wide (bounded as the module docstring says), as PNG.

    ``colour_managed=False`` draws without ICC colour management, for thumbnails: the first
    colour-managed drawing of a paper with images builds colour transforms that cost tens of
    milliseconds (more than the thumbnails of all its other pages), for a difference of under
    1/255 on average at thumbnail size. It switches the process's setting for the call, so it
    is for one drawing at a time (the PDF worker: one job per process, one command at a time).
    """
    width = max(16, min(int(width), MAX_PREVIEW_WIDTH))
    rect = page.rect
    zoom = width / rect.width if rect.width > 0 else 1.0
    clip = None
    if rect.height > MAX_ASPECT * rect.width:  # a strip of a page: its top only
        clip = pymupdf.Rect(rect.x0, rect.y0, rect.x1, rect.y0 + MAX_ASPECT * rect.width)
    if not colour_managed:
        pymupdf.TOOLS.set_icc(False)
    try:
        pixmap = page.get_pixmap(matrix=pymupdf.Matrix(zoom, zoom), alpha=False, clip=clip)
    finally:
        if not colour_managed:
            pymupdf.TOOLS.set_icc(True)  # MuPDF's default, which nothing else here changes
    return bytes(pixmap.tobytes("png"))


def open_original(data: bytes, password: str | None) -> pymupdf.Document:
    """The uploaded document as it came (what the original side of a large view shows)."""
    doc = pymupdf.open(stream=data, filetype="pdf")
    if doc.needs_pass:
        doc.authenticate(password or "")
    return doc


def partial_pdf(doc: pymupdf.Document, strip: Callable[[pymupdf.Document], None]) -> bytes:
    """A copy of ``doc`` as it stands, fonts subset and ``strip`` (the sanitiser of the final
    outputs) applied to the copy: ``doc`` itself is still being written."""
    copy = pymupdf.open(stream=doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_NONE), filetype="pdf")
    try:
        strip(copy)
        copy.subset_fonts()
        return bytes(copy.tobytes(garbage=3, deflate=True, encryption=pymupdf.PDF_ENCRYPT_NONE))
    finally:
        copy.close()


def thumbnails_of_file(path: str, pages: dict[int, int], width: int) -> dict[int, bytes]:
    """Thumbnails drawn from a finished PDF on disk (a worker command): ``pages`` maps a page
    number of the job (0-based) to its index in the file; indices the file lacks are skipped."""
    doc = pymupdf.open(path)
    try:
        return {
            number: page_png(doc[index], width, colour_managed=False)
            for number, index in pages.items()
            if 0 <= index < doc.page_count
        }
    finally:
        doc.close()
