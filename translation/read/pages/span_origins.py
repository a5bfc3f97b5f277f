"""Span origins: a span's baseline is that of its first drawn glyph, not of a space MuPDF
put before it.

MuPDF joins a raised footnote marker (or a lowered subscript) and the text after it into one
line and inserts a space between them that stands on the marker's baseline; when that space
opens the next span, the span's ``origin`` is the space's, a few points off the baseline of
the text it holds. The rows read their baselines from span origins, and a line's redaction
band is set around its baseline: a band set around the marker's baseline misses the line's
glyphs, which then stay under the translation (a table footnote's first line).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Page = dict[str, Any]  # a ``dict``/``rawdict`` page of PyMuPDF


def _leads_with_space(span: Page) -> bool:
    text = str(span.get("text", ""))
    return text[:1].isspace() and bool(text.strip())


def fix_origins(page: Page, raw: Callable[[], Page]) -> Page:
    """``page`` (a ``dict`` page) with the origin of each span that opens with a space and
    holds text moved to its first glyph that is not a space, read from ``raw()`` (the
    ``rawdict`` of the same text page, same blocks, lines and spans; asked for only when some
    span needs it). Other spans keep their origins."""
    chars: Page | None = None
    for b, block in enumerate(page.get("blocks", ())):
        for n, line in enumerate(block.get("lines", ())):
            for s, span in enumerate(line.get("spans", ())):
                if not _leads_with_space(span):
                    continue
                chars = chars if chars is not None else raw()
                try:
                    glyphs = chars["blocks"][b]["lines"][n]["spans"][s]["chars"]
                except (IndexError, KeyError):
                    continue  # not the same structure: keep what MuPDF said
                first = next((c for c in glyphs if not c["c"].isspace()), None)
                if first is not None:
                    span["origin"] = tuple(first["origin"])
    return page
