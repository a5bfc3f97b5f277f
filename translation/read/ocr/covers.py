"""Covering the scanned words: rendering cannot remove pixels glyph by glyph, so the words
of a scan are covered by boxes of the page's background colour, the image stays for the
figures, and the translation is set over the boxes. The covers reach the whole of a line
slanted by the scan's skew.

Everything but :func:`paint_covers` is pure.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence

import pymupdf

from translation.read.layout import Rect

#: Largest skew (degrees) the covers allow for.
MAX_SKEW_DEG = 1.0


def tall_box_bands(bbox: Rect, size: float, tall_boxes: Sequence[Rect]) -> list[Rect]:
    """Redaction bands (as ``rows.make_row`` makes them) whose covers (:func:`cover_boxes`,
    unskewed) reach the whole of each of ``tall_boxes`` that a paragraph's ``bbox`` (of font
    ``size``) holds a line of (overlaps by 0.4 ``size`` in y), within the paragraph's x range.
    Tesseract's box of a line holds all its words, but where it stretches over neighbour lines
    the cut to its text may land on a neighbour (or on a line Tesseract missed): the whole
    box is its text to hide (the neighbours are text too)."""
    out = []
    for box in tall_boxes:
        x0, x1 = max(box[0], bbox[0]), min(box[2], bbox[2])
        top, bottom = box[1], box[3]
        if x1 - x0 < 1.0 or min(bottom, bbox[3]) - max(top, bbox[1]) < 0.4 * size:
            continue
        # cover_boxes: from y1 - 1.5 h to y1 + 0.8 h for a band of height h (no skew).
        h = (bottom - top) / 2.3
        y1 = bottom - 0.8 * h
        out.append((x0 + 0.3 * h, y1 - h, x1 - 0.3 * h, y1))
    return out


def cover_boxes(rects: Sequence[Rect], skew_deg: float = MAX_SKEW_DEG) -> list[Rect]:
    """The areas to paint over to hide the scanned words of lines whose redaction bands are
    ``rects`` (``rows.make_row``: half a font size high, its bottom a tenth of a size above the
    baseline): from the ascenders to the descenders, wide by a little, and high by the rise of
    a line of that width skewed by ``skew_deg``."""
    tilt = abs(skew_deg) * 3.14159265 / 180.0
    out = []
    for x0, y0, x1, y1 in rects:
        size = 2.0 * (y1 - y0)
        baseline = y1 + 0.1 * size
        rise = min(0.5 * size, 0.5 * (x1 - x0) * tilt)
        out.append(
            (
                x0 - 0.15 * size,
                baseline - 0.85 * size - rise,
                x1 + 0.15 * size,
                baseline + 0.3 * size + rise,
            )
        )
    return out


def background(pixels: Sequence[tuple[int, int, int]]) -> tuple[float, float, float]:
    """The background colour (0..1 RGB) among ``pixels`` sampled around a word box: the most
    common colour, after rounding away scan noise, of the lighter half of the pixels (the
    ring crosses the strokes of neighbour lines); white when there are none."""
    if not pixels:
        return (1.0, 1.0, 1.0)
    lightness = sorted(sum(p) for p in pixels)
    middle = lightness[len(lightness) // 2]
    pixels = [p for p in pixels if sum(p) >= middle]
    counts = Counter((r // 16, g // 16, b // 16) for r, g, b in pixels)
    best = counts.most_common(1)[0][0]
    chosen = [p for p in pixels if (p[0] // 16, p[1] // 16, p[2] // 16) == best]
    return tuple(statistics.fmean(p[i] for p in chosen) / 255.0 for i in range(3))  # type: ignore[return-value]


def ring(box: Rect, scale: float, width: int, height: int, margin: float = 2.0) -> list[int]:
    """Pixel indices (row-major, ``width`` x ``height`` at ``scale`` pixels per point) of
    the outline ``margin`` points outside ``box``."""
    x0 = max(0, min(width - 1, int((box[0] - margin) * scale)))
    x1 = max(0, min(width - 1, int((box[2] + margin) * scale)))
    y0 = max(0, min(height - 1, int((box[1] - margin) * scale)))
    y1 = max(0, min(height - 1, int((box[3] + margin) * scale)))
    out = [y0 * width + x for x in range(x0, x1 + 1)]
    out += [y1 * width + x for x in range(x0, x1 + 1)]
    out += [y * width + x0 for y in range(y0, y1 + 1)]
    out += [y * width + x1 for y in range(y0, y1 + 1)]
    return out


#: Resolution of the page image the background colours are sampled from.
SAMPLE_DPI = 72


def paint_covers(page: pymupdf.Page, rects: Sequence[Rect]) -> int:
    """Paint over the scanned words of the lines whose redaction bands are ``rects``, each
    cover in the background colour around it; returns how many covers were painted."""
    boxes = cover_boxes(rects)
    if not boxes:
        return 0
    pix = page.get_pixmap(dpi=SAMPLE_DPI, colorspace=pymupdf.csRGB, alpha=False)
    samples, n = pix.samples, pix.n
    scale = SAMPLE_DPI / 72.0
    origin = page.rect
    shape = page.new_shape()
    for box in boxes:
        local = (box[0] - origin.x0, box[1] - origin.y0, box[2] - origin.x0, box[3] - origin.y0)
        pixels = [
            (samples[i * n], samples[i * n + 1], samples[i * n + 2])
            for i in ring(local, scale, pix.width, pix.height)
        ]
        shape.draw_rect(pymupdf.Rect(box))
        shape.finish(color=None, fill=background(pixels), width=0)
    shape.commit(overlay=True)
    return len(boxes)
