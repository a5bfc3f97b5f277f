"""Page furniture told across pages: running heads and footers (the same words at the same
height on many pages, or on every other page where odd and even pages alternate) and page
numbers (a number alone at the page's top or bottom that counts up with the pages).

Told from the layouts before any row is made, so that no later rule can read them into the
body: a running head is never part of a body request, not even where the page before ends
inside a sentence.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence

from translation.read.layout import Frame, PageLayout, axis
from translation.read.numbering.grammar import PAGE_DIGITS
from translation.read.regions.body_frame import LEFT_TO_RIGHT

#: (block, line) indices of a line in its page's layout.
LineKey = tuple[int, int]

RUNNING_HEAD = "running head"
PAGE_NUMBER = "page number"

#: Furniture lies in this share of the page's height at its top or bottom.
BAND = 0.15
#: Copies of one running head stand at the same height within this many points.
SAME_HEIGHT = 3.0
#: A running head recurs on this share of the pages of its parity, or of all pages ...
SHARE = 0.5
#: ... and on this many pages at least (two in a paper of under :data:`SHORT` pages).
AT_LEAST = 3
SHORT = 6
#: Furniture stands apart from other text by this share of its line's height.
APART = 0.6
#: Letters a running head holds at least.
LETTERS = 2

_PAGE_NUMBER_RE = re.compile(
    rf"^(?:page\s*)?[-–—]?\s*({PAGE_DIGITS})\s*[-–—]?(?:\s*/\s*{PAGE_DIGITS})?$", re.I
)


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"\d+", "#", text.lower())).strip()


def _needed(pages: int) -> int:
    floor = 2 if pages < SHORT else AT_LEAST
    return max(floor, math.ceil(SHARE * pages))


def furniture(
    pages: Sequence[PageLayout], frames: Mapping[int, Frame]
) -> dict[int, dict[LineKey, str]]:
    """Per page index, the lines of left-to-right pages that are page furniture, with their
    reason (:data:`RUNNING_HEAD`, :data:`PAGE_NUMBER`). A paper of one page has none."""
    upright = [p for p in pages if frames[p.index].u == LEFT_TO_RIGHT]
    if len(upright) < 2:
        return {}
    texts: dict[tuple[str, str], list[tuple[int, float, LineKey]]] = defaultdict(list)
    numbers: dict[tuple[str, int], list[tuple[int, LineKey]]] = defaultdict(list)
    for page in upright:
        band = BAND * page.height
        for b, block in enumerate(page.blocks):
            for n, line in enumerate(block.lines):
                if axis(line.direction) != LEFT_TO_RIGHT:
                    continue
                top, bottom = line.bbox[1], line.bbox[3]
                where = "top" if bottom <= band else "bottom" if top >= page.height - band else ""
                if not where:
                    continue
                text = " ".join("".join(s.text for s in line.spans).split())
                match = _PAGE_NUMBER_RE.match(text)
                if match:
                    numbers[(where, int(match.group(1)) - page.index)].append((page.index, (b, n)))
                elif sum(c.isalpha() for c in text) >= LETTERS:
                    texts[(where, _key(text))].append((page.index, (top + bottom) / 2, (b, n)))
    parity_pages = {k: sum(p.index % 2 == k for p in upright) for k in (0, 1)}
    found: dict[int, dict[LineKey, str]] = defaultdict(dict)
    for copies in texts.values():
        for index, y, key in copies:
            near = {p for p, other, _ in copies if abs(other - y) <= SAME_HEIGHT}
            same_parity = {p for p in near if p % 2 == index % 2}
            if len(near) >= _needed(len(upright)) or (
                len(same_parity) >= _needed(parity_pages[index % 2])
                and len(same_parity) >= AT_LEAST
            ):
                found[index][key] = RUNNING_HEAD
    for members in numbers.values():
        if len({p for p, _ in members}) >= min(_needed(len(upright)), AT_LEAST):
            for index, key in members:
                found[index].setdefault(key, PAGE_NUMBER)
    for page in upright:
        _set_apart(page, found.get(page.index, {}))
    return {index: lines for index, lines in found.items() if lines}


def _set_apart(page: PageLayout, lines: dict[LineKey, str]) -> None:
    """Keep in ``lines`` only those set apart from the page's other text: no line that is
    not furniture stands just above or below one (a paragraph's line that recurs on a few
    pages goes on from its neighbour), nor level with it or further out towards the page's
    edge (a label in the margin beside the first line of the text)."""
    boxes = {(b, n): ln.bbox for b, blk in enumerate(page.blocks) for n, ln in enumerate(blk.lines)}
    for key in list(lines):
        x0, y0, x1, y1 = boxes[key]
        near = APART * (y1 - y0)
        top = y1 <= page.height / 2
        for other, (a0, b0, a1, b1) in boxes.items():
            if other in lines:
                continue
            beside = a1 >= x0 and a0 <= x1 and max(b0 - y1, y0 - b1) < near
            outer = b0 < y1 if top else b1 > y0
            if beside or outer:
                del lines[key]
                break
