"""A block kept as it was printed because its translation broke the page, and how a job's
final message names such blocks. Plain data: the server's process reads it without PyMuPDF."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FallBack:
    """A block kept as it was printed: its page (0-based), its paragraph id and why
    (``page_check``'s rule names); ``apart``: its translation was set apart from it, where
    the page had room (``translation.render.set_apart``), else it is left untranslated."""

    page: int
    block: str
    reasons: tuple[str, ...]
    apart: bool = False


#: How many blocks a message names; past that, a page says how many more it kept.
NAMED = 12


def fallback_note(fallbacks: Sequence[FallBack]) -> str:
    """What a job's final message says of the blocks kept as printed ("" when none was):
    "kept as printed where the translation would not fit the page: page 3 (p2-b4, p2-b7),
    page 9 (p8-b1)"; past :data:`NAMED` blocks, a page's others are counted ("page 12 (3
    blocks)"). Blocks whose translation was set apart from them are named apart: "...; set
    apart from their source, where the page had room: page 4 (p3-b2)"."""
    left = [f for f in fallbacks if not f.apart]
    apart = [f for f in fallbacks if f.apart]
    parts = []
    if left:
        note = "kept as printed where the translation would not fit the page"
        parts.append(f"{note}: {_named(left)}")
    if apart:
        parts.append(f"set apart from their source, where the page had room: {_named(apart)}")
    return "; ".join(parts)


def _named(fallbacks: Sequence[FallBack]) -> str:
    by_page: dict[int, list[str]] = {}
    for fallback in fallbacks:
        by_page.setdefault(fallback.page, []).append(fallback.block)
    parts, named = [], 0
    for page, blocks in sorted(by_page.items()):
        shown = blocks[: max(0, NAMED - named)]
        named += len(shown)
        rest = len(blocks) - len(shown)
        names = ", ".join(shown + ([f"{rest} more"] if rest and shown else []))
        if not shown:
            names = f"{rest} block{'s' if rest != 1 else ''}"
        parts.append(f"page {page + 1} ({names})")
    return ", ".join(parts)
