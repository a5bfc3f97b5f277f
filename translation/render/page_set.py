"""Setting a page's translations and checking what was set, before any of it is written.

The translations are planned (``translation.render.fitting``) and laid out into text writers;
then the renderer's own check (``translation.render.page_check``) looks at the boxes it placed
(source glyphs it finds standing in a translated line, off its band, are erased then).
Where a paragraph breaks the page, the page is laid out again without it: its source is to be
put back as it was (``translation.pdf`` does that) and the job names it. Its translation is then
set apart from it where the page has room (``translation.render.set_apart``), checked again
(``page_check.check_apart``), and laid out with the others; one that breaks the page even there
is left out. Laying out again costs only on pages where something fell back; the check alone
runs on every page.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import pymupdf

from translation.read.layout import Rect
from translation.read.paragraph import Paragraph
from translation.render.fallback import FallBack
from translation.render.fitting import page_obstacles, page_text, plan
from translation.render.fonts import Fitted, FontChain, fit
from translation.render.formula_copies import Copies
from translation.render.glyphs import Areas, Sheet, remove_glyphs
from translation.render.measure import hanging_indent, indented, leading, measurer
from translation.render.page_check import (
    Placed,
    SetBlock,
    band_ink,
    block_of,
    check_apart,
    check_page,
    confirm_erased,
    keep_notation,
    span_inks,
)
from translation.render.set_apart import set_apart
from translation.render.typeset import Placement, typeset
from translation.render.writers import Writers

__all__ = ["FallBack", "PageSet", "set_page"]

#: Blocks set apart from their source: id -> (the paragraph as set, its area, its size).
Apart = dict[str, tuple[Paragraph, Rect, float]]
#: How many times the blocks set apart are laid out again without one that broke the page.
_APART_ROUNDS = 3


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
    #: On a scanned page: the stray glyphs' inks, to paint over with the translated lines.
    covers: list[Rect] = field(default_factory=list)


def set_page(
    page: pymupdf.Page,
    items: Sequence[tuple[Paragraph, str]],
    chain: FontChain,
    target_lang: str,
    copies: Copies,
    sheet: Sheet,
    scanned: bool = False,
) -> PageSet:
    """Lay out every translation of a page (its source text already removed) at the sizes and
    in the areas ``fitting`` plans, check the result, and lay the page out again without the
    paragraphs that break it (module doc). Formula copies go onto ``sheet``. ``scanned``: the
    page's words are pixels of a scan under an invisible text layer; a stray glyph of that
    layer is painted over with its paragraph's lines (``PageSet.covers``), not a fall back."""
    blocks = page_text(page)
    texts, shapes = page_obstacles(page, blocks)

    def fitted_in(para: Paragraph, text: str, area: Rect, size: float) -> tuple[Fitted, float]:
        """The text fitted into ``area``, and its hanging indent."""
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
        return fit(text, x1 - x0, y1 - y0, size, lead, measure), hang

    def size_in(para: Paragraph, text: str, area: Rect, size: float) -> float:
        return fitted_in(para, text, area, size)[0].size

    def apart_in(para: Paragraph, text: str, area: Rect, size: float) -> tuple[float, float, float]:
        found, hang = fitted_in(para, text, area, size)
        if not found.fits or not found.lines:
            return 0.0, 0.0, 0.0
        s = found.size
        # The lines' height, and the drop of a heading set smaller onto its source baseline.
        used = s * (1.0 + (len(found.lines) - 1) * found.leading) + 0.8 * (size - s)
        return s, used, max(line.width for line in found.lines) * s + hang

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
    page_rect = (rect[0], rect[1], rect[2], rect[3])
    set_blocks = _blocks(result, items, planned, shown, chain)
    verdict = check_page(page_rect, set_blocks, span_inks(blocks))
    if verdict.stray:
        keep_notation(verdict, span_inks(blocks, notation=True))
    strays = verdict.strays()
    if strays:  # source glyphs of the translated lines, off their bands: they go too
        remove_glyphs(page, Areas((r[0] - 0.5, r[1], r[2] + 0.5, r[3]) for r in strays))
        if scanned:  # what a reader sees there is the scan's pixels: covered
            result.covers = strays
        else:
            confirm_erased(set_blocks, verdict, span_inks(page_text(page)))
    seconds = time.perf_counter() - started
    covers = result.covers
    apart: Apart = {}
    if verdict.fallen:
        sheet.rewind(mark)  # the formula copies of the first lay-out
        keep = [(p, t) for p, t in items if p.id not in verdict.fallen]
        fallen = [(p, t) for p, t in items if p.id in verdict.fallen]
        result = kept_only = lay_out(keep)
        kept = _blocks(result, keep, planned, shown, chain)
        set_inks = [ink for b in kept for ink in b.inks()]
        obstacles = [*texts, *shapes, *(p.bbox for p, _ in fallen), *set_inks]
        apart = set_apart(fallen, obstacles, page_rect, apart_in)
        # The sources put back stand again: a translation set apart stays clear of them too.
        sources = [band_ink(r) for p, _ in fallen for r in p.rects]
        standing = [*span_inks(blocks), *shapes, *set_inks, *sources]
        for _ in range(_APART_ROUNDS):
            if not apart:
                break
            planned.update({ident: (area, size) for ident, (_, area, size) in apart.items()})
            sheet.rewind(mark)
            chosen = [(apart[p.id][0], t) for p, t in fallen if p.id in apart]
            result = lay_out([*keep, *chosen])
            broken = check_apart(
                page_rect, _blocks(result, chosen, planned, shown, chain), standing
            )
            apart = {k: v for k, v in apart.items() if k not in broken}
            if not broken:
                break
        else:
            apart = {}
        if not apart and result is not kept_only:
            # Every block set apart broke the page: none of them stays laid out on it.
            sheet.rewind(mark)
            result = lay_out(keep)
    result.fallen = verdict.fallen
    result.check_seconds = seconds
    result.covers = [r for r in covers if r in verdict.strays()]
    result.placed = {
        b.para.id: Placed.of(b, b.para.id in apart)
        for b in _blocks(result, items, planned, shown, chain)
    }
    return result


def _blocks(
    result: PageSet,
    items: Iterable[tuple[Paragraph, str]],
    planned: Mapping[str, tuple[Rect, float]],
    shown: Mapping[str, Sequence[Rect]],
    chain: FontChain,
) -> list[SetBlock]:
    """The check's blocks of those of ``items`` that ``result`` set (in ``chain``'s faces)."""
    found = []
    for para, _ in items:
        setting = result.placements.get(para.id)
        if setting is not None and setting.text:
            # Text that does not run horizontally is set in its own box, unplanned.
            area = planned[para.id][0] if para.id in planned else para.bbox
            copies = shown.get(para.id, ())
            found.append(
                block_of(para, setting.text, setting.boxes, setting.size, area, copies, chain.sets)
            )
    return found
