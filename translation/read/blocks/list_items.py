"""List items: the label a line opens with (bullets, "1.", "(a)", "iv)", "III.", "①", "[3]")
and where a new item begins, told from an enumeration run into the text. Pure, on
:class:`~translation.read.rows.row.Row` and plain text; called by
:mod:`translation.read.blocks.roles`."""

from __future__ import annotations

import re

from translation.read.blocks.line_ends import short
from translation.read.numbering.grammar import (
    BULLET_SHAPES,
    BULLET_SYMBOLS,
    BULLETS,
    CIRCLED,
    COUNT,
    DASHES,
    LETTER_ITEM,
    NUMBER,
    NUMBERING_START,
    ROMAN,
    ROMAN_ITEM,
    ROMAN_ITEMS,
)
from translation.read.rows.row import Row
from translation.read.words.word import ends_sentence

# A list item's label: bullets, "1.", "(a)", "iv)", "III.", "①", "[3]" (a reference entry).
_LIST_LABEL_RE = re.compile(
    rf"^\s*(?:[{BULLETS}{BULLET_SHAPES}{BULLET_SYMBOLS}{DASHES}*]\s*|{CIRCLED}\s*|"
    rf"(?:\(?{NUMBER}[.)]|\(?{LETTER_ITEM}[.)]|\({ROMAN_ITEM}\)|{ROMAN_ITEM}\)|{ROMAN}\.|"
    rf"\[{COUNT}\])\s+)"
)
# Labels that are plain numbering ("1." "(a)"): a new item only after a finished sentence, a
# colon, a semicolon, or another item (a line of prose can start with "(2)").
_NUMBERING_RE = re.compile(rf"^\s*{NUMBERING_START}")


# A hyphen-minus set as a bullet, then a space and a letter ("- AI 기술을 활용해 ...",
# "- 각종 사이버위협에 ..."): a letter no lower-case Latin one (a word going on after a dash
# a line broke before: "the model" | "- which is new"), and no digit (a formula's minus).
_HYPHEN_LABEL_RE = re.compile(r"^\s*-\s+(?=[^\W\d_])")


def _hyphen_label(text: str) -> str:
    """The hyphen-minus bullet ``text`` opens with (with its spaces), or ""."""
    match = _HYPHEN_LABEL_RE.match(text)
    if match is None or text[match.end()].islower():
        return ""
    return match.group(0)


def list_label(text: str) -> str:
    """The list label a line starts with, with its trailing spaces ("" if none)."""
    match = _LIST_LABEL_RE.match(text)
    if not match:
        return _hyphen_label(text)
    if len(match.group(0).strip()) == len(text.strip()):
        return ""
    if match.group(0).lstrip()[:1] == "[" and text[match.end()].islower():
        return ""  # a citation opening a line of prose ("[18] experiment with ...")
    return match.group(0)


def starts_item(prev: Row, cur: Row, para: list[Row]) -> bool:
    """Whether ``cur`` begins a new list item after ``prev`` (``para``: the rows of the
    paragraph ``prev`` ends). Bullets always do; numbering, "[12]" and a hyphen-minus bullet
    after the end of a sentence, a colon or a semicolon, or after another item ("[12]" and
    "-" after a short line too); never a marker whose predecessor
    stands inside a line of the paragraph (an enumeration run into the text: "...: i) improving
    ..." then "ii) aggregating ..." opening a line, 02 p7)."""
    label = list_label(cur.chars)
    if not label:
        return False
    if not _NUMBERING_RE.match(label) and label.strip() != "-":
        return True
    if _run_in_enumeration(label, para):
        return False
    first = para[0]
    if prev.text.rstrip().endswith((":", ";", "：", "；")) or ends_sentence(prev.text):
        return True
    if prev.text.endswith(("—", "–")) and short(prev):
        return True  # "... the following workflow —" ended on purpose, then "1. Spend ..."
    # A reference entry "[12] ..." after the short last line of the one before it; not a
    # citation "[18]" that happens to open a line of prose.
    # A hyphen bullet, like "[12]", after a short line (a lead-in set in the noun style).
    return bool(list_label(first.chars)) or (label.lstrip()[:1] in "[-" and short(prev))


# An enumeration's marker closed by a bracket: "ii)", "(b)", "3)".
_BRACKET_MARK_RE = re.compile(rf"^(\(?)({ROMAN_ITEM}|{LETTER_ITEM}|{NUMBER})\)$")
_ROMANS = ROMAN_ITEMS


def _run_in_enumeration(label: str, para: list[Row]) -> bool:
    """Whether the marker before ``label`` ("i)" before "ii)", "(a)" before "(b)") stands
    inside a line of ``para``, after words, not opening the line: the enumeration runs in the
    text, so its next marker is text too, wherever the line breaks."""
    match = _BRACKET_MARK_RE.match(label.strip())
    if not match:
        return False
    opening, mark = match.groups()
    if mark in _ROMANS:
        index = _ROMANS.index(mark)
        before = [_ROMANS[index - 1]] if index else []
        if len(mark) == 1 and mark > "a":  # "i", "v", "x" are letters too
            before.append(chr(ord(mark) - 1))
    elif mark.isdigit():
        before = [str(int(mark) - 1)] if int(mark) > 1 else []
    else:
        before = [chr(ord(mark) - 1)] if mark > "a" else []
    marks = [re.escape(f"{opening}{b})") for b in before]
    if not marks:
        return False
    inside = re.compile(rf"(\S+)\s+(?:{'|'.join(marks)})\s")
    return any(
        not _EQUATION_WORD_RE.match(found.group(1))  # "Eq. (1)" cites an equation
        for row in para
        for found in inside.finditer(row.text)
    )


_EQUATION_WORD_RE = re.compile(r"(?:eqs?|equations?|formulas?)\.?$", re.IGNORECASE)
