"""Sentence and clause ends in a text of any script: where an answer may be cut between boxes.

A sentence ends at ``.`` ``!`` ``?`` ``…`` (with closing quotes and brackets) before a space and
anything but a lower-case Latin letter (which says the stop was an abbreviation's), or at a CJK
full stop (``。！？``), with or without a space after it. A clause ends at a comma, semicolon or
colon before a space, or at their CJK forms (``，、；：``). Offsets are those of the first
character after the end and its spaces, so ``text[:offset]`` is the sentence with its stop. A
stop after an abbreviation ("et al.", "Fig.", "J.") ends nothing. A placeholder ``{vN}`` holds
no stop, so no end falls inside one.
"""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"[.!?…][\"'”’)\]]*\s+(?=[^\sa-z])|[。！？][\"'”’」』)\]]*\s*(?=\S)")
_CLAUSE_END = re.compile(r"[,;:][\"'”’)\]]*\s+(?=\S)|[，、；：]\s*(?=\S)")
# Words ending in "." that rarely end a sentence in a paper.
_ABBREVIATIONS = frozenset(
    "e.g i.e al fig figs eq eqs sec secs tab no nos vs cf approx ref refs resp dr mr mrs ms prof"
    " st vol pp ch app alg thm def lem prop".split()
)
_WORD_BEFORE = re.compile(r"([\w.]+)$")


def sentence_ends(text: str) -> list[int]:
    """Offsets where sentences of ``text`` end (see the module docstring), inside the text."""
    ends = []
    for match in _SENTENCE_END.finditer(text):
        if text[match.start()] == ".":
            word = _WORD_BEFORE.search(text[: match.start()])
            last = word.group(1).lower() if word else ""
            if last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha()):
                continue
        ends.append(match.end())
    return [end for end in ends if 0 < end < len(text)]


def clause_ends(text: str) -> list[int]:
    """Offsets where clauses of ``text`` end (commas, semicolons, colons), inside the text."""
    return [m.end() for m in _CLAUSE_END.finditer(text) if 0 < m.end() < len(text)]
