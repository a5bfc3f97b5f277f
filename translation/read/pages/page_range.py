"""Page ranges as users write them ("1-3,7")."""

from __future__ import annotations

import re

from common.errors import InputError

_RANGE_RE = re.compile(r"^\s*(\d*)\s*(?:([-–])\s*(\d*))?\s*$")


def parse_pages(spec: str, page_count: int) -> list[int]:
    """Parse ``"1-3,7"`` (1-based, inclusive; ``"5-"`` to the end, ``"-3"`` from the start)
    into sorted unique 0-based page indices. Raises InputError on anything else, including an
    empty spec and pages past the end."""
    if not spec or not spec.strip():
        raise InputError("empty page range: use e.g. 1-3,7")
    pages: set[int] = set()
    for part in spec.split(","):
        match = _RANGE_RE.match(part)
        if not match or (not match.group(1) and not match.group(3)):
            raise InputError(f"invalid page range {spec!r}: use e.g. 1-3,7")
        first_s, dash, last_s = match.groups()
        first = int(first_s) if first_s else 1
        last = (int(last_s) if last_s else page_count) if dash else first
        if first < 1 or last < 1:
            raise InputError(f"invalid page range {spec!r}: pages start at 1")
        if first > last:
            raise InputError(f"invalid page range {part.strip()!r}: start is after end")
        if last > page_count:
            plural = "s" if page_count != 1 else ""
            raise InputError(
                f"page {last} is out of range: the document has {page_count} page{plural}"
            )
        pages.update(range(first - 1, last))
    return sorted(pages)
