"""Typesetting a translation into its paragraph's box, with formulas copied from the source."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import pymupdf
from pymupdf import mupdf

from translation.read.formulas import mark_key
from translation.read.layout import Frame, Rect
from translation.read.paragraph import Align, Paragraph, ParagraphKind
from translation.read.style import color_of, is_bold, is_italic, lead_end, style_code
from translation.render.fitting import page_obstacles, plan
from translation.render.fonts import Fitted, FontChain, fit, is_cjk_language, plain_char
from translation.render.glyphs import FormulaSource, Sheet, glyph_like
from translation.render.redaction import RULE_REACH


def rgb(color: int) -> tuple[float, float, float]:
    return ((color >> 16 & 255) / 255, (color >> 8 & 255) / 255, (color & 255) / 255)


@dataclass(frozen=True, slots=True)
class FormulaCopy:
    """A piece of a formula, as an XObject holding only its original glyphs (vectors), to be
    placed on the page's ``sheet``."""

    xobject: mupdf.PdfObj
    sheet: Sheet


#: (paragraph id, placeholder) -> [(copy, source rect, source descent)], one per piece.
Copies = Mapping[tuple[str, str], list[tuple[FormulaCopy, pymupdf.Rect, float]]]


def copied_formulas(items: Sequence[tuple[Paragraph, str]]) -> list[tuple[Paragraph, str]]:
    """(paragraph, placeholder) of the formulas the translations mark for copying."""
    wanted: list[tuple[Paragraph, str]] = []
    for para, text in items:
        keys = {key for key in map(mark_key, text) if key is not None}
        wanted.extend((para, key) for key in sorted(keys) if para.formula_boxes.get(key))
    return wanted


def formula_copies(
    source: FormulaSource,
    number: int,
    sheet: Sheet,
    page_rect: pymupdf.Rect,
    wanted: Sequence[tuple[Paragraph, str]],
) -> dict[tuple[str, str], list[tuple[FormulaCopy, pymupdf.Rect, float]]]:
    """Vector copies of the formulas to copy as they look (see formulas.restore), taken from
    the original page ``number``, with how far each piece reaches below its baseline (see
    ``Copies``).

    A piece's XObject holds the glyphs of the paragraph's glyph bands (``rects``) of its own
    line inside the piece, never those of the lines above and below that a tall piece (a
    big operator, a fraction) reaches over; so the area shown can reach a little above and
    below the estimated glyph box, to show the whole ink of the glyphs and nothing else."""
    pieces: list[tuple[tuple[str, str], pymupdf.Rect, float, float, list[Rect]]] = []
    for para, key in wanted:
        size = para.font_size or 10.0
        descents = para.formula_descents.get(key) or ()
        for i, box in enumerate(para.formula_boxes[key]):
            descent = descents[i] if i < len(descents) else 0.25 * size
            rect = _with_paths(pymupdf.Rect(box), source.paths(number), size) & page_rect
            if rect.is_empty:
                continue
            base = box[3] - descent
            bands = [
                tuple(pymupdf.Rect(band) & rect)
                for band in para.rects
                if base - 1.2 * size < (band[1] + band[3]) / 2 < base + 0.5 * size
                and rect.intersects(band)
            ]
            # The formula's rules (bars, overlines) may stand a little outside its glyph box.
            reach = RULE_REACH * size
            grown = pymupdf.Rect(rect.x0 - 1.0, rect.y0 - reach, rect.x1 + 1.0, rect.y1 + reach)
            bands.extend(path for path in source.paths(number) if grown.contains(path))
            pieces.append(((para.id, key), rect, descent + rect.y1 - box[3], size, bands))
    xobjects = source.xobjects(number, [bands for *_, bands in pieces])
    copies: dict[tuple[str, str], list[tuple[FormulaCopy, pymupdf.Rect, float]]] = {
        key: [] for key in ((p.id, k) for p, k in wanted)
    }
    for (ident, rect, descent, size, _), xobject in zip(pieces, xobjects, strict=True):
        margin = _COPY_MARGIN * size
        shown = pymupdf.Rect(rect.x0, rect.y0 - margin, rect.x1, rect.y1 + margin) & page_rect
        copies[ident].append((FormulaCopy(xobject, sheet), shown, descent + margin))
    return copies


