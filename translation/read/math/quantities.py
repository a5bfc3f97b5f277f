"""Quantities: a table cell that states a value ("WxL = 8.5 µm x 5 µm", "L = 15 µm", "p < 0.05")
is notation, not text: it stays as it is, like a cell of numbers. Pure."""

from __future__ import annotations

import re

_RELATION_RE = re.compile(r"[=<>≤≥≈≃∼≠]")
_LETTERS_RE = re.compile(r"[^\W\d_]+")
_LONGEST = 3  # letters: a symbol or a unit ("WxL", "µm", "kHz"), not a word
#: Symbols and units are Latin or Greek letters; a run in another script is a word ("합계").
_SYMBOL_SCRIPTS_END = 0x0400


def is_quantity(text: str) -> bool:
    """Whether ``text`` relates symbols, numbers and units by a relation sign: it holds one,
    and every run of letters is Latin or Greek and no longer than a symbol or a unit is."""
    if not _RELATION_RE.search(text):
        return False
    return all(
        len(run) <= _LONGEST and all(ord(c) < _SYMBOL_SCRIPTS_END for c in run)
        for run in _LETTERS_RE.findall(text)
    )
