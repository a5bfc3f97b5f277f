"""Typesetting a translation into its paragraph's box, with formulas copied from the source."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pymupdf

from translation.read.layout import Frame, Rect
from translation.read.math.formulas import mark_key
from translation.read.paragraph import Align, Paragraph, ParagraphKind
from translation.read.style.paragraph_style import (
    color_of,
    is_bold,
    is_italic,
    lead_end,
    style_code,
)
from translation.read.style.style_marks import (
    BOLD,
    ITALIC,
    MONO,
    has_marks,
    is_mark,
    mark_states,
    styled_stretches,
    to_marks,
    without_marks,
)
from translation.render.cell_fit import fit_cell
from translation.render.fonts import Fitted, FontChain, fit, is_cjk_language
from translation.render.formula_copies import Copies
from translation.render.measure import INDENT_MARK, hanging_indent, indented, leading, measurer
from translation.render.writers import (
    Turn,
    TurnedText,
    Writers,
    rgb,
    write_run,
    writer_for,
)


@dataclass(slots=True)
class Placement:
    """Where :func:`typeset` put the characters of ``text`` (the translation as set, spaces
    collapsed): a page box per character (the box it is turned into, for text that does not
    run horizontally), None where nothing was drawn (a space at a line break, text cut
    off)."""

    text: str
    boxes: list[Rect | None]
    size: float = 0.0
    #: Text that does not run horizontally: laid out, written with the page's other text.
    turned: TurnedText | None = None

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


def char_styles(para: Paragraph, text: str) -> list[int]:
    """The style code (``translation.read.style.paragraph_style``) of each character of the
    translation ``text``:
    the body style, bold and italic where the translation's style marks put them
    (``translation.read.style.style_marks``), the run-in lead (after the paragraph's label) up to
    where its marked stretch ends (without marks: where the answer's punctuation says), and
    the source's coloured runs where their text is found again (whole words, in order)."""
    body = style_code(para.color, para.bold, para.italic)
    codes = [body] * len(text)
    label = para.label.strip()
    start = len(label) if label and text.startswith(label) else 0
    if start and para.label_style is not None:  # a bold "I." keeps its weight
        codes[:start] = [para.label_style] * start
    start += len(text[start:]) - len(text[start:].lstrip())
    marks = has_marks(text[start:])
    if marks:
        end = _marked_styles(para, text, start, codes)
    else:  # no marks came back: the lead's end is guessed from the answer's punctuation
        end = start + lead_end(para.lead, text[start:]) if para.lead else 0
        codes[start:end] = [para.lead_style] * (end - start)
    cursor = end
    coloured = _stretch_colours(para, text, codes) if marks else set()
    for run, code in para.runs:
        if marks and (color_of(code) == para.color or " ".join(run.split()) in coloured):
            continue  # bold and italic (and the colour of a marked run) came back as marks
        found = _find_word(text, run, cursor, end)
        if found >= 0 and (marks or all(c == body for c in codes[found : found + len(run)])):
            for k in range(found, found + len(run)):
                codes[k] = style_code(color_of(code), is_bold(codes[k]), is_italic(codes[k]))
            cursor = found + len(run)
    return codes


def _marked_styles(para: Paragraph, text: str, start: int, codes: list[int]) -> int:
    """Style ``codes[start:]`` from the style marks in ``text`` (bold and italic added to
    the body's); a run-in lead is the marked stretch the text opens with and keeps its own
    style (a coloured lead). Returns where the lead ends (``start``: no lead)."""
    states = mark_states(text)
    for i in range(start, len(text)):
        bold = para.bold or bool(states[i] & BOLD)
        italic = para.italic or bool(states[i] & ITALIC)
        codes[i] = style_code(para.color, bold, italic)
    end = start
    if para.lead:
        while end < len(text) and states[end] & (BOLD | ITALIC):
            end += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        codes[start:end] = [para.lead_style] * (end - start)
    return end


def _stretch_colours(para: Paragraph, text: str, codes: list[int]) -> set[str]:
    """Colour the marked stretches of the translation ``text`` whose source stretch is one
    coloured run (a green bold "Sometimes" in a table cell: its words are translated, so
    its text is never found again). The n-th stretch of the answer is the n-th of the
    source when the answer kept every tag; else nothing is coloured here. Returns the
    runs coloured."""
    source = to_marks(para.text)
    theirs, ours = styled_stretches(source), styled_stretches(text)
    if len(theirs) != len(ours):
        return set()
    colours = {
        " ".join(run.split()): color_of(code)
        for run, code in para.runs
        if color_of(code) != para.color
    }
    done: set[str] = set()
    for (s0, s1), (t0, t1) in zip(theirs, ours, strict=True):
        words = " ".join(without_marks(source[s0:s1]).split())
        colour = colours.get(words)
        if colour is None:
            continue
        for k in range(t0, t1):
            codes[k] = style_code(colour, is_bold(codes[k]), is_italic(codes[k]))
        done.add(words)
    return done


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
    text = " ".join(text.split())
    placement = Placement(text, [None] * len(text))
    layout = _lay_out(para, text, chain, target_lang, copies, area, size)
    if layout is None:
        return placement
    frame = Frame(para.direction)
    placement.size = layout.fitted.size
    horizontal = frame.u == (1.0, 0.0)
    # Horizontal text is written where it goes; other directions are written horizontally
    # from the box's first corner, then turned about it (TextWriter morph).
    x0, y0 = layout.box[0], layout.box[1]
    origin = frame.page_point(x0, y0)
    ox, oy = (x0, y0) if horizontal else origin
    pen = _Pen(
        page=page,
        para=para,
        chain=chain,
        writers=writers,
        copies=copies,
        placement=placement,
        styles=char_styles(para, text),
        mono=[bool(s & MONO) for s in mark_states(text)] if has_marks(text) else [],
        label_end=layout.label_end,
        size=layout.fitted.size,
        turned=None if horizontal else pymupdf.TextWriter(page.rect),
        turn=None if horizontal else Turn(frame, (ox, oy), (x0, y0)),
    )
    _set_lines(pen, text, layout, ox, _first_baseline(para, layout, oy, horizontal), target_lang)
    if pen.turned is not None:
        angle = -math.degrees(math.atan2(frame.u[1], frame.u[0]))
        placement.turned = TurnedText(
            pen.turned,
            rgb(para.color),
            2 if para.bold and not chain.real_bold else 0,
            (pymupdf.Point(origin), pymupdf.Matrix(angle)),
        )
    return placement


@dataclass(frozen=True, slots=True)
class _Layout:
    """How a paragraph's translation is set: its lines at their size, the frame box they fill
    (``height``: the box's before a table cell grew), the hanging indent, where the text
    after a hanging label starts and where the label ends (0: no label at the text's start)."""

    fitted: Fitted
    box: Rect
    height: float
    hang: float
    body_at: int
    label_end: int


def _lay_out(
    para: Paragraph,
    text: str,
    chain: FontChain,
    target_lang: str,
    copies: Copies,
    area: Rect | None,
    size: float | None,
) -> _Layout | None:
    """Fit ``text`` (spaces collapsed) into ``para``'s box or ``area``, at most at ``size``;
    a table cell grows into its column before it shrinks. None when nothing can be set."""
    frame = Frame(para.direction)
    x0, y0, x1, y1 = frame.to_frame(area or para.bbox)
    width, height = x1 - x0, y1 - y0
    src = para.font_size or 10.0
    measure = measurer(para, chain, copies)
    pitch = leading(para, target_lang)
    label = para.label.strip()
    label_end = len(label) if label and text.startswith(label) else 0
    # A hanging indent: the label alone in the indent, every line of the text after it.
    hang = hanging_indent(para, text, label_end, measure, size or src)
    body_at = label_end + 1 if hang else 0
    fit_text, measure_indented = indented(para, text[body_at:], measure)
    fitted = fit(fit_text, width - hang, height, size or src, pitch, measure_indented)
    if para.kind == ParagraphKind.CELL and para.max_bbox is not None and fitted.size < src:
        # A table cell grows into its column before it shrinks (see fit_cell).
        cell = fit_cell(para, text, (x0, y0, x1, y1), frame, src, pitch, measure)
        if cell is None:
            return None
        fitted, (x0, y0, x1, y1) = cell
    if not fitted.lines:
        return None
    return _Layout(fitted, (x0, y0, x1, y1), height, hang, body_at, label_end)


def _first_baseline(para: Paragraph, layout: _Layout, top: float, horizontal: bool) -> float:
    """The first line's baseline, ``top`` being the box's top: a translation set smaller than
    its source starts on the source's baseline where a reader would see it move and there is
    room (see :func:`_on_source_baseline`)."""
    fitted = layout.fitted
    size, src = fitted.size, para.font_size or 10.0
    used = size * (1.0 + (len(fitted.lines) - 1) * fitted.leading)
    if (
        horizontal
        and size < src
        and _on_source_baseline(para)
        and used + 0.8 * (src - size) <= layout.height
    ):
        return top + 0.8 * src  # set smaller, a heading still starts on its source baseline
    return top + 0.8 * size


@dataclass(slots=True)
class _Pen:
    """Writes pieces of one paragraph's translation onto the page's text writers (or into
    ``turned``, for text that does not run horizontally) and records where they went."""

    page: pymupdf.Page
    para: Paragraph
    chain: FontChain
    writers: Writers
    copies: Copies
    placement: Placement
    styles: list[int]  # style code of each character of the text
    mono: list[bool]  # whether each character is code set monospaced (empty: none is)
    label_end: int
    size: float
    turned: pymupdf.TextWriter | None
    turn: Turn | None = None  # where ``turned``'s level writing lands (its formula copies)

    def write(self, piece: str, start: int, x: float, baseline: float) -> float:
        """Write ``piece`` (text[start:...]) in runs of one style from x; the x after. The
        label is set at its own size and rise (a superscript footnote marker)."""
        para, size, styles, label_end = self.para, self.size, self.styles, self.label_end
        mono = self.mono or [False] * len(styles)
        src = para.font_size or 10.0
        i = 0
        while i < len(piece):
            code, code_mono = styles[start + i], mono[start + i]
            j = i + 1
            while (
                j < len(piece)
                and styles[start + j] == code
                and mono[start + j] == code_mono
                and (start + j != label_end)
            ):
                j += 1
            if start + i < label_end and (para.label_scale != 1.0 or para.label_rise):
                run_size = size * para.label_scale
                run_base = baseline - para.label_rise * size
                key = (color_of(code), is_bold(code), False, 0.0)
            else:
                run_size, run_base = size, baseline
                slant = baseline if is_italic(code) else 0.0
                key = (color_of(code), is_bold(code), is_italic(code), slant)
            writer = (
                self.turned if self.turned is not None else writer_for(self.writers, self.page, key)
            )
            run = piece[i:j]
            chain = self.chain.weight(key[1])  # bold in the face's bold weight, if it has one
            end = write_run(
                writer,
                self.page,
                chain,
                run,
                x,
                run_base,
                run_size,
                para,
                self.copies,
                src,
                code_mono,
                self.turn,
            )
            _place(self.placement, chain, run, start + i, x, end, run_base, run_size, code_mono)
            if self.turn is not None:  # the level boxes where the turned writing lands
                boxes = self.placement.boxes
                for k in range(start + i, start + j):
                    level = boxes[k]
                    if level is not None:
                        page_box = self.turn.page(level)
                        boxes[k] = (page_box.x0, page_box.y0, page_box.x1, page_box.y1)
            x, i = end, j
        return x


def _set_lines(
    pen: _Pen, text: str, layout: _Layout, left: float, baseline: float, target_lang: str
) -> None:
    """Write the fitted lines of ``text`` from x ``left`` and the first ``baseline`` down:
    aligned, justified lines spread, the first line indented as printed."""
    para, fitted, size = pen.para, layout.fitted, pen.size
    width = layout.box[2] - layout.box[0]
    hang, label_end = layout.hang, layout.label_end
    space = pen.chain.advance(" ") * size
    last = len(fitted.lines) - 1
    cursor = layout.body_at  # position in ``text`` of the next unit
    if hang:
        pen.write(text[:label_end], 0, left, baseline)
    for number, line in enumerate(fitted.lines):
        slack = width - hang - line.width * size
        shift = {Align.CENTER: max(0.0, slack / 2), Align.RIGHT: max(0.0, slack)}
        x = left + hang + shift.get(para.align, 0.0)
        spaced = " " in line.units
        gap = 0.0
        if para.align == Align.JUSTIFY and number < last and 0 < slack < 0.25 * width:
            gap = _justify_gap(line.units, slack, size, target_lang)
        pending, pending_at = "", cursor  # units written together while no extra space parts them
        for unit in line.units:
            if INDENT_MARK in unit:  # the first line's indent, as printed
                x += para.indent / (para.font_size or 10.0) * size
                unit = unit.replace(INDENT_MARK, "")
                if not unit:
                    continue
            at = text.find(unit, cursor) if unit != " " else cursor
            at = cursor if at < 0 else at
            cursor = at + len(unit)
            if unit == " " and not gap:
                pending += " "
                continue
            if unit == " ":
                x = pen.write(pending, pending_at, x, baseline) + space + gap
                pending, pending_at = "", cursor
                continue
            if not pending:
                pending_at = at
            pending += unit
            if gap and not spaced:
                x = pen.write(pending, pending_at, x, baseline) + gap
                pending, pending_at = "", cursor
        pen.write(pending, pending_at, x, baseline)
        while cursor < len(text) and text[cursor] == " ":
            cursor += 1
        baseline += size * fitted.leading


def _justify_gap(units: Sequence[str], slack: float, size: float, target_lang: str) -> float:
    """The extra space each gap of a justified line gets: its spaces, or else the gaps
    between its units (CJK); 0 where the line would be too loose (it is left ragged)."""
    # Korean breaks only at spaces, so its justified lines need wider spaces more often.
    loose = 1.2 if is_cjk_language(target_lang) else 0.8
    points = units.count(" ") if " " in units else len(units) - 1
    gap = slack / points if points else 0.0
    return 0.0 if gap > loose * size else gap


def _on_source_baseline(para: Paragraph) -> bool:
    """Whether a translation set smaller than its source keeps the source's first baseline
    (headings and one-line paragraphs: a reader sees them move) rather than its top (body
    text reads from the top of its box, as the source did)."""
    return para.kind == ParagraphKind.HEADING or (
        para.line_count == 1 and para.kind != ParagraphKind.CELL
    )


def _place(
    placement: Placement,
    chain: FontChain,
    piece: str,
    start: int,
    x: float,
    end: float,
    baseline: float,
    size: float,
    mono: bool = False,
) -> None:
    """Record the boxes of ``piece`` written from x to ``end`` (formula copies spread evenly;
    style marks take no box)."""
    advance = chain.mono_advance if mono else chain.advance
    widths = [0.0 if mark_key(c) or is_mark(c) else advance(c) * size for c in piece]
    marks = [i for i, c in enumerate(piece) if mark_key(c)]
    if marks:
        rest = max(0.0, (end - x) - sum(widths)) / len(marks)
        for i in marks:
            widths[i] = rest
    for i, w in enumerate(widths):
        if not (piece[i].isspace() or is_mark(piece[i])):
            placement.boxes[start + i] = (x, baseline - 0.8 * size, x + w, baseline + 0.2 * size)
        x += w