def _with_paths(rect: pymupdf.Rect, paths: Sequence[Rect], size: float) -> pymupdf.Rect:
    """``rect`` grown over the glyph-like paths at its ends or inside it (Word draws
    stretched brackets and braces of a formula as paths, outside its text)."""
    for box in paths:
        cy = (box[1] + box[3]) / 2
        if (
            rect.y0 <= cy <= rect.y1
            and rect.x0 - 0.6 * size < box[2]
            and box[0] < rect.x1 + 0.6 * size
            and glyph_like(box, size)
        ):
            rect |= box
    return rect


_COPY_MARGIN = 0.3  # font sizes shown above and below a formula piece's estimated glyph box


#: A text writer per look: (colour, bold, italic, baseline of an italic line or 0).
WriterKey = tuple[int, bool, bool, float]
Writers = dict[WriterKey, pymupdf.TextWriter]
_SLANT = 0.2  # italics are slanted upright glyphs (the fonts have no italic faces)


@dataclass(slots=True)
class Placement:
    """Where :func:`typeset` put the characters of ``text`` (the translation as set, spaces
    collapsed): a page box per character, None where nothing was drawn (a space at a line
    break, text cut off, text that does not run horizontally)."""

    text: str
    boxes: list[Rect | None]
    size: float = 0.0

    def rects(self, start: int, end: int) -> list[Rect]:
        """The boxes of characters ``start:end``, joined per line."""
        out: list[Rect] = []
        for box in self.boxes[start:end]:
            if box is None:
                continue
            if out and abs(out[-1][3] - box[3]) < 0.5 and box[0] >= out[-1][0] - 0.5:
                last = out[-1]
                out[-1] = (last[0], min(last[1], box[1]), max(last[2], box[2]), last[3])
            else:
                out.append(box)
        return out


def measurer(para: Paragraph, chain: FontChain, copies: Copies) -> Callable[[str], float]:
    """Width at size 1 of a piece of ``para``'s translation (copied formulas included)."""
    src = para.font_size or 10.0

    def measure(unit: str) -> float:
        total = 0.0
        for char in unit:
            key = mark_key(char)
            if key is not None:
                total += sum(r.width for _, r, _ in copies.get((para.id, key), [])) / src
            else:
                total += chain.advance(char)
        return total

    return measure


def leading(para: Paragraph, target_lang: str) -> float:
    """Baseline distance / font size for ``para``'s translation."""
    pitch = para.line_pitch if para.line_count > 1 else 0.0
    return min(max(pitch, _leading(target_lang)), 1.6)


def char_styles(para: Paragraph, text: str) -> list[int]:
    """The style code (``translation.read.style``) of each character of the translation ``text``:
    the body style, the run-in lead (after the paragraph's label) up to where it ends in the
    translation, and the source's styled runs where their text is found again (whole words,
    in order)."""
    body = style_code(para.color, para.bold, para.italic)
    codes = [body] * len(text)
    label = para.label.strip()
    start = len(label) if label and text.startswith(label) else 0
    if start and para.label_style is not None:  # a bold "I." keeps its weight
        codes[:start] = [para.label_style] * start
    start += len(text[start:]) - len(text[start:].lstrip())
    end = start + lead_end(para.lead, text[start:]) if para.lead else 0
    codes[start:end] = [para.lead_style] * (end - start)
    cursor = end
    for run, code in para.runs:
        found = _find_word(text, run, cursor, end)
        if found >= 0 and all(c == body for c in codes[found : found + len(run)]):
            codes[found : found + len(run)] = [code] * len(run)
            cursor = found + len(run)
    return codes


