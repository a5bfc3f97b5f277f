"""Setting a page's translations and checking what was set, before any of it is written.

The translations are planned (``translation.render.fitting``) and laid out into text writers;
then the renderer's own check (``translation.render.page_check``) looks at the boxes it placed
(source glyphs it finds standing in a translated line, off its band, are erased then).
Where a paragraph breaks the page, the page is laid out again without it: its source is to be
put back as it was (``translation.pdf`` does that) and the job names it. Laying out again costs
only on pages where something fell back; the check alone runs on every page.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import pymupdf

from translation.read.layout import Rect
from translation.read.paragraph import Paragraph
from translation.render.fallback import FallBack
from translation.render.fitting import page_obstacles, page_text, plan
from translation.render.fonts import FontChain, fit
from translation.render.formula_copies import Copies
from translation.render.glyphs import Areas, Sheet, remove_glyphs
from translation.render.measure import hanging_indent, indented, leading, measurer
from translation.render.page_check import (
    Placed,
    block_of,
    check_page,
    confirm_erased,
    keep_notation,
    span_inks,
)
from translation.render.typeset import Placement, typeset
from translation.render.writers import Writers

__all__ = ["FallBack", "PageSet", "set_page"]


@dataclass(slots=True)
class PageSet:
    """A page's translations laid out and checked, not yet written: ``writers`` hold the text
    of the paragraphs that stay (``placements``: where each character went); ``fallen`` maps
    each paragraph that fell back to its reasons (``page_check``'s rule names);
    ``check_seconds`` is what the check took; ``placed``: where each translation was set
    (``page_check.Placed``, the record a reader of the written page attributes lines by)."""

    placements: dict[str, Placement] = field(default_factory=dict)
    writers: Writers = field(default_factory=dict)
    fallen: dict[str, list[str]] = field(default_factory=dict)
    check_seconds: float = 0.0
    placed: dict[str, Placed] = field(default_factory=dict)


def set_page(
    page: pymupdf.Page,
    items: Sequence[tuple[Paragraph, str]],
    chain: FontChain,
    target_lang: str,
    copies: Copies,
    sheet: Sheet,
) -> PageSet:
    """Lay out every translation of a page (its source text already removed) at the sizes and
    in the areas ``fitting`` plans, check the result, and lay the page out again without the
    paragraphs that break it (module doc). Formula copies go onto ``sheet``."""
    blocks = page_text(page)
    texts, shapes = page_obstacles(page, blocks)

    def size_in(para: Paragraph, text: str, area: Rect, size: float) -> float:
        x0, y0, x1, y1 = area
        measure = measurer(para, chain, copies)
        lead = leading(para, target_lang)
        text = " ".join(text.split())
        label = para.label.strip()
        label_end = len(label) if label and text.startswith(label) else 0
        hang = hanging_indent(para, text, label_end, measure, size)
        if hang:
            text, x1 = text[label_end + 1 :], x1 - hang
        text, measure = indented(para, text, measure)
        return fit(text, x1 - x0, y1 - y0, size, lead, measure).size

    planned = plan(items, texts, shapes, size_in)
    mark = sheet.mark()

    shown: dict[str, list[Rect]] = {}  # where each paragraph's formula copies went

    def lay_out(keep: Sequence[tuple[Paragraph, str]]) -> PageSet:
        result = PageSet()
        for para, text in keep:
            area, size = planned.get(para.id, (None, None))
            before = sheet.mark()
            result.placements[para.id] = typeset(
                page, para, text, chain, target_lang, result.writers, copies, area, size
            )
            shown[para.id] = sheet.targets(before)
        return result

    result = lay_out(items)
    started = time.perf_counter()
    rect = tuple(page.rect)
    set_blocks = [
        block_of(para, placed.text, placed.boxes, placed.size, planned[para.id][0], shown[para.id])
        for para, _ in items
        if para.id in planned and (placed := result.placements[para.id]).text
    ]
    verdict = check_page((rect[0], rect[1], rect[2], rect[3]), set_blocks, span_inks(blocks))
    if verdict.stray:
        keep_notation(verdict, span_inks(blocks, notation=True))
    strays = verdict.strays()
    if strays:  # source glyphs of the translated lines, off their bands: they go too
        remove_glyphs(page, Areas((r[0] - 0.5, r[1], r[2] + 0.5, r[3]) for r in strays))
        confirm_erased(set_blocks, verdict, span_inks(page_text(page)))
    seconds = time.perf_counter() - started
    if verdict.fallen:
        sheet.rewind(mark)  # the formula copies of the first lay-out
        result = lay_out([(p, t) for p, t in items if p.id not in verdict.fallen])
    result.fallen = verdict.fallen
    result.check_seconds = seconds
    for para, _ in items:
        setting = result.placements.get(para.id)
        if para.id in planned and setting is not None and setting.text:
            block = block_of(para, setting.text, setting.boxes, setting.size, planned[para.id][0])
            result.placed[para.id] = Placed.of(block)
    return result
