"""Bold faces by the weight their PDF states: a face is bold when its font descriptor's
``/FontWeight`` says so, whatever its name.

MuPDF flags a span bold from the face's flags and its name ("Bold", "Bd"); a family whose
faces are named by number ("Yoon Gothic 740" the text, "... 780" the headings) says neither,
though the descriptor it writes for each face states the weight (400 regular, 700 bold: the
CSS scale the PDF reference uses). A face stating :data:`BOLD_WEIGHT` or more is bold; a
medium face (500) is not. :func:`stated_weight` is the rule on PDF source text;
:func:`bold_faces` reads the page's fonts.
"""

from __future__ import annotations

import re

import pymupdf

from translation.read.math.formulas import font_base

#: The least stated weight that is bold (600: semibold, as "Semibold" in a name is).
BOLD_WEIGHT = 600
#: MuPDF's flag of a bold span.
BOLD_FLAG = 16
_WEIGHT_RE = re.compile(r"/FontWeight\s*(\d+(?:\.\d*)?)")


def stated_weight(descriptor: str) -> float | None:
    """The ``/FontWeight`` a font descriptor (PDF source text) states, None where none."""
    found = _WEIGHT_RE.search(descriptor)
    return float(found.group(1)) if found else None


def _name(value: str) -> str:
    """A PDF name's text: "/IJMAAR+YoonGothicPro780" -> "YoonGothicPro780"."""
    return font_base(value.lstrip("/").replace("#20", " "))


def _face(doc: pymupdf.Document, xref: int) -> tuple[str, set[str]]:
    """The source of font ``xref``'s descriptor and the names it goes by: its own, or a
    Type0 font's descendant's (its glyphs, its descriptor, and often the name text spans
    give it, "NimbusSans-Regular" under "Nimbus Sans Regular")."""
    names = {_name(doc.xref_get_key(xref, "BaseFont")[1])}
    font = xref
    what, value = doc.xref_get_key(xref, "DescendantFonts")
    if what == "xref":
        value = doc.xref_object(int(value.split()[0]), compressed=True)
        what = "array"
    if what == "array":
        refs = re.findall(r"(\d+) 0 R", value)
        if refs:
            font = int(refs[0])
            names.add(_name(doc.xref_get_key(font, "BaseFont")[1]))
    what, value = doc.xref_get_key(font, "FontDescriptor")
    if what != "xref":
        return "", names
    descriptor = int(value.split()[0])
    names.add(_name(doc.xref_get_key(descriptor, "FontName")[1]))
    return doc.xref_object(descriptor, compressed=True), names


def bold_faces(page: pymupdf.Page) -> frozenset[str]:
    """The names (as the page's text spans give them, less a subset prefix) of the page's
    fonts whose descriptor states a weight of :data:`BOLD_WEIGHT` or more."""
    doc = page.parent
    found: set[str] = set()
    for xref, _ext, kind, _basefont, *_ in page.get_fonts(full=True):
        if kind == "Type3" or not xref:
            continue
        descriptor, names = _face(doc, xref)
        weight = stated_weight(descriptor)
        if weight is not None and weight >= BOLD_WEIGHT:
            found |= names - {""}
    return frozenset(found)
