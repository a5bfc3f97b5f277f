"""Constructed table pages read and set again with the pseudo translator, and what a reader
of the translation sees on them (spans in an area, translated text)."""

from __future__ import annotations

from typing import Any

import pymupdf

from tests.fakes.pseudo import pseudo_translate
from translation.pdf import render_mono
from translation.read.document import open_document
from translation.read.extraction import extract_paragraphs
from translation.read.math.formulas import restore
from translation.read.paragraph import Paragraph


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
