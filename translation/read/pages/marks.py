"""Marks: glyphs that have no Unicode meaning, kept as the glyphs they are.

A font without a ``/ToUnicode`` map whose encoding names its glyphs with names that mean no
character ("a1", "circle3": circled footnote numbers, dingbats, list labels drawn by a Type3
font) is read by PyMuPDF as the codes themselves: a circled 1-5 become "x y z { |". Such text
is no text: a span made only of those codes is a *mark*; its characters are classed as glyphs
of a formula (``translation.read.math.formulas.GLYPH``), so the model gets a placeholder and the
page gets the original glyphs back.

:func:`unmapped_codes` is the rule on plain data; :func:`page_marks` reads the facts it needs
from a PyMuPDF page (the fonts' ``/ToUnicode`` and ``/Encoding /Differences``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import pymupdf
from pymupdf import mupdf

from translation.read.math.formulas import font_base

_SIMPLE_FONTS = frozenset({"Type1", "MMType1", "TrueType", "Type3"})
_TOKEN_RE = re.compile(r"/([^\s/\[\]<>()]+)|(\d+)")
_DIFFERENCES_RE = re.compile(r"/Differences\s*\[([^\]]*)\]")
_NO_CHAR = 0xFFFD


def differences(encoding: str) -> dict[int, str]:
    """Code -> glyph name of an ``/Encoding`` dictionary's ``/Differences`` array, as PDF
    source text ("<< /Differences [120 /a1 /a2] >>")."""
    found = _DIFFERENCES_RE.search(encoding)
    names: dict[int, str] = {}
    code = 0
    for name, number in _TOKEN_RE.findall(found.group(1) if found else ""):
        if number:
            code = int(number)
        else:
            names[code] = name
            code += 1
    return names


def unmapped_codes(names: Mapping[int, str], to_unicode: Callable[[str], int]) -> frozenset[str]:
    """The characters PyMuPDF reports for the codes whose glyph names ``to_unicode`` maps to no
    character (U+FFFD): the code itself read as a character."""
    return frozenset(chr(code) for code, name in names.items() if to_unicode(name) == _NO_CHAR)


def is_mark(text: str, codes: frozenset[str]) -> bool:
    """Whether a span's ``text`` is made only of unmapped codes (and spaces)."""
    glyphs = text.replace(" ", "")
    return bool(glyphs) and all(c in codes for c in glyphs)


def page_marks(page: pymupdf.Page) -> dict[str, frozenset[str]]:
    """Font name (as the page's text spans give it, less a subset prefix) -> the characters
    its unmapped codes read as, for the simple fonts of ``page`` without a ``/ToUnicode``."""
    doc = page.parent
    found: dict[str, frozenset[str]] = {}
    for xref, _ext, kind, basefont, *_ in page.get_fonts(full=True):
        if kind not in _SIMPLE_FONTS or doc.xref_get_key(xref, "ToUnicode")[0] != "null":
            continue
        what, value = doc.xref_get_key(xref, "Encoding")
        if what == "xref":
            value = doc.xref_object(int(value.split()[0]), compressed=True)
        codes = unmapped_codes(differences(value), mupdf.fz_unicode_from_glyph_name)
        if codes:
            # Text spans name a Type3 font by its object, others by the base font's name.
            name = f"Type3 ({xref} 0 R)" if kind == "Type3" else font_base(basefont)
            found[name] = codes
    return found
