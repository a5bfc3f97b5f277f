"""Removing a paragraph's source text from a page, and nothing else.

A paragraph's ``rects`` are thin bands around its lines' baselines; a glyph is removed when its
probe point (see :mod:`translation.render.glyphs`) lies in one of them. Glyph boxes play no part, so
a tall glyph of a display formula or a label beside the paragraph is never taken along, and
nothing has to be put back afterwards.
"""

from __future__ import annotations

from collections.abc import Sequence

import pymupdf

from translation.read.layout import Rect
from translation.read.paragraph import Paragraph
from translation.render.glyphs import (
    Areas,
    Probes,
    glyph_like,
    mask_boxes,
    path_boxes,
    remove_glyphs,
)


def redact(page: pymupdf.Page, paragraphs: Sequence[Paragraph], note: Probes | None = None) -> int:
    """Remove the glyphs of ``paragraphs`` from ``page``, with the glyph-like paths in their
    lines (Word's stretched brackets and arrows) and the rules of their inline formulas
    (paths, or image masks as TeX drivers draw them); other text, images and vector graphics
    stay. Returns how many glyphs went. ``note``: where the page's glyphs' probes are noted
    (``glyphs.Probes``)."""
    rects = [r for p in paragraphs for r in p.rects]
    log = page.get_bboxlog()  # one pass over the page for its paths and its masks
    paths = path_boxes(page, log)
    gone = own_paths(paths, rects) + formula_rules(paths, paragraphs) + underlines(paths, rects)
    gone += formula_rules(mask_boxes(page, log), paragraphs, pictures=True)
    return remove_glyphs(page, Areas(rects), gone, note)


#: Of the font size: an image mask this high at most can be a glyph drawn as a picture.
_PICTURE_HEIGHT = 2.6
#: How far (font sizes) above and below a formula's estimated glyph box its rules may lie.
RULE_REACH = 0.3


def formula_rules(
    paths: Sequence[Rect], paragraphs: Sequence[Paragraph], *, pictures: bool = False
) -> list[Rect]:
    """The thin ``paths`` (or image masks) inside the inline formulas of ``paragraphs``:
    fraction bars, overlines, the bar of a root. They belong to the formula (copied whole, see
    ``typeset.formula_copies``), so they leave with the paragraph's text instead of staying
    across the translation (07 p6: the bar over alpha). ``pictures``: the ``paths`` are image
    masks, and those of a glyph's size go too: a formula drawn as pictures of its glyphs
    (``translation.read.pages.inline_images``)."""
    rules = []
    for box in paths:
        width, height = box[2] - box[0], box[3] - box[1]
        for para in paragraphs:
            size = para.font_size or 10.0
            glyph = pictures and height <= _PICTURE_HEIGHT * size and width <= 6.0 * size
            if (height >= 0.12 * size and not glyph) or width > 6.0 * size:
                continue
            reach = RULE_REACH * size
            if any(
                f[0] - 1.0 <= box[0]
                and box[2] <= f[2] + 1.0
                and f[1] - reach <= box[1]
                and box[3] <= f[3] + reach
                for boxes in para.formula_boxes.values()
                for f in boxes
            ):
                rules.append(box)
                break
    return rules


def own_paths(paths: Sequence[Rect], rects: Sequence[Rect]) -> list[Rect]:
    """The ``paths`` that are glyphs of the lines whose bands are ``rects``: glyph-like for
    the band's font size, their centre within half a font size of the band (above it: arrows
    over letters) and beside it (brackets around a formula's glyphs)."""
    if not paths:
        return []
    bands = []
    for x0, y0, x1, y1 in rects:
        size = 2.0 * (
            y1 - y0
        )  # a band is half a font size high (translation.read.rows.row.make_row)
        bands.append((x0 - 0.5 * size, y0 - 0.5 * size, x1 + 0.5 * size, y1 + 0.35 * size, size))
    own = []
    for box in paths:
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        if any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] and glyph_like(box, b[4]) for b in bands):
            own.append(box)
    return own


def underlines(paths: Sequence[Rect], rects: Sequence[Rect]) -> list[Rect]:
    """The ``paths`` that underline the lines whose bands are ``rects``: thin horizontal rules
    just under the band's baseline, no wider than its text. They would strike through the
    translation, which is set elsewhere in the box (09 p2: a footnote's underlined words)."""
    lines = []
    for box in paths:
        if box[3] - box[1] > 1.5 or box[2] - box[0] < 2.0:
            continue
        for x0, y0, x1, y1 in rects:
            size = 2.0 * (y1 - y0)  # y1 is a tenth of a size above the baseline
            if x0 - 1.0 <= box[0] and box[2] <= x1 + 1.0 and y1 <= box[1] <= y1 + 0.45 * size:
                lines.append(box)
                break
    return lines
