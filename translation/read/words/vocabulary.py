"""A document's vocabulary: the words and the hyphenated compounds it prints whole, inside a line.

The document itself is the best evidence for what a hyphen at a line's end means. A name the
word list lacks ("Kryscin-" + "ski") is one word when the document prints "Kryscinski" unbroken
elsewhere (in the references, on another line); a compound ("Transformer-" + "based") keeps its
hyphen when the document prints "Transformer-based" inside a line elsewhere. Built once per
document from its page layouts (lower-cased letter runs and the pairs of letter runs a hyphen
joins inside a line) and handed to :func:`translation.read.words.lexicon.joins_at_break`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from translation.read.layout import PageLayout

_LETTERS_RE = re.compile(r"[^\W\d_]+")
# A run of letter runs joined by hyphens, with letters after each hyphen on the same line.
_COMPOUND_RE = re.compile(r"[^\W\d_]+(?:[-\u2010][^\W\d_]+)+")


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """``words``: the lower-cased letter runs the document prints; ``hyphened``: the pairs
    (lower-cased) that a hyphen joins inside a line ("transformer", "based"); ``lowered``:
    the letter runs it prints in lower case (an "ALL" header is the word "all"; "TAPAS" never
    printed so is a name)."""

    words: frozenset[str] = frozenset()
    hyphened: frozenset[tuple[str, str]] = frozenset()
    lowered: frozenset[str] = frozenset()

    def verdict(self, before: str, after: str) -> bool | None:
        """Whether the document says a line-end hyphen between ``before`` and ``after`` breaks
        one word (True), is a compound's (False), or says nothing either way (None: it prints
        both forms, or neither)."""
        joined = (before + after).lower() in self.words
        hyphened = (before.lower(), after.lower()) in self.hyphened
        if joined == hyphened:
            return None
        return joined


def vocabulary(pages: Sequence[PageLayout]) -> Vocabulary:
    """The vocabulary of the document whose page layouts are ``pages``."""
    words: set[str] = set()
    hyphened: set[tuple[str, str]] = set()
    lowered: set[str] = set()
    for page in pages:
        for block in page.blocks:
            for line in block.lines:
                printed = "".join(span.text for span in line.spans)
                lowered.update(r for r in _LETTERS_RE.findall(printed) if r.islower())
                text = printed.lower()
                words.update(_LETTERS_RE.findall(text))
                for match in _COMPOUND_RE.finditer(text):
                    parts = re.split(r"[-\u2010]", match.group())
                    hyphened.update(zip(parts, parts[1:], strict=False))
    return Vocabulary(frozenset(words), frozenset(hyphened), frozenset(lowered))
