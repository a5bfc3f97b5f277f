"""Which way a page is read: stored upright, or as its viewer shows it.

A page's ``/Rotate`` says how a viewer shows it, not how its text runs: a page written upright
and given ``/Rotate 180`` shows upside down, while a landscape page written sideways is made
upright by ``/Rotate 90``. Side-by-side outputs are laid out in the frame this module finds, so
the source stays left of its translation whichever way the page is stored.
"""

from __future__ import annotations

import pymupdf


def reading_turn(page: pymupdf.Page) -> int:
    """The clockwise turn (0, 90, 180 or 270) of the unrotated page under which it reads.

    0 when most of the page's text runs left to right unturned (written upright, whatever its
    ``/Rotate``); otherwise the page's ``/Rotate``, the way its viewer shows it (sideways
    text made upright by ``/Rotate``, vertical writing, a scan, a page without text).
    """
    rotation = page.rotation % 360
    if not rotation:
        return 0
    upright = turned = 0
    for block in page.get_text("dict", flags=pymupdf.TEXT_MEDIABOX_CLIP)["blocks"]:
        for line in block.get("lines", ()):
            size = sum(len(span["text"].strip()) for span in line["spans"])
            if (round(line["dir"][0]), round(line["dir"][1])) == (1, 0):
                upright += size
            else:
                turned += size
    return 0 if upright > turned else rotation