def _find_word(text: str, part: str, start: int, floor: int) -> int:
    """``part`` in ``text`` at ``start`` or after (else after ``floor``), not inside a Latin
    word or number."""
    for begin in (start, floor):
        i = text.find(part, begin)
        while i >= 0:
            before = text[i - 1] if i > 0 else " "
            after = text[i + len(part)] if i + len(part) < len(text) else " "
            if not (_latin(before) and _latin(part[0])) and not (
                _latin(after) and _latin(part[-1])
            ):
                return i
            i = text.find(part, i + 1)
    return -1


def _latin(char: str) -> bool:
    return char.isascii() and char.isalnum()


def typeset(
    page: pymupdf.Page,
    para: Paragraph,
    text: str,
    chain: FontChain,
    target_lang: str,
    writers: Writers,
    copies: Copies,
    area: Rect | None = None,
    size: float | None = None,
) -> Placement:
    """Lay out ``text`` in ``para``'s box (or ``area``, at most at ``size``: see
    ``translation.render.fitting``) and add it to the page's text writers, styled per character
    (:func:`char_styles`). Returns where each character went."""
    frame = Frame(para.direction)
    x0, y0, x1, y1 = frame.to_frame(area or para.bbox)
    width, height = x1 - x0, y1 - y0
    src = para.font_size or 10.0
    text = " ".join(text.split())
    placement = Placement(text, [None] * len(text))
    measure = measurer(para, chain, copies)
    pitch = leading(para, target_lang)
    label = para.label.strip()
    label_end = len(label) if label and text.startswith(label) else 0
    # A hanging indent: the label alone in the indent, every line of the text after it.
    hang = _hang(para, text, label_end, measure, size or src)
    body_at = label_end + 1 if hang else 0
    fit_text, measure_indented = _indented(para, text[body_at:], measure)
    fitted = fit(fit_text, width - hang, height, size or src, pitch, measure_indented)
    if para.kind == ParagraphKind.CELL and para.max_bbox is not None and fitted.size < src:
        # A table cell grows into its column before it shrinks (see _fit_cell).
        cell = _fit_cell(para, text, (x0, y0, x1, y1), frame, src, pitch, measure)
        if cell is None:
            return placement
        fitted, (x0, y0, x1, y1) = cell
        width = x1 - x0
    if not fitted.lines:
        return placement
    size = placement.size = fitted.size
    horizontal = frame.u == (1.0, 0.0)
    styles = char_styles(para, text)
    turned = None if horizontal else pymupdf.TextWriter(page.rect)
    # Horizontal text is written where it goes; other directions are written horizontally
    # from the box's first corner, then turned about it (TextWriter morph).
    origin = frame.page_point(x0, y0)
    ox, oy = (x0, y0) if horizontal else origin
    baseline = oy + 0.8 * size
    used = size * (1.0 + (len(fitted.lines) - 1) * fitted.leading)
    if (
        horizontal
        and size < src
        and _on_source_baseline(para)
        and used + 0.8 * (src - size) <= height
    ):
        baseline = oy + 0.8 * src  # set smaller, a heading still starts on its source baseline
    space = chain.advance(" ") * size
    last = len(fitted.lines) - 1

    def flush(piece: str, start: int, x: float, baseline: float) -> float:
        """Write ``piece`` (text[start:...]) in runs of one style from x; the x after. The
        label is set at its own size and rise (a superscript footnote marker)."""
        i = 0
        while i < len(piece):
            code = styles[start + i]
            j = i + 1
            while j < len(piece) and styles[start + j] == code and (start + j != label_end):
                j += 1
            if start + i < label_end and (para.label_scale != 1.0 or para.label_rise):
                small = size * para.label_scale
                raised = baseline - para.label_rise * size
                writer = (
                    turned
                    if turned is not None
                    else _writer(writers, page, (color_of(code), is_bold(code), False, 0.0))
                )
                end = _write(writer, page, chain, piece[i:j], x, raised, small, para, copies, src)
                if horizontal:
                    _place(placement, chain, piece[i:j], start + i, x, end, raised, small)
                x, i = end, j
                continue
            if turned is not None:
                writer = turned
            else:
                slant = baseline if is_italic(code) else 0.0
                key = (color_of(code), is_bold(code), is_italic(code), slant)
                writer = _writer(writers, page, key)
            end = _write(writer, page, chain, piece[i:j], x, baseline, size, para, copies, src)
            if horizontal:
                _place(placement, chain, piece[i:j], start + i, x, end, baseline, size)
            x, i = end, j
        return x

    # Korean breaks only at spaces, so its justified lines need wider spaces more often.
    loose = 1.2 if is_cjk_language(target_lang) else 0.8
    cursor = body_at  # position in ``text`` of the next unit
    if hang:
        flush(text[:label_end], 0, ox, baseline)
    for number, line in enumerate(fitted.lines):
        slack = width - hang - line.width * size
        x = ox + hang + (max(0.0, slack / 2) if para.align == Align.CENTER else 0.0)
        spaced = " " in line.units
        gap = 0.0
        if para.align == Align.JUSTIFY and number < last and 0 < slack < 0.25 * width:
            # Extra space goes to the spaces of the line, or else between its units (CJK).
            points = line.units.count(" ") if spaced else len(line.units) - 1
            gap = slack / points if points else 0.0
            if gap > loose * size:  # too loose: leave the line ragged
                gap = 0.0

        pending, pending_at = "", cursor  # units written together while no extra space parts them
        for unit in line.units:
            if _INDENT in unit:  # the first line's indent, as printed
                x += para.indent / src * size
                unit = unit.replace(_INDENT, "")
                if not unit:
                    continue
            at = text.find(unit, cursor) if unit != " " else cursor
            at = cursor if at < 0 else at
            cursor = at + len(unit)
            if unit == " " and not gap:
                pending += " "
                continue
            if unit == " ":
                x = flush(pending, pending_at, x, baseline) + space + gap
                pending, pending_at = "", cursor
                continue
            if not pending:
                pending_at = at
            pending += unit
            if gap and not spaced:
                x = flush(pending, pending_at, x, baseline) + gap
                pending, pending_at = "", cursor
        flush(pending, pending_at, x, baseline)
        while cursor < len(text) and text[cursor] == " ":
            cursor += 1
        baseline += size * fitted.leading
    if turned is not None:
        angle = -math.degrees(math.atan2(frame.u[1], frame.u[0]))
        turned.write_text(
            page,
            color=rgb(para.color),
            render_mode=2 if para.bold else 0,
            morph=(pymupdf.Point(origin), pymupdf.Matrix(angle)),
        )
    return placement


