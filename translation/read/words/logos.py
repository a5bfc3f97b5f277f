"""Typeset logos read back as the words they are.

TeX sets its own name and LaTeX's with raised, lowered and smaller letters: the small raised
"A" of LaTeX reads as a superscript, so the logo would become a formula "LA" (copied as it
looks) before a word "TEX" (translated): fragments of the logo in a title or a caption. Such a
logo is the word "LaTeX", plain text the model keeps as it is; so is it after a prefix
("PDFLaTeX", "XeLaTeX": the small "A" kerned under the "L" before it).
"""

from __future__ import annotations

import re

from translation.read.math.formulas import MATHS, TEXT

# The letters of the logo as MuPDF reads them, the "A" set as a script (its class says so:
# letters before it are a prefix of the name, "PDFLATEX").
_LATEX_RE = re.compile(r"LATE[Xx](?![A-Za-z])")


#: The word a LaTeX logo is read as: as long as the logo's letters.
_LOGO = "LaTeX"


def text_logos(chars: str, classes: str) -> tuple[str, str]:
    """``chars`` and ``classes`` (one per character) with each LaTeX logo made the word
    "LaTeX" in text: same length, so the characters' boxes still line up."""
    for match in _LATEX_RE.finditer(chars):
        start = match.start()
        if classes[start + 1] not in MATHS:  # an upper-case "LATEX" of the text itself
            continue
        chars = chars[:start] + _LOGO + chars[start + len(_LOGO) :]
        classes = classes[:start] + TEXT * len(_LOGO) + classes[start + len(_LOGO) :]
    return chars, classes
