"""Corpus pages translated with the pseudo translator, and the translation's glyphs on them:
what the style, fit and polish tests look at."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import NamedTuple

import pymupdf

from tests.fakes.pseudo import pseudo_translate
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.flow.passage import translated
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


def kept_as_printed(data: bytes, out: pymupdf.Page, paras: list[Paragraph]) -> bool:
    """Whether the source words on the lines of ``paras`` (their redaction bands) stand on
    ``out`` (page 0 of a PDF made from ``data``) where the source printed them."""
    with pymupdf.open(stream=data) as source:
        words = source[0].get_text("words")
    bands = [pymupdf.Rect(r) for p in paras for r in p.rects]
    theirs = [w for w in words if any(pymupdf.Rect(w[:4]).intersects(b) for b in bands)]
    now = {(round(w[0]), round(w[1]), w[4]) for w in out.get_text("words")}
    return bool(theirs) and all((round(w[0]), round(w[1]), w[4]) in now for w in theirs)