#: Stands for the first line's indent in the text given to ``fit`` (see ``_indented``).
_INDENT = "\u2060"


def _indented(
    para: Paragraph, text: str, measure: Callable[[str], float]
) -> tuple[str, Callable[[str], float]]:
    """``text`` and ``measure`` for ``fit`` with the first line indented like the source's:
    a mark in front that measures as the indent (in ems of the source size)."""
    if not para.indent or not text:
        return text, measure
    em = para.indent / (para.font_size or 10.0)

    def measured(unit: str) -> float:
        return measure(unit.replace(_INDENT, "")) + em * unit.count(_INDENT)

    return _INDENT + text, measured


def _on_source_baseline(para: Paragraph) -> bool:
    """Whether a translation set smaller than its source keeps the source's first baseline
    (headings and one-line paragraphs: a reader sees them move) rather than its top (body
    text reads from the top of its box, as the source did)."""
    return para.kind == ParagraphKind.HEADING or (
        para.line_count == 1 and para.kind != ParagraphKind.CELL
    )


def _hang(
    para: Paragraph, text: str, label_end: int, measure: Callable[[str], float], size: float
) -> float:
    """The hanging indent to set ``text`` with (0: none): the source's, when the label (at
    its own size, with a space) fits in it and text follows it."""
    if not para.hang or not label_end or text[label_end : label_end + 1] != " ":
        return 0.0
    if not text[label_end + 1 :].strip():
        return 0.0
    wide = (measure(text[:label_end]) * para.label_scale + measure(" ")) * size
    return para.hang if wide <= para.hang + 0.5 else 0.0


