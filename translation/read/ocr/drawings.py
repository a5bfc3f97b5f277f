"""Drawings in a scan: where a scanned page's ink is not text, with the labels Tesseract read
in them (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from translation.read.layout import Rect, union

#: Pixels a point of the page image the drawings are found on (18 dpi: a cell of 4 points).
GRAPHIC_SCALE = 0.25

#: A piece of ink this many points wide and high or more may be a drawing ...
_PIECE_LEAST = 8
#: ... when it holds this many dark pixels or more ...
_PIECE_PIXELS = 4
#: ... and the pieces merged cover this many square points or more.
_FIGURE_AREA = 2500


#: Pixels (at the graphic scale) between two dark pixels of one drawing.
_STROKE_REACH = 3
#: Points of room around a drawing's piece, so its edge strokes are inside it.
_PIECE_ROOM = 6


def graphic_regions(
    dark: Sequence[bool],
    width: int,
    height: int,
    lines: Sequence[Rect],
    scale: float = GRAPHIC_SCALE,
) -> list[Rect]:
    """The figures of a scanned page: where its ink is not text. ``dark`` is the page image
    (row-major, ``width`` x ``height`` pixels, ``scale`` pixels a point); ``lines`` are the
    bands of the OCR'd lines, whose ink is text. The rest of the ink is grouped into pieces
    (pixels within 2 of each other); the pieces that are two-dimensional (not a rule of a
    table, a fraction bar or an underline), 6 points larger and joined where they overlap, are
    a figure when large enough: the labels Tesseract read in it stay as they are.
    """
    if len(dark) != width * height or not width:
        return []
    text = bytearray(width * height)
    for x0, y0, x1, y1 in lines:
        c0, c1 = max(0, int((x0 - 2) * scale)), min(width - 1, int((x1 + 2) * scale))
        r0, r1 = max(0, int((y0 - 2) * scale)), min(height - 1, int((y1 + 2) * scale))
        for r in range(r0, r1 + 1):
            text[r * width + c0 : r * width + c1 + 1] = b"\x01" * (c1 - c0 + 1)
    seen = bytearray(width * height)
    pieces: list[Rect] = []
    reach = _STROKE_REACH
    for start in range(width * height):
        if not dark[start] or text[start] or seen[start]:
            continue
        seen[start] = 1
        stack, count = [start], 0
        c0 = c1 = start % width
        r0 = r1 = start // width
        while stack:
            at = stack.pop()
            count += 1
            r, c = divmod(at, width)
            c0, c1, r0, r1 = min(c0, c), max(c1, c), min(r0, r), max(r1, r)
            for rr in range(max(0, r - reach), min(height, r + reach + 1)):
                for cc in range(max(0, c - reach), min(width, c + reach + 1)):
                    nxt = rr * width + cc
                    if dark[nxt] and not text[nxt] and not seen[nxt]:
                        seen[nxt] = 1
                        stack.append(nxt)
        w, h = (c1 - c0 + 1) / scale, (r1 - r0 + 1) / scale
        if w >= _PIECE_LEAST and h >= _PIECE_LEAST and count >= _PIECE_PIXELS:
            pieces.append(
                (
                    c0 / scale - _PIECE_ROOM,
                    r0 / scale - _PIECE_ROOM,
                    (c1 + 1) / scale + _PIECE_ROOM,
                    (r1 + 1) / scale + _PIECE_ROOM,
                )
            )
    return [r for r in _merged(pieces) if (r[2] - r[0]) * (r[3] - r[1]) >= _FIGURE_AREA]


#: A line of at most this many words touching a drawing is its label ...
_LABEL_WORDS = 3
#: ... touching: this many points near it or nearer.
_LABEL_REACH = 6


def with_labels(figures: Sequence[Rect], lines: Sequence[tuple[Rect, int]]) -> list[Rect]:
    """``figures`` grown over the short lines (``(box, words)``, at most 3 words) that touch
    them, until none is left: the labels of a drawing, and the drawing Tesseract read as text
    ("(~ links to Com)"). A line of running text is longer and stays out."""
    out = list(figures)
    short = [box for box, words in lines if words <= _LABEL_WORDS]
    grown = True
    while grown and out:
        grown = False
        for box in short:
            for i, fig in enumerate(out):
                near = (
                    box[0] <= fig[2] + _LABEL_REACH
                    and fig[0] - _LABEL_REACH <= box[2]
                    and box[1] <= fig[3] + _LABEL_REACH
                    and fig[1] - _LABEL_REACH <= box[3]
                )
                inside = (
                    fig[0] <= box[0] and box[2] <= fig[2] and fig[1] <= box[1] and box[3] <= fig[3]
                )
                if near and not inside:
                    out[i] = union([fig, box])
                    grown = True
        out = _merged(out)
    return out


def _merged(boxes: Sequence[Rect]) -> list[Rect]:
    """``boxes`` with the ones that overlap joined, until none do."""
    out = list(boxes)
    joined = True
    while joined:
        joined = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]:
                    out[i] = union([a, b])
                    del out[j]
                    joined = True
                    break
            if joined:
                break
    return out
