"""A glyph of a Type 3 font named like TeX's math extension font (CMEX10), drawn into a page
built by a test: how TeX's big operators and delimiters reach a PDF."""

from __future__ import annotations

import pymupdf


def draw_cmex_glyph(
    doc: pymupdf.Document,
    page: pymupdf.Page,
    char: str,
    glyph: bytes,
    *,
    bbox: str,
    width: int,
    x: float,
    y: float,
    size: float,
    name: str | None = "CMEX10",
    times: int = 1,
    glyph_name: str | None = None,
) -> None:
    """Draw ``char`` (one ASCII letter: its code and glyph name) of a one-glyph Type 3 font
    with ``glyph`` as its CharProc (``d1`` and the outline, in 1/1000 em) and ``bbox`` as its
    FontBBox (``"x0 y0 x1 y1"``), ``width`` wide, with its origin at ``x``, ``y`` in PDF space
    (from the bottom), ``size`` points, in a content stream of its own after the page's; ``name``
    None: a font without a /Name (PyMuPDF then names it by its object); ``times``: the glyph
    drawn so many times in a row; ``glyph_name``: the glyph's name where it is not ``char``
    (what a reader takes its Unicode from: "openbullet" reads "◦")."""
    proc = doc.get_new_xref()
    doc.update_object(proc, "<<>>")
    doc.update_stream(proc, glyph)
    code = ord(char)
    glyph_name = glyph_name or char
    named = f"/Name /{name} " if name else ""
    font = doc.get_new_xref()
    doc.update_object(
        font,
        f"<< /Type /Font /Subtype /Type3 {named}/FontBBox [{bbox}] "
        f"/FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << /{glyph_name} {proc} 0 R >> "
        f"/Encoding << /Type /Encoding /Differences [{code} /{glyph_name}] >> "
        f"/FirstChar {code} /LastChar {code} /Widths [{width}] /Resources << >> >>",
    )
    resources = int(doc.xref_get_key(page.xref, "Resources")[1].split()[0])
    doc.xref_set_key(resources, "Font/ZtEx", f"{font} 0 R")
    stream = doc.get_new_xref()
    doc.update_object(stream, "<<>>")
    doc.update_stream(
        stream, f"BT /ZtEx {size:g} Tf {x:g} {y:g} Td ({char * times}) Tj ET".encode()
    )
    kind, contents = doc.xref_get_key(page.xref, "Contents")
    listed = contents[1:-1] if kind == "array" else contents
    doc.xref_set_key(page.xref, "Contents", f"[{listed} {stream} 0 R]")
