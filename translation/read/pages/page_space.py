"""The space a page's text is read and set in.

MuPDF reads a page in its own space: the crop box, unrotated, scaled by the page's
``/UserUnit`` (a page with ``/UserUnit 2`` reads twice the size of its crop box). Reading,
redaction, glyph filtering and formula copies all work in that space; only a PyMuPDF
``TextWriter`` writes in plain PDF units, so its text is scaled by ``1 / user_unit``.
"""

from __future__ import annotations

import pymupdf

#: How a page's text is extracted, by the reader and by the renderer's glyph filter alike:
#: whitespace as printed, glyphs outside the media box left out.
TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP
#: One point per unit: a page without /UserUnit.
_NO_UNIT = 1.0
#: How far from 1 MuPDF's rounding of the page rectangle puts the unit (no /UserUnit).
_ROUNDING = 1e-3


def user_unit(page: pymupdf.Page) -> float:
    """How many page-space points one PDF unit of ``page`` spans (``/UserUnit``; 1 without)."""
    box = page.cropbox
    across = box.height if page.rotation % 180 else box.width
    if across <= 0:
        return _NO_UNIT
    unit = float(page.rect.width) / float(across)
    # MuPDF's own rounding of the page rectangle is no unit.
    return _NO_UNIT if abs(unit - _NO_UNIT) < _ROUNDING else unit


def page_size(page: pymupdf.Page) -> tuple[float, float]:
    """Width and height of ``page``'s unrotated page space, the one its text is read in."""
    unit = user_unit(page)
    return float(page.cropbox.width) * unit, float(page.cropbox.height) * unit
