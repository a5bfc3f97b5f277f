"""Removing a paragraph's source text from a page, and nothing else.

Redaction removes every glyph whose box it touches, and glyph boxes can be far taller than the
glyphs: the plan here keeps the bands thin, slides them off glyphs that must stay, and names the
glyphs that could not be missed so the caller can put them back.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

import pymupdf
from pymupdf import mupdf

from translation.layout import Frame, Rect
from translation.paragraph import Paragraph

# Ligatures expanded, whitespace kept, text outside the media box ignored, no image blocks.
TEXT_FLAGS = pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP


def redact(page: pymupdf.Page, rects: Sequence[Rect]) -> None:
    """Remove the text under ``rects``, nothing else (images and vector graphics stay).

    All rects go into one redaction annotation as QuadPoints: PyMuPDF's add_redact_annot costs
    O(annotations) per call, which made pages with hundreds of rects slow.
    """
    if not rects:
        return
    annot = mupdf.pdf_create_annot(page._pdf_page(), mupdf.PDF_ANNOT_REDACT)
    for x0, y0, x1, y1 in rects:
        mupdf.pdf_add_annot_quad_point(annot, mupdf.FzQuad(mupdf.FzRect(x0, y0, x1, y1)))
    page.apply_redactions(
        images=pymupdf.PDF_REDACT_IMAGE_NONE,
        graphics=pymupdf.PDF_REDACT_LINE_ART_NONE,
        text=pymupdf.PDF_REDACT_TEXT_REMOVE,
    )


def redaction_plan(
    page: pymupdf.Page, paragraphs: Sequence[Paragraph]
) -> tuple[list[Rect], list[tuple[tuple[str, int, int], pymupdf.Rect]]]:
    """The rects to redact, and the areas of other glyphs to copy back afterwards.

    Redaction removes every glyph whose box it touches, and glyph boxes can be far taller than
    the glyphs (big delimiters; Word's math font is three lines high). A paragraph's rects are
    thin bands inside its own glyphs; each one slides within its glyphs' height to miss the
    boxes of text that stays (display formulas, labels, untranslated neighbours). Where that is
    impossible the band stays, and the other glyphs it would take along are pictured before
    the redaction and put back after it.
    """
    ours = [(r, Frame(p.direction)) for p in paragraphs for r in p.rects]
    ours_sorted = sorted((r for r, _ in ours), key=lambda r: r[1])
    tops = [r[1] for r in ours_sorted]
    tallest = max((r[3] - r[1] for r in ours_sorted), default=0.0)
    foreign = []
    for span, frame in all_spans(page):
        bbox = tuple(span["bbox"])
        size = float(span["size"])
        x0, _, x1, _ = frame.to_frame(bbox)
        base = frame.point(*span["origin"])[1]
        # A span is ours when the band segment._make_row gives it meets one of our rects.
        tight = frame.to_page((x0 + 0.1, base - 0.6 * size, x1 - 0.1, base - 0.1))
        i = bisect.bisect_left(tops, tight[1] - tallest)
        if not any(_intersects(tight, r) for r in ours_sorted[i:] if r[1] <= tight[3]):
            glyphs = frame.to_page((x0, base - 0.85 * size, x1, base + 0.3 * size))
            foreign.append((bbox, glyphs, span_key((span, frame))))
    if not foreign:
        return [r for r, _ in ours], []
    foreign.sort(key=lambda item: item[0][1])
    foreign_tops = [item[0][1] for item in foreign]
    rects: list[Rect] = []
    patches: dict[tuple[str, int, int], pymupdf.Rect] = {}
    for rect, frame in ours:
        reach = 3.0 * (rect[3] - rect[1] + rect[2] - rect[0])  # bound for the search below
        lo = bisect.bisect_left(foreign_tops, rect[1] - reach)
        near = [f for f in foreign[lo:] if f[0][1] <= rect[3] + reach]
        moved, hit = _dodge(rect, frame, [bbox for bbox, _, _ in near])
        rects.append(moved)
        for bbox, glyphs, key in near:
            if hit and _intersects(bbox, moved):
                patches[key] = pymupdf.Rect(glyphs)
    return rects, list(patches.items())


def all_spans(page: pymupdf.Page) -> list[tuple[dict[str, Any], Frame]]:
    """Every non-blank text span of the page, with the frame of its line."""
    spans: list[tuple[dict[str, Any], Frame]] = []
    for block in page.get_text("dict", flags=TEXT_FLAGS)["blocks"]:
        for line in block.get("lines", ()):
            frame = Frame((float(line["dir"][0]), float(line["dir"][1])))
            spans.extend((span, frame) for span in line["spans"] if span["text"].strip())
    return spans


def span_key(item: tuple[dict[str, Any], Frame]) -> tuple[str, int, int]:
    span = item[0]
    return span["text"], round(span["origin"][0] * 4), round(span["origin"][1] * 4)


def _intersects(a: Sequence[float], b: Sequence[float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _dodge(rect: Rect, frame: Frame, foreign: Sequence[Rect]) -> tuple[Rect, bool]:
    """Slide the band ``rect`` off the ``foreign`` boxes; returns (band, still touching)."""
    x0, y0, x1, y1 = frame.to_frame(rect)
    size = (y1 - y0) / 0.5  # the band is half a font size high
    lo, hi = y0 - 0.1 * size, y1 + 0.25 * size  # still inside the text's own glyph boxes
    hits = []
    for box in foreign:
        fx0, fy0, fx1, fy1 = frame.to_frame(box)
        if fx0 < x1 and fx1 > x0 and fy0 < hi and fy1 > lo:
            hits.append((max(lo, fy0), min(hi, fy1)))
    if not hits:
        return rect, False
    best, cursor = (0.0, 0.0), lo
    for start, end in sorted(hits):
        if start - cursor > best[1] - best[0]:
            best = (cursor, start)
        cursor = max(cursor, end)
    if hi - cursor > best[1] - best[0]:
        best = (cursor, hi)
    if best[1] - best[0] >= 0.08 * size:
        pad = min(0.02 * size, (best[1] - best[0]) / 4)
        return frame.to_page((x0, best[0] + pad, x1, best[1] - pad)), False
    return rect, True


def merge(rects: Sequence[pymupdf.Rect]) -> list[pymupdf.Rect]:
    """Union of overlapping rects."""
    merged: list[pymupdf.Rect] = []
    for rect in sorted(rects, key=lambda r: (r.y0, r.x0)):
        for i, other in enumerate(merged):
            if rect.intersects(other) or (
                abs(rect.y0 - other.y0) < 1 and abs(rect.y1 - other.y1) < 1 and rect.x0 <= other.x1
            ):
                merged[i] = other | rect
                break
        else:
            merged.append(pymupdf.Rect(rect))
    return merged
