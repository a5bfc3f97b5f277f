"""What a written page draws, glyph by glyph, for tests that check where copies landed."""

from __future__ import annotations

import pymupdf

#: Families of the translation's faces (the renderer's CJK and Latin fonts); any other face on
#: a written page came from the source.
TRANSLATION_FACES = ("Noto", "Droid")


def source_glyphs(page: pymupdf.Page, chars: str) -> list[pymupdf.Rect]:
    """The boxes of ``chars`` drawn on ``page`` in a face of the source (not the translation's)."""
    return [
        pymupdf.Rect(c[3])
        for t in page.get_texttrace()
        if not any(face in t["font"] for face in TRANSLATION_FACES)
        for c in t["chars"]
        if chr(c[0]) in chars
    ]
