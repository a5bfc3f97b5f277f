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


def dark_pixels(page: pymupdf.Page, clip: pymupdf.Rect) -> int:
    """How many pixels of ``page`` inside ``clip`` are dark (rendered at 288 dpi, in grey):
    the ink a reader sees there."""
    pix = page.get_pixmap(dpi=288, clip=clip, colorspace=pymupdf.csGRAY)
    return sum(1 for v in pix.samples if v < 128)
