"""Measuring a translation for fitting: widths of its pieces (copied formulas included), its
leading, the first line's indent and a label's hanging indent."""

from __future__ import annotations

from collections.abc import Callable

from translation.read.layout import Frame
from translation.read.math.formulas import mark_key
from translation.read.paragraph import Align, Paragraph
from translation.read.style.style_marks import MONO, has_marks, mark_states
from translation.render.fonts import FontChain, is_cjk_language
from translation.render.formula_copies import Copies


def measurer(para: Paragraph, chain: FontChain, copies: Copies) -> Callable[[str], float]:
    """Width at size 1 of a piece of ``para``'s translation (copied formulas included; code
    between monospace marks in the monospaced font; style marks have no width). A copy's
    width is its extent along the paragraph's lines (its page box's height, on a line that
    runs up or down the page)."""
    src = para.font_size or 10.0
    frame = Frame(para.direction)

    def along(rect: tuple[float, float, float, float]) -> float:
        x0, _, x1, _ = frame.to_frame(rect)
        return x1 - x0

    def measure(unit: str) -> float:
        total = 0.0
        states = mark_states(unit) if has_marks(unit) else None
        for i, char in enumerate(unit):
            key = mark_key(char)
            if key is not None:
                pieces = copies.get((para.id, key), [])
                total += sum(along((r.x0, r.y0, r.x1, r.y1)) for _, r, _ in pieces) / src
            elif states is not None and states[i] & MONO:
                total += chain.mono_advance(char)
            else:
                total += chain.advance(char)
        return total

    return measure


def leading(para: Paragraph, target_lang: str) -> float:
    """Baseline distance / font size for ``para``'s translation."""
    pitch = para.line_pitch if para.line_count > 1 else 0.0
    return min(max(pitch, _leading(target_lang)), 1.6)


#: Stands for the first line's indent in the text given to ``fit`` (see ``indented``).
INDENT_MARK = "\u2060"


def indented(
    para: Paragraph, text: str, measure: Callable[[str], float]
) -> tuple[str, Callable[[str], float]]:
    """``text`` and ``measure`` for ``fit`` with the first line indented like the source's:
    a mark in front that measures as the indent (in ems of the source size)."""
    if not para.indent or not text:
        return text, measure
    em = para.indent / (para.font_size or 10.0)

    def measured(unit: str) -> float:
        return measure(unit.replace(INDENT_MARK, "")) + em * unit.count(INDENT_MARK)

    return INDENT_MARK + text, measured


def hanging_indent(
    para: Paragraph, text: str, label_end: int, measure: Callable[[str], float], size: float
) -> float:
    """The hanging indent to set ``text`` with (0: none): the source's, when the label (at
    its own size, with a space) fits in it and text follows it. A centred or right-aligned
    paragraph has none: its label (an affiliation's raised mark) stays before its first word,
    where the box's left edge is not (it may be wider than the source line)."""
    if para.align in (Align.CENTER, Align.RIGHT):
        return 0.0
    if not para.hang or not label_end or text[label_end : label_end + 1] != " ":
        return 0.0
    if not text[label_end + 1 :].strip():
        return 0.0
    wide = (measure(text[:label_end]) * para.label_scale + measure(" ")) * size
    return para.hang if wide <= para.hang + 0.5 else 0.0


def _leading(target_lang: str) -> float:
    return 1.3 if is_cjk_language(target_lang) else 1.2
