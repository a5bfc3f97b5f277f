"""Whether the next row continues a paragraph: same column, size and weight, the usual line
distance, no new unit starting (list item, footnote, heading), and the last line not ending a
sentence short of the column's edge."""

from __future__ import annotations

import re

from translation.read import measures
from translation.read.blocks import roles
from translation.read.math.formulas import GLYPH, MATH, MATHS, NEUTRAL, TEXT
from translation.read.measures import ONE_SIZE, SIZE_STEP, line_step
from translation.read.numbering.contents import leader_start
from translation.read.numbering.grammar import COUNT
from translation.read.references.entries import REFS_HEADING_RE, is_entry
from translation.read.rows.row import Row
from translation.read.words.word import WORD_RE, ends_sentence

_REFS_RE = REFS_HEADING_RE

#: A quotation's closing mark and its credit: a dash and a short name ("” – P4", "" — Smith").
_CREDIT_RE = re.compile(r"[”\"’']\s*[–—-]\s*[\w.]{1,24}$")


#: Font sizes: a line starting this far left of the paragraph is back at its edge (past the
#: two full-width characters a Chinese or Japanese paragraph indents its first line by).
_BACK_TO_EDGE = 2.5
_OVERLAP = 0.5  # of the narrower: a line below overlaps the paragraph this much
_BELOW = 0.5  # font sizes: a line less far below is beside, not below
_LEAST_LEADING = 1.0  # font sizes: the least usual leading a line step is measured against
_PARAGRAPH_GAP = 0.5  # font sizes: a line step past the leading by more parts paragraphs
_JUMP = 3.0  # font sizes: a line starting this far from the one above is another block ...
_CENTRED = 6.0  # ... unless their centres lie within these points (a centred block)
_SPACE = 0.3  # font sizes: a word space, for whether the next line's first word fits
_ROOM_SLACK = 0.5  # points kept from the edge by a line's first word that fits
_ALIGNED = 0.5  # font sizes: lines starting this close line up
_NEXT_LINE = 2.0  # font sizes: the next line of a series stands at most this far below
_RAISED = 0.1  # font sizes: a footnote mark's glyph ends this far above the baseline
_FULL = 1.5  # font sizes: a line reaching this near both column edges is a full line


