"""The OCR call: a page rendered, read by Tesseract through PyMuPDF
(``Page.get_textpage_ocr``), and made a :class:`~translation.read.layout.PageLayout` with the
figures drawn in the scan (the pure rules live in the sibling modules)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pymupdf

from translation.read.layout import POINTS_PER_INCH, PageLayout, Rect
from translation.read.ocr.drawings import GRAPHIC_SCALE, graphic_regions, with_labels
from translation.read.ocr.ink import INK_SCALE, Ink
from translation.read.ocr.languages import tessdata, tesseract_language
from translation.read.ocr.lines import ocr_layout, text_band
from translation.read.ocr.options import OcrOptions
from translation.read.ocr.rules import erase_rules, rule_pixels
from translation.read.ocr.turn import rect, unturned

#: A rule is a dark run longer than any glyph's stroke (a tall bracket, a descender)...
RULE_MIN_LENGTH_PT = 36.0
#: ...and thinner than the filled areas of a figure.
RULE_MAX_THICKNESS_PT = 6.0

#: How PyMuPDF says it ran out of memory: MuPDF's failed allocation, or the ``MemoryError`` of
#: a Python callback it ran, both carried in the text of an error of another type.
_OUT_OF_MEMORY = re.compile(r"MemoryError|malloc .* failed|out of memory|cannot allocate", re.I)


def read_ocr_page(
    page: pymupdf.Page, options: OcrOptions, text_flags: int, figures: Sequence[Rect]
) -> PageLayout:
    """OCR ``page`` (the whole page as rendered) and return its layout. ``MemoryError`` when
    the OCR ran out of memory (the PDF worker's address-space limit), whatever PyMuPDF raised
    for it: the PDF is not at fault, the limit is."""
    try:
        return _read(page, options, text_flags, figures)
    except MemoryError:
        raise
    except Exception as exc:
        if _OUT_OF_MEMORY.search(str(exc)):
            raise MemoryError(f"the OCR of page {page.number + 1} ran out of memory") from exc
        raise


#: A pixel darker than this grey (0..255) is ink, for finding the drawings on a page.
_DARK_GREY = 220


def _read(
    page: pymupdf.Page, options: OcrOptions, text_flags: int, figures: Sequence[Rect]
) -> PageLayout:
    folder = tessdata(options.language)
    with _without_rules(page, options.dpi) as read:
        # Read upright from a copy as shown: its layout is carried back into the page's space.
        turned = bool(page.rotation) and read is not page
        textpage = read.get_textpage_ocr(
            flags=text_flags,
            language=tesseract_language(options.language),
            dpi=options.dpi,
            full=True,
            tessdata=folder,
        )
        raw = read.get_text("dict", textpage=textpage, flags=text_flags)
    # Read in the viewer's frame (page.rect, the page as its pixmaps show it); a turned page's
    # layout is carried into its unrotated space at the end, with the figures given in it.
    box = page.rect
    given = () if turned else figures
    layout = ocr_layout(raw, page.number, box.width, box.height, given, _page_ink(page))
    lines = [text_band(ln) for b in layout.blocks for ln in b.lines]
    pix = page.get_pixmap(dpi=round(POINTS_PER_INCH * GRAPHIC_SCALE), colorspace=pymupdf.csGRAY)
    dark = [v < _DARK_GREY for v in pix.samples] if pix.stride == pix.width else []
    drawn = graphic_regions(dark, pix.width, pix.height, lines, GRAPHIC_SCALE)
    labels = [(ln.bbox, len(ln.spans)) for b in layout.blocks for ln in b.lines]
    layout = dataclasses.replace(layout, figures=(*layout.figures, *with_labels(drawn, labels)))
    if not turned:
        return layout
    derotation = tuple(page.derotation_matrix)
    space = rect(derotation, tuple(box))
    layout = unturned(layout, derotation, space[2] - space[0], space[3] - space[1])
    return dataclasses.replace(layout, figures=(*figures, *layout.figures))


@contextmanager
def _without_rules(page: pymupdf.Page, dpi: int) -> Iterator[pymupdf.Page]:
    """The page Tesseract reads: ``page`` itself, or, where the scan has ruled lines (a
    table's), a page of the same size showing the scan with its rules taken out
    (``translation.read.ocr.rules``). A page turned by ``/Rotate`` is always read from such a
    page, upright: as its viewer shows it (``translation.read.ocr.turn``)."""
    pix = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
    if pix.stride != pix.width:
        yield page
        return
    scale = dpi / POINTS_PER_INCH
    horizontal, vertical = rule_pixels(
        pix.samples,
        pix.width,
        pix.height,
        round(RULE_MIN_LENGTH_PT * scale),
        round(RULE_MAX_THICKNESS_PT * scale),
    )
    if not horizontal and not vertical and not page.rotation:
        yield page
        return
    clean = erase_rules(pix.samples, pix.width, horizontal, vertical, margin=2)
    scratch = pymupdf.open()
    try:
        copy = scratch.new_page(width=page.rect.width, height=page.rect.height)
        image = pymupdf.Pixmap(pymupdf.csGRAY, pix.width, pix.height, clean, False)
        copy.insert_image(copy.rect, pixmap=image)
        yield copy
    finally:
        scratch.close()


#: A pixel darker than this grey (0..255) is ink under a word.
_INK_GREY = 128


def _page_ink(page: pymupdf.Page) -> Ink:
    """:data:`Ink` of ``page`` as rendered (the pixmap is made on the first call)."""
    made: list[pymupdf.Pixmap] = []
    dark = bytes(1 if v < _INK_GREY else 0 for v in range(256))

    def ink(box: Rect) -> list[int]:
        if not made:
            made.append(
                page.get_pixmap(dpi=round(POINTS_PER_INCH * INK_SCALE), colorspace=pymupdf.csGRAY)
            )
        pix = made[0]
        x0 = max(0, int((box[0] - page.rect.x0) * INK_SCALE))
        x1 = min(pix.width, int((box[2] - page.rect.x0) * INK_SCALE) + 1)
        y0 = max(0, int((box[1] - page.rect.y0) * INK_SCALE))
        y1 = min(pix.height, int((box[3] - page.rect.y0) * INK_SCALE) + 1)
        samples, stride = pix.samples, pix.stride
        return [
            samples[y * stride + x0 : y * stride + x1].translate(dark).count(1)
            for y in range(y0, y1)
        ]

    return ink
