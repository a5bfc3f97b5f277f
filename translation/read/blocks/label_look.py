"""How a paragraph's label is printed: its style, size and rise (a superscript marker), and
the hanging indent of the lines after it."""

from __future__ import annotations

from translation.read.measures import DESCENT, GLYPH_HEIGHT, SCRIPT, SCRIPT_SHIFT
from translation.read.rows.row import Row

_TAB = 0.6  # font sizes: a gap after a label this wide is a tab; lines this near line up
_HANG_LEAST = 0.5  # font sizes: continuation lines indented at least this much hang

# --- how a label looks ----------------------------------------------------------------------


def label_look(rows: list[Row], label: str) -> tuple[int | None, float, float, float]:
    """How the ``label`` that ``rows`` start with is printed: its style code (None when it
    has no style of its own), its size and the rise of its baseline as shares of the row's
    size (a superscript footnote marker: about 0.7 and 0.35), and the hanging indent in points
    (continuation lines start under the text after the label, not under the label; 0 for
    none)."""
    first = rows[0]
    mark = label.strip()
    start = len(first.chars) - len(first.chars.lstrip())
    if not mark or not first.chars[start:].startswith(mark) or len(first.boxes) < start + 1:
        return None, 1.0, 0.0, 0.0
    end = start + len(mark)
    boxes = first.boxes[start:end]
    styles = first.styles[start:end] if len(first.styles) == len(first.chars) else []
    style = styles[0] if styles and all(s == styles[0] for s in styles) else None
    # A character box spans ASCENT x size above its span's baseline to DESCENT x size below it.
    sizes = [(b[3] - b[1]) / GLYPH_HEIGHT for b in boxes]
    size = max(sizes) if sizes else first.size
    base = max(b[3] for b in boxes) - DESCENT * size if boxes else first.baseline
    scale, rise = 1.0, 0.0
    if (
        first.size
        and size < SCRIPT * first.size
        and first.baseline - base > SCRIPT_SHIFT * first.size
    ):
        scale = round(size / first.size, 2)
        rise = round((first.baseline - base) / first.size, 2)
    hang = 0.0
    text_at = end + len(first.chars[end:]) - len(first.chars[end:].lstrip())
    if text_at < len(first.boxes):
        under = first.boxes[text_at][0]  # where the text after the label starts
        later = min((r.x0 for r in rows[1:]), default=under)
        wide = under - first.boxes[end - 1][2] > _TAB * first.size  # a tab after the label
        if len(rows) == 1 and wide:
            hang = round(under - first.x0, 2)
        elif later > first.x0 + _HANG_LEAST * first.size and abs(later - under) < _TAB * first.size:
            hang = round(later - first.x0, 2)
    return style, scale, rise, hang
