"""Typesetting a translation into its paragraph's box, with formulas copied from the source."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import pymupdf

from translation.fonts import Fitted, FontChain, fit, is_cjk_language, plain_char
from translation.formulas import mark_key
from translation.layout import Frame
from translation.paragraph import Align, Paragraph, ParagraphKind


def picture(listing: pymupdf.DisplayList, clip: pymupdf.Rect) -> pymupdf.Pixmap:
    zoom = pymupdf.Matrix(_COPY_ZOOM, _COPY_ZOOM)
    return listing.get_pixmap(matrix=zoom, clip=clip, alpha=True)


_COPY_ZOOM = 4.0  # pictures of glyphs at 288 dpi


def rgb(color: int) -> tuple[float, float, float]:
    return ((color >> 16 & 255) / 255, (color >> 8 & 255) / 255, (color & 255) / 255)


#: (paragraph id, placeholder) -> [(picture, source rect, source descent)], one per piece.
Copies = Mapping[tuple[str, str], list[tuple[pymupdf.Pixmap, pymupdf.Rect, float]]]


def copied_formulas(items: Sequence[tuple[Paragraph, str]]) -> list[tuple[Paragraph, str]]:
    """(paragraph, placeholder) of the formulas the translations mark for copying."""
    wanted: list[tuple[Paragraph, str]] = []
    for para, text in items:
        keys = {key for key in map(mark_key, text) if key is not None}
        wanted.extend((para, key) for key in sorted(keys) if para.formula_boxes.get(key))
    return wanted


def formula_copies(
    listing: pymupdf.DisplayList,
    page_rect: pymupdf.Rect,
    wanted: Sequence[tuple[Paragraph, str]],
) -> dict[tuple[str, str], list[tuple[pymupdf.Pixmap, pymupdf.Rect, float]]]:
    """Pictures of formulas to copy as they look (see segment.restore), taken before the page
    is redacted, with how far each piece reaches below its baseline (see ``Copies``)."""
    copies: dict[tuple[str, str], list[tuple[pymupdf.Pixmap, pymupdf.Rect, float]]] = {}
    for para, key in wanted:
        pieces = []
        boxes = para.formula_boxes[key]
        descents = para.formula_descents.get(key) or ()
        for i, box in enumerate(boxes):
            rect = pymupdf.Rect(box) & page_rect
            descent = descents[i] if i < len(descents) else 0.25 * para.font_size
            if not rect.is_empty:
                pieces.append((picture(listing, rect), rect, descent))
        copies[(para.id, key)] = pieces
    return copies


def typeset(
    page: pymupdf.Page,
    para: Paragraph,
    text: str,
    chain: FontChain,
    target_lang: str,
    writers: dict[tuple[int, bool], pymupdf.TextWriter],
    copies: Copies,
) -> None:
    """Lay out ``text`` in ``para``'s box and add it to the page's text writers."""
    frame = Frame(para.direction)
    x0, y0, x1, y1 = frame.to_frame(para.bbox)
    width, height = x1 - x0, y1 - y0
    src = para.font_size or 10.0
    leading = max(para.line_pitch if para.line_count > 1 else 0.0, _leading(target_lang))
    leading = min(leading, 1.6)
    text = " ".join(text.split())

    def measure(unit: str) -> float:
        total = 0.0
        for char in unit:
            key = mark_key(char)
            if key is not None:
                total += sum(r.width for _, r, _ in copies.get((para.id, key), [])) / src
            else:
                total += chain.advance(char)
        return total

    fitted = fit(text, width, height, src, leading, measure)
    if para.kind == ParagraphKind.CELL and para.max_bbox is not None and fitted.size < src:
        cell = _fit_cell(para, text, (x0, y0, x1, y1), frame, src, leading, measure)
        if cell is None:
            return
        fitted, (x0, y0, x1, y1) = cell
        width = x1 - x0
    if not fitted.lines:
        return
    size = fitted.size
    horizontal = frame.u == (1.0, 0.0)
    if horizontal:
        writer = writers.get((para.color, para.bold))
        if writer is None:
            writer = writers[(para.color, para.bold)] = pymupdf.TextWriter(page.rect)
    else:
        writer = pymupdf.TextWriter(page.rect)
    hidden = None  # invisible text of copied formulas, so they stay searchable
    if horizontal and para.glyph_formulas:
        hidden = writers.get((-1, False))
        if hidden is None:
            hidden = writers[(-1, False)] = pymupdf.TextWriter(page.rect)
    # Horizontal text is written where it goes; other directions are written horizontally
    # from the box's first corner, then turned about it (TextWriter morph).
    origin = frame.page_point(x0, y0)
    ox, oy = (x0, y0) if horizontal else origin
    baseline = oy + 0.8 * size
    space = chain.advance(" ") * size
    last = len(fitted.lines) - 1
    for number, line in enumerate(fitted.lines):
        slack = width - line.width * size
        x = ox + (max(0.0, slack / 2) if para.align == Align.CENTER else 0.0)
        spaced = " " in line.units
        gap = 0.0
        if para.align == Align.JUSTIFY and number < last and 0 < slack < 0.25 * width:
            # Extra space goes to the spaces of the line, or else between its units (CJK).
            points = line.units.count(" ") if spaced else len(line.units) - 1
            gap = slack / points if points else 0.0
            if gap > 0.8 * size:  # too loose: leave the line ragged
                gap = 0.0
        pending = ""  # units written together while no extra space separates them
        for unit in line.units:
            if unit == " " and not gap:
                pending += " "
                continue
            if unit == " ":
                x = _write(
                    writer, page, chain, pending, x, baseline, size, para, copies, src, hidden
                )
                x += space + gap
                pending = ""
                continue
            pending += unit
            if gap and not spaced:
                x = _write(
                    writer, page, chain, pending, x, baseline, size, para, copies, src, hidden
                )
                x += gap
                pending = ""
        _write(writer, page, chain, pending, x, baseline, size, para, copies, src, hidden)
        baseline += size * fitted.leading
    if not horizontal:
        angle = -math.degrees(math.atan2(frame.u[1], frame.u[0]))
        writer.write_text(
            page,
            color=rgb(para.color),
            render_mode=2 if para.bold else 0,
            morph=(pymupdf.Point(origin), pymupdf.Matrix(angle)),
        )


#: A cell's translation is never set smaller than this share of the source size.
CELL_MIN_SCALE = 0.6


def _fit_cell(
    para: Paragraph,
    text: str,
    box: tuple[float, float, float, float],
    frame: Frame,
    src: float,
    leading: float,
    measure: Callable[[str], float],
) -> tuple[Fitted, tuple[float, float, float, float]] | None:
    """A table cell's translation that does not fit its glyph box at the source size grows
    into ``para.max_bbox`` (its column's free width, the free space below), centred on the
    source text as far as the room allows, and shrinks no further than CELL_MIN_SCALE; None
    when even that does not fit (the source is then kept: see ``cell_fits``)."""
    assert para.max_bbox is not None
    rx0, _, rx1, ry1 = frame.to_frame(para.max_bbox)
    x0, y0, x1, y1 = box
    rx0, rx1, ry1 = min(rx0, x0), max(rx1, x1), max(ry1, y1)
    fitted = fit(text, rx1 - rx0, ry1 - y0, src, leading, measure, CELL_MIN_SCALE * src)
    if not fitted.fits or not fitted.lines:
        return None
    used = max(line.width for line in fitted.lines) * fitted.size + 0.5
    if used >= rx1 - rx0:
        return fitted, (rx0, y0, rx1, ry1)
    left = min(max((x0 + x1 - used) / 2, rx0), rx1 - used)
    return fitted, (left, y0, left + used, ry1)


def cell_fits(para: Paragraph, text: str, chain: FontChain, target_lang: str) -> bool:
    """Whether a translation can be set in ``para`` without shrinking a table cell below
    CELL_MIN_SCALE of its source size (other paragraphs always can)."""
    if para.kind != ParagraphKind.CELL or para.max_bbox is None:
        return True
    frame = Frame(para.direction)
    box = frame.to_frame(para.bbox)
    src = para.font_size or 10.0
    leading = min(1.6, max(para.line_pitch if para.line_count > 1 else 0.0, _leading(target_lang)))
    text = " ".join(text.split())

    def measure(unit: str) -> float:
        total = 0.0
        for char in unit:
            key = mark_key(char)
            if key is not None:
                total += (
                    sum(
                        frame.to_frame(r)[2] - frame.to_frame(r)[0]
                        for r in para.formula_boxes.get(key, ())
                    )
                    / src
                )
            else:
                total += chain.advance(char)
        return total

    if fit(text, box[2] - box[0], box[3] - box[1], src, leading, measure).size >= src:
        return True
    return _fit_cell(para, text, box, frame, src, leading, measure) is not None


def _leading(target_lang: str) -> float:
    return 1.3 if is_cjk_language(target_lang) else 1.2


def _write(
    writer: pymupdf.TextWriter,
    page: pymupdf.Page,
    chain: FontChain,
    text: str,
    x: float,
    baseline: float,
    size: float,
    para: Paragraph,
    copies: Copies,
    src: float,
    hidden: pymupdf.TextWriter | None = None,
) -> float:
    """Append ``text`` at (x, baseline) in runs of one font; returns the x after it. A
    formula marker is drawn as the pictures of its glyphs, its source baseline on ours, with
    its source text invisible on top (into ``hidden``)."""
    run, run_font, run_width = "", 0, 0.0
    for char in text + "\0":
        key = mark_key(char) if char != "\0" else None
        index = chain.index(char) if char != "\0" and key is None else -2
        if run and index != run_font:
            writer.append((x, baseline), run, font=chain.fonts[run_font], fontsize=size)
            x += run_width * size
            run, run_width = "", 0.0
        if key is not None:
            scale = size / src
            start = x
            for pixmap, rect, descent in copies.get((para.id, key), []):
                w, h = rect.width * scale, rect.height * scale
                bottom = baseline + descent * scale
                target = pymupdf.Rect(x, bottom - h, x + w, bottom)
                page.insert_image(target, pixmap=pixmap, keep_proportion=False)
                x += w
            source = "".join(c for c in para.placeholders.get(key, "") if c.isprintable())
            if hidden is not None and source.strip() and x > start:
                _write(hidden, page, chain, source, start, baseline, size, para, {}, src)
        elif index >= 0:
            run += plain_char(char)[0]
            run_font = index
            run_width += chain.advance(char)
    return x