def continues(prev: Row, cur: Row, para: list[Row], leading: float, body_size: float = 0.0) -> bool:
    """Whether ``cur`` continues the paragraph whose last row is ``prev`` (``leading``: the
    document's usual baseline distance in font sizes; ``body_size``: the body text's size,
    which tells footnotes apart)."""
    if prev.cell or cur.cell or prev.col != cur.col or prev.mathy:
        return False
    if leader_start(prev.text) is not None:  # a contents entry ends at its page number
        return False
    if cur.mathy and not _closing_math_line(prev, cur):
        return False
    if display_row(prev) or (
        display_row(cur)
        and (ends_sentence(prev.text) or measures.indented(cur.x0, prev.x0, prev.size))
    ):
        return False
    if _REFS_RE.match(prev.text) or _REFS_RE.match(cur.text):
        return False
    left = min(r.x0 for r in para)
    right = max(r.x1 for r in para)
    if left - _BACK_TO_EDGE * prev.size <= cur.x0 < left:
        # Back to the column's edge below an indented first line (a paragraph's indent, a
        # footnote's mark hanging before it): a short last line there lies mostly left of
        # the line above, and is still that paragraph's ("dimen-" | "sions").
        left = cur.x0
    overlap = min(right, cur.x1) - max(left, cur.x0)
    if overlap < _OVERLAP * min(right - left, cur.x1 - cur.x0):
        return False
    size = prev.size
    if cur.baseline < prev.baseline + _BELOW * size:  # not below: another column, or back up
        return False
    if line_step(prev, cur) > (max(leading, _LEAST_LEADING) + _PARAGRAPH_GAP) * size:
        return False
    if abs(cur.size - prev.size) > SIZE_STEP:
        return False
    if (
        prev.bold != cur.bold
        and not roles.lead_runs_on(prev, cur, para)
        and not roles.stretched_lead(prev, cur, para)
        and not roles.bold_runs_on(prev, cur)
    ):
        return False
    if roles.new_unit(prev, cur, para, body_size):  # a list item, footnote, heading...
        return False
    jump = abs(cur.x0 - prev.x0) > _JUMP * size
    centered = abs((cur.x0 + cur.x1) - (prev.x0 + prev.x1)) < _CENTRED
    if jump and not centered:  # a different block that happens to sit below (authors, cells)
        return False
    col_left, col_right = prev.col_range
    col_right = max(right, col_right)
    # The last line of a paragraph ends well before the column's edge (ragged-right text
    # can end a line a few letters early, so "well" is a quarter of the column).
    short = prev.x1 < col_right - max(
        roles.SHORT_SIZES * size, roles.SHORT_SHARE * (col_right - col_left)
    )
    # A full line ending in a colon goes on ("... three modules:" / "encoding module, ...").
    unmarked = _unmarked(prev)
    ended = ends_sentence(unmarked) and (short or not unmarked.endswith((":", "：")))
    # A quotation's credit after its closing mark ("... was really helpful.” – P4") ends it.
    # (its name may stand alone on the last line: "... CiteSee]” –" | "P5")
    tail = " ".join([*(r.text for r in para[-2:-1]), unmarked]).rstrip()
    ended = ended or bool(_CREDIT_RE.search(tail))
    indented = measures.indented(cur.x0, prev.x0, size)
    # Back to the column's edge after a paragraph's indented first line is no new paragraph.
    first_line = len(para) == 1 and not roles.list_label(prev.chars)
    outdented = measures.outdented(cur.x0, prev.x0, size) and not first_line
    hanging = indented and len(para) == 1 and not short  # a reference entry's second line
    # Room left for the next line's first word: the line was ended on purpose ("(This is an
    # illustrative example only.)" | "The rating scale ...", 03 p20).
    # Measured against the paragraph's own edge once it has one (an abstract is set narrower
    # than its column).
    # Not in a bibliography entry (a few lines), whose style may break a line after each part
    # ("... 2020." | "In Proceedings ...").
    edge = right if len(para) > 1 else col_right
    # Lines set ragged-right (quotes one after another, 03 p7) have a measure at least as
    # wide as the next line reaches; a justified paragraph's lines end together.
    ends = [r.x1 for r in para[:-1]]
    if ends and max(ends) - min(ends) > size:
        edge = max(edge, cur.x1)
    room = prev.x1 + _SPACE * size + _first_word(cur) < edge - _ROOM_SLACK
    room = room and not (len(para) <= _ENTRY_ROWS and is_entry(" ".join(r.text for r in para)))
    # A dotted date or number broken after its year ("지난 2020." | "3.11. 코로나-19가 ...").
    room = room and not (_NUMBER_END_RE.search(prev.text) and cur.text[:1].isdigit())
    # Lines led by one word and a number ("Summary 1 ..." | "Summary 2 ...") are items.
    leads = _LED_RE.match(prev.text), _LED_RE.match(cur.text)
    same_lead = leads[0] is not None and leads[1] is not None and leads[0][1] == leads[1][1]
    spaced = _spaced(prev, cur, para)
    return not (
        ended and (short or room or same_lead or spaced or outdented or (indented and not hanging))
    )


_LEAD_WORD_RE = re.compile(r"^[a-z]{2,}\b")


def _closing_math_line(prev: Row, cur: Row) -> bool:
    """Whether ``cur``, a line of mostly math, is the last line of the sentence ``prev``
    leaves unfinished ("... hidden state dimension" | "within {128, 256, 512}."): it opens
    with a word in lower case at the paragraph's left edge and ends the sentence."""
    return (
        not ends_sentence(prev.text)
        and bool(_LEAD_WORD_RE.match(cur.text))
        and ends_sentence(cur.text)
        and abs(cur.x0 - prev.x0) < _ALIGNED * prev.size
    )


