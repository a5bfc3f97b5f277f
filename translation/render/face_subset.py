"""Embedded CJK faces cut down to the glyphs a document uses (see ``translation.render.cff``):
the font program, its widths and its text mapping, rewritten in place in the PDF.

PyMuPDF embeds a CFF-flavoured OpenType face whole, with the widths and Unicode mapping of
every glyph; its subsetter leaves such fonts as they are. Each face is rewritten here once per
output, before the document is saved; a face this cannot read is left whole (correct, large).
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import pymupdf

from translation.render.cff import FontFormatError, sfnt_table, subset_cid_font

log = logging.getLogger(__name__)

_REF = re.compile(r"(\d+) 0 R")


@dataclass(frozen=True)
class UsedFace:
    """A face written into a document: its font, its file's bytes, and the characters set in
    it by glyph id."""

    font: pymupdf.Font
    data: bytes
    chars: Mapping[int, str]


def subset_faces(doc: pymupdf.Document, faces: Iterable[UsedFace]) -> None:
    """Cut each of ``faces`` embedded in ``doc`` down to the characters it set."""
    by_name = {face.font.name: face for face in faces}
    if not by_name:
        return
    for xref in range(1, doc.xref_length()):
        if doc.xref_get_key(xref, "Subtype") != ("name", "/Type0"):
            continue
        cid_font = _ref(doc.xref_get_key(xref, "DescendantFonts")[1])
        descriptor = _ref(doc.xref_get_key(cid_font, "FontDescriptor")[1]) if cid_font else 0
        if not descriptor:
            continue
        name = _name(doc.xref_get_key(descriptor, "FontName")[1])
        program = _ref(doc.xref_get_key(descriptor, "FontFile3")[1])
        face = by_name.get(name)
        if face is None or not program:
            continue
        if doc.xref_get_key(program, "Subtype") != ("name", "/OpenType"):
            continue  # already cut (the same font object serves every page)
        try:
            cff = subset_cid_font(cff_table(face.data), face.chars.keys())
        except FontFormatError as exc:
            log.warning("%s embedded whole: %s", name, exc)
            continue
        doc.update_stream(program, cff)
        doc.xref_set_key(program, "Subtype", "/CIDFontType0C")
        doc.xref_set_key(program, "Length1", "null")
        doc.xref_set_key(cid_font, "W", _widths(face))
        to_unicode = _ref(doc.xref_get_key(xref, "ToUnicode")[1])
        if to_unicode:
            doc.update_stream(to_unicode, to_unicode_cmap(face.chars))
        # A subset's name carries a tag of six capitals (PDF 32000, 9.6.4).
        postscript = doc.xref_get_key(cid_font, "BaseFont")[1].lstrip("/")
        tagged = f"/{subset_tag(face.chars)}+{postscript}"
        for target, key in ((xref, "BaseFont"), (cid_font, "BaseFont"), (descriptor, "FontName")):
            doc.xref_set_key(target, key, tagged)


#: The CFF table of each face's bytes this process cut (by ``id``; the bytes are kept with it,
#: so an id is never another's): a face's table is copied out once (15 MB, 30 ms), not per
#: output. Faces are read once per process (``translation.render.faces``): a few entries.
_tables: dict[int, tuple[bytes, bytes]] = {}
_tables_lock = threading.Lock()


def cff_table(data: bytes) -> bytes:
    """The CFF table of the OpenType font ``data`` (``FontFormatError`` without one)."""
    with _tables_lock:
        kept = _tables.get(id(data))
        if kept is None or kept[0] is not data:
            kept = _tables[id(data)] = (data, sfnt_table(data, b"CFF "))
        return kept[1]


def subset_tag(chars: Mapping[int, str]) -> str:
    """Six capitals that differ between subsets of one font (from the glyphs kept)."""
    digest = hashlib.sha1(",".join(map(str, sorted(chars))).encode()).digest()
    return "".join(chr(ord("A") + b % 26) for b in digest[:6])


def _ref(value: str) -> int:
    match = _REF.search(value)
    return int(match.group(1)) if match else 0


def _name(value: str) -> str:
    return re.sub(r"#([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)), value.lstrip("/"))


def _widths(face: UsedFace) -> str:
    parts = [
        f"{gid} [{round(face.font.glyph_advance(ord(char)) * 1000)}]"
        for gid, char in sorted(face.chars.items())
    ]
    return "[" + " ".join(parts) + "]"


def to_unicode_cmap(chars: Mapping[int, str]) -> bytes:
    """A ToUnicode CMap mapping each glyph id (2-byte codes, as Identity-H writes them) to
    its character."""
    entries = [
        f"<{gid:04X}> <{char.encode('utf-16-be').hex().upper()}>"
        for gid, char in sorted(chars.items())
        if 0 < gid <= 0xFFFF
    ]
    blocks = []
    for start in range(0, len(entries), 100):
        chunk = entries[start : start + 100]
        blocks.append(f"{len(chunk)} beginbfchar\n" + "\n".join(chunk) + "\nendbfchar")
    return (
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
        "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n"
        + "\n".join(blocks)
        + "\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
    ).encode("ascii")
