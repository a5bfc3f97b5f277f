"""The scan both gutter finders share (``translation.read.tables.detect``, ``number_columns``).

A table's x-range is cut into steps of ``STEP`` points; for each step the finders count the
rows whose glyphs cover it and the rows with a gap there. A gutter candidate is a run of steps
that some row has a gap in and that the glyphs of at most ``allowed`` rows cross (a header
spanning columns). Pure.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

STEP = 0.25  # resolution of the scan, in points
#: A gutter is crossed by at most one row in this many (a heading, a note over the cells).
CROSSED_BY_ONE_IN = 5


def open_runs(cover: Sequence[int], gaps: Sequence[int], allowed: int) -> Iterator[tuple[int, int]]:
    """The maximal runs ``[i, j)`` of steps with ``gaps[k] > 0`` and ``cover[k] <= allowed``."""
    n, i = len(cover), 0
    while i < n:
        if cover[i] > allowed or gaps[i] == 0:
            i += 1
            continue
        j = i
        while j < n and cover[j] <= allowed and gaps[j] > 0:
            j += 1
        yield i, j
        i = j
