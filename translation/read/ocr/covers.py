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

from translation.read.layout import POINTS_PER_INCH, Rect

#: Largest skew (degrees) the covers allow for.
MAX_SKEW_DEG = 1.0


#: Points: a tall box overlapping a paragraph across by less is not its line ...
_NARROWEST = 1.0
#: ... nor one overlapping it down by less than this share of the font size.
_HOLDS = 0.4
#: A cover (cover_boxes, no skew) is this many band heights high, reaching this many below
#: the band's foot, and this many inside the band's ends.
_COVER_BANDS, _COVER_BELOW, _COVER_SIDE = 2.3, 0.8, 0.3


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
        if x1 - x0 < _NARROWEST or min(bottom, bbox[3]) - max(top, bbox[1]) < _HOLDS * size:
            continue
        # cover_boxes: from y1 - 1.5 h to y1 + 0.8 h for a band of height h (no skew).
        h = (bottom - top) / _COVER_BANDS
        y1 = bottom - _COVER_BELOW * h
        out.append((x0 + _COVER_SIDE * h, y1 - h, x1 - _COVER_SIDE * h, y1))
    return out


#: A redaction band (rows.row) is half a font size high: the size is this many band heights ...
_BAND_SIZES = 2.0
#: ... and its foot lies this share of the size above the baseline.
_BAND_FOOT = 0.1
#: Of the font size: a cover reaches this far above the baseline (ascenders) ...
_ASCENDERS = 0.85
#: ... this far below it (descenders) ...
_DESCENDERS = 0.3
#: ... this far past the band's ends, and rises with the skew by at most this much.
_WIDER, _RISE_MOST = 0.15, 0.5
#: The skew in degrees to radians, as first written (math.pi differs in the ninth place).
_PI, _HALF_TURN = 3.14159265, 180.0


def cover_boxes(rects: Sequence[Rect], skew_deg: float = MAX_SKEW_DEG) -> list[Rect]:
    """The areas to paint over to hide the scanned words of lines whose redaction bands are
    ``rects`` (``rows.make_row``: half a font size high, its bottom a tenth of a size above the
    baseline): from the ascenders to the descenders, wide by a little, and high by the rise of
    a line of that width skewed by ``skew_deg``."""
    tilt = abs(skew_deg) * _PI / _HALF_TURN
    out = []
    for x0, y0, x1, y1 in rects:
        size = _BAND_SIZES * (y1 - y0)
        baseline = y1 + _BAND_FOOT * size
        rise = min(_RISE_MOST * size, 0.5 * (x1 - x0) * tilt)
        out.append(
            (
                x0 - _WIDER * size,
                baseline - _ASCENDERS * size - rise,
                x1 + _WIDER * size,
                baseline + _DESCENDERS * size + rise,
            )
        )
    return out


#: The largest value of an 8-bit colour channel.
_CHANNEL = 255.0
#: Points outside a word box the background is sampled at.
_RING_MARGIN = 2.0

#: Channel levels this far apart are one colour: a scan's noise rounded away.
_NOISE = 16


def background(pixels: Sequence[tuple[int, int, int]]) -> tuple[float, float, float]:
    """The background colour (0..1 RGB) among ``pixels`` sampled around a word box: the most
    common colour, after rounding away scan noise, of the lighter half of the pixels (the
    ring crosses the strokes of neighbour lines); white when there are none."""
    if not pixels:
        return (1.0, 1.0, 1.0)
    lightness = sorted(sum(p) for p in pixels)
    middle = lightness[len(lightness) // 2]
    pixels = [p for p in pixels if sum(p) >= middle]
    counts = Counter((r // _NOISE, g // _NOISE, b // _NOISE) for r, g, b in pixels)
    best = counts.most_common(1)[0][0]
    chosen = [p for p in pixels if (p[0] // _NOISE, p[1] // _NOISE, p[2] // _NOISE) == best]
    return tuple(statistics.fmean(p[i] for p in chosen) / _CHANNEL for i in range(3))  # type: ignore[return-value]


def ring(
    box: Rect, scale: float, width: int, height: int, margin: float = _RING_MARGIN
) -> list[int]:
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
    scale = SAMPLE_DPI / POINTS_PER_INCH
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
