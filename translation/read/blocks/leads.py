"""Bold leads: a run-in heading opening a paragraph ("Results. We run ..."), a bold lead going
on over several lines or filling its line alone, a sentence that turns bold inside a line, and
a bold lead closed by a colon ("Gold Answer: 5:02"). Pure, on
:class:`~translation.read.rows.row.Row`; called by :mod:`translation.read.blocks.roles` and
:mod:`translation.read.blocks.continuation`."""

from __future__ import annotations

from translation.read.blocks.line_ends import short
from translation.read.blocks.list_items import list_label
from translation.read.rows.row import Row
from translation.read.words.word import ends_sentence

_RUN_IN_CHARS = 3  # characters: a bold run-in heading's lead is at least this long


def run_in_start(prev: Row, cur: Row) -> bool:
    """``cur`` opens with a bold run-in heading ("Results. We run ...") after a finished
    sentence: a new paragraph."""
    if cur.bold or cur.bold_lead < _RUN_IN_CHARS or not ends_sentence(prev.text):
        return False
    lead = cur.text[: cur.bold_lead].rstrip()
    return lead.endswith((".", ":", "：", "。")) or bool(list_label(lead + " "))


def lead_runs_on(prev: Row, cur: Row, para: list[Row]) -> bool:
    """A bold run-in lead set over several lines goes on in ``cur``: the paragraph so far is
    bold, its last line runs to the column's edge inside a sentence, and ``cur`` opens in bold
    and goes on in another weight ("Highlighted hints have no effect in eval-" / "uating
    summaries: Surprisingly, ..."). A bold heading is no such lead: its line ends short, or a
    sentence ends with it."""
    if cur.bold or not all(r.bold for r in para) or short(prev) or ends_sentence(prev.text):
        return False
    lead = cur.chars[: cur.bold_lead]
    return sum(c.isalpha() for c in lead) >= 2 and len(lead.strip()) < len(cur.text)


_FILLED = 0.5  # font sizes: a line ending this near its column's right edge filled it


def stretched_lead(prev: Row, cur: Row, para: list[Row]) -> bool:
    """A bold run-in lead that filled its line alone goes on in ``cur``: the paragraph so far
    is that one bold line, closed by a full stop or a colon, reaching the column's right edge
    with its word spaces stretched wider than a space, and ``cur`` is not bold (04 p7: "Row,
    Column, & Global Positional IDs." / "With TAPAS ..."). Justification stretches every line
    of a paragraph but its last, so the paragraph goes on; a heading's line is set at its
    natural width."""
    if cur.bold or len(para) != 1 or not prev.bold or not prev.text.endswith((".", ":", "：")):
        return False
    col1 = max(prev.col_range[1], prev.x1)
    if prev.x1 < col1 - _FILLED * prev.size:
        return False
    spaces = _word_spaces(prev)
    return bool(spaces) and sorted(spaces)[len(spaces) // 2] > _STRETCHED * prev.size


#: Font sizes a word space of a justified line is wider than (a plain space is about 0.25).
_STRETCHED = 0.4


def _word_spaces(row: Row) -> list[float]:
    """The widths of the gaps between ``row``'s words."""
    text, boxes = row.chars, row.boxes
    if len(boxes) != len(text):
        return []
    spaces: list[float] = []
    end = -1  # the last character of the word before
    for i, char in enumerate(text):
        if char.isspace():
            continue
        if end >= 0 and i > end + 1:
            spaces.append(boxes[i][0] - boxes[end][2])
        end = i
    return spaces


def bold_runs_on(prev: Row, cur: Row) -> bool:
    """A sentence that turns bold inside a line goes on in bold in ``cur``: ``prev`` ends in
    bold (its last word) inside a sentence, running to the column's edge, and ``cur`` is bold
    (03 p9: "... generated text. **Overall, our research questions and** / **findings are
    ...**"). A bold heading is no such line: the line before it ends short, or a sentence
    ends with it."""
    if not cur.bold or prev.bold or short(prev) or ends_sentence(prev.text):
        return False
    if len(prev.styles) != len(prev.chars):
        return False
    end = len(prev.chars.rstrip())
    start = end
    while start > 0 and not prev.chars[start - 1].isspace():
        start -= 1
    word = [i for i in range(start, end) if prev.chars[i].isalnum()]
    return bool(word) and all(prev.styles[i] & 1 for i in word)


_COLON_LEAD_WORDS = 6  # words: a bold lead closed by a colon has at most this many


def colon_lead(row: Row) -> bool:
    """``row`` opens with a bold lead of a few words closed by a colon ("Gold Answer:",
    "TAPAS after row order perturbation:"), with text not in bold after it ("5:02": a
    heading "Case Study: Tables" is bold throughout). Lines that each open so are one unit
    each, like the items of a list."""
    text = row.chars
    start = len(text) - len(text.lstrip())
    colon = next((i for i, c in enumerate(text[start : start + 48], start) if c in ":："), -1)
    if colon <= start or not text[colon + 1 :].strip() or len(row.styles) != len(text):
        return False
    lead = text[start:colon]
    if len(lead.split()) > _COLON_LEAD_WORDS or not any(c.isalpha() for c in lead):
        return False
    if not all(row.styles[i] & 1 for i in range(start, colon + 1) if text[i].isalnum()):
        return False
    return any(not row.styles[i] & 1 for i in range(colon + 1, len(text)) if text[i].isalnum())