def typeset_page(
    page: pymupdf.Page,
    items: Sequence[tuple[Paragraph, str]],
    chain: FontChain,
    target_lang: str,
    copies: Copies,
) -> dict[str, Placement]:
    """Set every translation of a page (its source text already removed) at the sizes and in
    the areas ``translation.render.fitting`` plans; returns where each paragraph's text went."""
    texts, shapes = page_obstacles(page)

    def size_in(para: Paragraph, text: str, area: Rect, size: float) -> float:
        x0, y0, x1, y1 = area
        measure = measurer(para, chain, copies)
        lead = leading(para, target_lang)
        text = " ".join(text.split())
        label = para.label.strip()
        label_end = len(label) if label and text.startswith(label) else 0
        hang = _hang(para, text, label_end, measure, size)
        if hang:
            text, x1 = text[label_end + 1 :], x1 - hang
        text, measure = _indented(para, text, measure)
        return fit(text, x1 - x0, y1 - y0, size, lead, measure).size

    planned = plan(items, texts, shapes, size_in)
    writers: Writers = {}
    placements: dict[str, Placement] = {}
    for para, text in items:
        area, size = planned.get(para.id, (None, None))
        placements[para.id] = typeset(
            page, para, text, chain, target_lang, writers, copies, area, size
        )
    write_all(page, writers)
    return placements


def _writer(writers: Writers, page: pymupdf.Page, key: WriterKey) -> pymupdf.TextWriter:
    writer = writers.get(key)
    if writer is None:
        writer = writers[key] = pymupdf.TextWriter(page.rect)
    return writer


def _place(
    placement: Placement,
    chain: FontChain,
    piece: str,
    start: int,
    x: float,
    end: float,
    baseline: float,
    size: float,
) -> None:
    """Record the boxes of ``piece`` written from x to ``end`` (formula copies spread evenly)."""
    widths = [0.0 if mark_key(c) else chain.advance(c) * size for c in piece]
    marks = [i for i, c in enumerate(piece) if mark_key(c)]
    if marks:
        rest = max(0.0, (end - x) - sum(widths)) / len(marks)
        for i in marks:
            widths[i] = rest
    for i, w in enumerate(widths):
        if not piece[i].isspace():
            placement.boxes[start + i] = (x, baseline - 0.8 * size, x + w, baseline + 0.2 * size)
        x += w


def write_all(page: pymupdf.Page, writers: Writers) -> None:
    """Put the text of all ``writers`` on the page: bold as fill and stroke, italics slanted
    about their baseline."""
    for (color, bold, italic, slant), writer in writers.items():
        mode = 2 if bold else 0
        morph = None
        if italic:
            morph = (pymupdf.Point(0, slant), pymupdf.Matrix(1, 0, _SLANT, 1, 0, 0))
        writer.write_text(page, color=rgb(color), render_mode=mode, morph=morph)


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
    pitch = leading(para, target_lang)
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

    if fit(text, box[2] - box[0], box[3] - box[1], src, pitch, measure).size >= src:
        return True
    return _fit_cell(para, text, box, frame, src, pitch, measure) is not None


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
) -> float:
    """Append ``text`` at (x, baseline) in runs of one font; returns the x after it. A
    formula marker is drawn as a vector copy of its original glyphs, its source baseline on
    ours (the copy keeps the glyphs' text, so the formula stays searchable)."""
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
            for copy, rect, descent in copies.get((para.id, key), []):
                w, h = rect.width * scale, rect.height * scale
                bottom = baseline + descent * scale
                copy.sheet.place(copy.xobject, rect, pymupdf.Rect(x, bottom - h, x + w, bottom))
                x += w
        elif index >= 0:
            run += plain_char(char)[0]
            run_font = index
            run_width += chain.advance(char)
    return x
