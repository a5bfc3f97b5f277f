"""A block kept as it was printed because its translation broke the page, and how a job's
final message names such blocks. Plain data: the server's process reads it without PyMuPDF."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FallBack:
    """A block kept as it was printed: its page (0-based), its paragraph id and why
    (``page_check``'s rule names)."""

    page: int
    block: str
    reasons: tuple[str, ...]


#: How many blocks a message names; past that, a page says how many more it kept.
NAMED = 12


def fallback_note(fallbacks: Sequence[FallBack]) -> str:
    """What a job's final message says of the blocks kept as printed ("" when none was):
    "kept as printed where the translation would not fit the page: page 3 (p2-b4, p2-b7),
    page 9 (p8-b1)"; past :data:`NAMED` blocks, a page's others are counted ("page 12 (3
    blocks)")."""
    if not fallbacks:
        return ""
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
    return "kept as printed where the translation would not fit the page: " + ", ".join(parts)