def opens_led_series(para: list[Row], nxt: Row) -> bool:
    """The last row of ``para`` is the first of a series of lines led by one word and a
    number, which ``nxt`` (the first row of the next paragraph) goes on: "... strawberries." |
    "Summary 1 (snippet shown) = ..." | "Summary 2 ..." (03 p20). That row is then a unit of
    its own, as the lines after it are, not the tail of the paragraph before it."""
    if len(para) < 2:
        return False
    last = para[-1]
    leads = _LED_RE.match(last.text), _LED_RE.match(nxt.text)
    if leads[0] is None or leads[1] is None or leads[0][1] != leads[1][1]:
        return False
    if int(leads[1][2]) != int(leads[0][2]) + 1 or roles.caption_start(nxt):
        return False
    size = last.size
    return (
        ends_sentence(_unmarked(para[-2]))
        and nxt.col == last.col
        and abs(nxt.x0 - last.x0) < _ALIGNED * size
        and abs(nxt.size - size) < ONE_SIZE
        and 0 < line_step(last, nxt) < _NEXT_LINE * size
    )


def _spaced(prev: Row, cur: Row, para: list[Row]) -> bool:
    """Whether ``cur`` stands clearly further below ``prev`` than the paragraph's lines stand
    apart (its usual white gap between one line's glyphs and the next's, plus a third of a
    font size): the space set between paragraphs, there where the next one starts at the
    column's edge and the last line runs nearly full (01 p13: a list item, then a paragraph).
    A paragraph of one line has no gap of its own to measure against."""
    gaps = sorted(b.bbox[1] - a.bbox[3] for a, b in zip(para, para[1:], strict=False))
    if not gaps:
        return False
    usual = gaps[len(gaps) // 2]
    return cur.bbox[1] - prev.bbox[3] > usual + _PARAGRAPH_SPACE * prev.size


#: Font sizes of white space past a paragraph's usual line gap that part two paragraphs.
_PARAGRAPH_SPACE = 0.33


def _first_word(row: Row) -> float:
    """The width of ``row``'s first word."""
    text = row.chars
    start = len(text) - len(text.lstrip())
    end = next((i for i in range(start, len(text)) if text[i].isspace()), len(text))
    if end <= start:
        return 0.0
    return row.boxes[end - 1][2] - row.boxes[start][0]


#: The most lines of a bibliography entry a line break inside is looked for in.
_ENTRY_ROWS = 4
_NUMBER_END_RE = re.compile(r"\d\.$")
_LED_RE = re.compile(rf"([A-Z][a-z]+) ({COUNT})\b")
_NOTE_MARKS = set("0123456789,*†‡§¶")


def _unmarked(row: Row) -> str:
    """``row``'s text without the footnote mark raised at its end ("ontologies.9" ends its
    sentence: 02 p7, 01 p13, where the next paragraph was read as the same one)."""
    end = len(row.chars.rstrip())
    at = end
    while (
        at > 0
        and row.classes[at - 1] in MATHS
        and row.chars[at - 1] in _NOTE_MARKS
        and row.boxes[at - 1][3] < row.baseline - _RAISED * row.size
    ):
        at -= 1
    return row.chars[:at].strip() if at < end else row.text


_LABEL_MATH = 6  # characters: a labelled equation's line holds at least this much math ...
_LABEL_WORDS = 3  # ... and at most this many words of text (its label: "token ids (W)")


def display_row(row: Row) -> bool:
    """A line of a display equation with a short text label ("token ids (W) = {...}"): at
    most three words, more math than letters, math to its end, and not a full column line (an
    inline formula's line runs from edge to edge)."""
    math = row.classes.count(MATH) + row.classes.count(GLYPH)
    if math < _LABEL_MATH:
        return False
    pairs = list(zip(row.chars, row.classes, strict=True))
    words = WORD_RE.findall("".join(c if k == TEXT else " " for c, k in pairs))
    if len(words) > _LABEL_WORDS or sum(len(w) for w in words) >= math:
        return False
    last = next((k for c, k in reversed(pairs) if k != NEUTRAL), TEXT)
    col0, col1 = row.col_range
    full = row.x0 <= col0 + _FULL * row.size and row.x1 >= col1 - _FULL * row.size
    return last in MATHS and not full
