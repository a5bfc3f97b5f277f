"""The outline (bookmarks) of a translated PDF: each entry's title replaced by the translation
of the heading it names, so a reader's navigation follows the translation; the dual PDF's
outline carries both titles.

Pure apart from reading and writing a document's outline (PyMuPDF ``get_toc``/``set_toc``).
An entry whose heading is not found on its page keeps its title.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pymupdf

#: (level, title, 1-based page, destination) as ``Document.get_toc(simple=False)`` lists them.
Entry = list[Any]
#: Source and translated text of the short paragraphs of each page (0-based), by page.
Titles = Mapping[int, Sequence[tuple[str, str]]]

# "2.1 ", "IV. ", "A ", "1.Introduction" (no space after a dot is found too).
#: Most outline entries translated (a hostile file may hold any number).
MAX_ENTRIES = 2000

_NUMBERING = re.compile(r"^\s*((?:\d+|[IVXLC]+|[A-Z])(?:\.\d+)*)(?:\.\s*|\s+)")


def _key(text: str) -> str:
    return "".join(c for c in text.casefold() if c.isalnum())


def translated_title(title: str, candidates: Sequence[tuple[str, str]]) -> str | None:
    """The translation of the heading ``title`` names among ``candidates`` (source text,
    translation), its numbering kept ("2.1 Methods" names "Methods" or "2.1 Methods");
    None when none matches."""
    key = _key(title)
    if not key:
        return None
    numbering = _NUMBERING.match(title)
    bare = _key(title[numbering.end() :]) if numbering else key
    for source, translation in candidates:
        found = _key(source)
        if found == key:
            return translation.strip()
        if numbering and found == bare:
            return f"{numbering.group(0).strip()} {translation.strip()}"
    return None


def translate_outline(toc: Sequence[Entry], titles: Titles) -> list[Entry]:
    """``toc`` with each entry's title translated where its heading is found on its page."""
    out: list[Entry] = []
    for entry in toc:
        level, title, page = entry[0], entry[1], entry[2]
        found = translated_title(title, titles.get(page - 1, ())) if page >= 1 else None
        out.append([level, found or title, page, *entry[3:]])
    return out


def set_translated_outline(doc: pymupdf.Document, titles: Titles) -> None:
    """Replace ``doc``'s outline titles by their translations, in place: each entry keeps
    its destination (a named one too). The first ``MAX_ENTRIES`` entries only."""
    toc = doc.get_toc(simple=False)[:MAX_ENTRIES]
    for number, (old, new) in enumerate(zip(toc, translate_outline(toc, titles), strict=True)):
        if new[1] != old[1]:
            doc.set_toc_item(number, title=new[1])


def dual_outline(
    source: Sequence[Entry], translated: Sequence[Entry], mode: str, translation_first: bool
) -> list[Entry]:
    """The outline of a dual PDF: side by side (``LR``), one entry per heading with both
    titles; alternating pages (``TB``), each title to its own page."""
    out: list[Entry] = []
    for original, done in zip(source, translated, strict=False):
        level, page = original[0], original[2]
        if page < 1:
            continue
        if mode == "LR":
            title = original[1] if done[1] == original[1] else f"{done[1]} / {original[1]}"
            out.append([level, title, page])
            continue
        first, second = (done, original) if translation_first else (original, done)
        out.append([level, first[1], 2 * page - 1])
        if second[1] != first[1]:
            out.append([level, second[1], 2 * page])
    return out
