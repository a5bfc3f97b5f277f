"""Pages read, translated with the pseudo translator and set again, and what a reader of the
translation sees on them: the translation's glyphs, the spans in an area, the text.

:func:`render_page` sends each passage as one request, as the pipeline does (corpus pages and
constructed ones); :func:`translate` sends each paragraph alone (the constructed table pages,
whose cells are paragraphs of their own)."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, NamedTuple

import pymupdf

from tests.fakes.pseudo import pseudo_translate
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.flow.passage import translated
from translation.read.math.formulas import restore
from translation.read.paragraph import Paragraph


def paper_bytes(corpus_dir: Path, number: str) -> bytes:
    (path,) = corpus_dir.glob(f"{number}_*.pdf")
    return path.read_bytes()


@functools.cache
def render_page(data: bytes, page: int) -> tuple[list[Paragraph], pymupdf.Page]:
    """The paragraphs of 0-based ``page`` and that page of the mono output (into Korean), each
    passage translated as one request, as the pipeline sends it."""
    paragraphs = extract_paragraphs(open_document(data), pages=[page])
    translations = translated(paragraphs, lambda text: pseudo_translate(text, "ko"))
    mono = render_mono(open_document(data), paragraphs, translations, "ko")
    return paragraphs, pymupdf.open(stream=mono)[page]


class Glyph(NamedTuple):
    char: str
    bbox: tuple[float, float, float, float]
    size: float
    color: tuple[float, ...]
    stroked: bool  # drawn with an outline: fake bold


def translation_glyphs(page: pymupdf.Page) -> list[Glyph]:
    """The characters of the translation (set in the bundled fonts), one by one."""
    return [
        Glyph(chr(c[0]), tuple(c[3]), t["size"], tuple(round(v, 1) for v in t["color"]),
              t["type"] == 1)
        for t in page.get_texttrace()
        if "Droid" in t["font"] or "Noto" in t["font"]
        for c in t["chars"]
    ]  # fmt: skip


class PlacedGlyph(NamedTuple):
    char: str
    bbox: pymupdf.Rect
    origin: tuple[float, float]
    size: float
    color: tuple[float, ...]
    stroked: bool  # drawn with an outline: fake bold


def placed_glyphs(page: pymupdf.Page, area: pymupdf.Rect | None = None) -> list[PlacedGlyph]:
    """The characters of the translation (set in the bundled fonts) whose centre is inside
    ``area`` (all when None), with their origins."""
    found = [
        PlacedGlyph(chr(c[0]), pymupdf.Rect(c[3]), tuple(c[2]), t["size"],
                    tuple(round(v, 1) for v in t["color"]), t["type"] == 1)
        for t in page.get_texttrace()
        if "Droid" in t["font"] or "Noto" in t["font"]
        for c in t["chars"]
    ]  # fmt: skip
    if area is None:
        return found
    return [g for g in found if area.contains(g.bbox.tl + (g.bbox.br - g.bbox.tl) * 0.5)]


def glyph_boxes(page: pymupdf.Page, font: str, chars: str) -> list[pymupdf.Rect]:
    """The boxes of the glyphs of ``chars`` drawn on ``page`` in a font whose name holds
    ``font``, in drawing order."""
    return [
        pymupdf.Rect(c[3])
        for t in page.get_texttrace()
        if font in t["font"]
        for c in t["chars"]
        if chr(c[0]) in chars
    ]


def translate(data: bytes, lang: str) -> tuple[list[Paragraph], pymupdf.Page]:
    """The paragraphs of a one-page PDF and its page translated into ``lang``."""
    paras = extract_paragraphs(open_document(data))
    wanted = {p.id: restore(pseudo_translate(p.text, lang), p) for p in paras}
    out = pymupdf.open(stream=render_mono(open_document(data), paras, wanted, lang))
    return paras, out[0]


def spans(page: pymupdf.Page, clip: tuple[float, float, float, float]) -> list[dict[str, Any]]:
    """The spans with text on ``page`` inside ``clip``."""
    return [
        span
        for block in page.get_text("dict", clip=clip)["blocks"]
        for line in block.get("lines", [])
        for span in line["spans"]
        if span["text"].strip()
    ]


def hangul(text: str) -> bool:
    return any("\uac00" <= c <= "\ud7a3" for c in text)


def by_text(paras: list[Paragraph]) -> dict[str, Paragraph]:
    """The paragraphs by their text, spaces normalised."""
    return {" ".join(p.text.split()): p for p in paras}


def times_words(page: pymupdf.Page, clip: pymupdf.Rect) -> list[str]:
    """The words of the source's text font (Times) still on the page inside ``clip``."""
    return [
        "".join(chr(c[0]) for c in t["chars"]).strip()
        for t in page.get_texttrace()
        if "Times" in t["font"] and pymupdf.Rect(t["bbox"]).intersects(clip)
    ]


def kept_as_printed(data: bytes, out: pymupdf.Page, paras: list[Paragraph]) -> bool:
    """Whether the source words on the lines of ``paras`` (their redaction bands) stand on
    ``out`` (page 0 of a PDF made from ``data``) where the source printed them."""
    with pymupdf.open(stream=data) as source:
        words = source[0].get_text("words")
    bands = [pymupdf.Rect(r) for p in paras for r in p.rects]
    theirs = [w for w in words if any(pymupdf.Rect(w[:4]).intersects(b) for b in bands)]
    now = {(round(w[0]), round(w[1]), w[4]) for w in out.get_text("words")}
    return bool(theirs) and all((round(w[0]), round(w[1]), w[4]) in now for w in theirs)
