"""Roles of rows and paragraphs: footnotes, numbered headings, captions, algorithm lines and
code, and the paragraph a label opens (list items: ``list_items``; bold leads: ``leads``;
the front matter: ``front_matter``; how a label looks: ``label_look``).

Pure rules on :class:`~translation.read.rows.row.Row` and plain text, called by
:mod:`translation.read.segment` to decide where a paragraph starts and what it is. A *label* (a list
item's "II.", a footnote's marker, an algorithm's "3:" or "Output:") is kept out of the text the
LLM gets and put back first by :func:`translation.read.math.formulas.restore`, so it can neither be
translated nor moved.
"""

from __future__ import annotations

import re

from translation.read.blocks.leads import colon_lead, run_in_start
from translation.read.blocks.line_ends import short
from translation.read.blocks.list_items import list_label, starts_item
from translation.read.math.formulas import GLYPH
from translation.read.measures import ONE_SIZE, SIZE_STEP, SMALL_PRINT, indented
from translation.read.numbering.captions import caption_label
from translation.read.numbering.grammar import (
    BULLET_SHAPES,
    BULLET_SYMBOLS,
    BULLETS,
    CIRCLED,
    CJK_SECTION,
    COUNT,
    DIGITS,
    LETTER,
    LETTER_ITEM,
    NUMBER,
    ROMAN,
    ROMAN_ITEM,
    SECTION,
    SUBSECTIONS,
)
from translation.read.paragraph import ParagraphKind
from translation.read.rows.row import Row
from translation.read.words.word import (
    DANGLING_WORDS,
    URL_TAIL_RE,
    cjk_weight,
    dangles,
    ends_sentence,
    has_wide,
)

# Items no heading is numbered with: bullets, "a." "(b)" "c)" "(iv)" "iv)".
_LETTER_ITEM_RE = re.compile(
    rf"^\s*(?:[{BULLETS}{BULLET_SHAPES}{BULLET_SYMBOLS}]|\(?{LETTER_ITEM}[.)]\s|\(?{ROMAN_ITEM}\)\s)"
)
# A number, then a word in lower case: "1. produce summaries ...", "2) perform ...".
_LOWER_ITEM_RE = re.compile(rf"^\s*\(?{NUMBER}[.)]\s+[a-z]")
# Footnote markers of a small-print row: "1)", "(1)", "①", "*", "†"; a bare "1 " too.
_FOOTNOTE_RE = re.compile(rf"^\s*(?:\(?{NUMBER}\)\s*|{CIRCLED}\s*|[*∗†‡§¶]{{1,3}}\s*|{NUMBER}\s+)")
_MARK_CHARS = set("0123456789*∗†‡§¶abcdefghij,")
# "3.1 Encoding module", "B.1 Fine-grained", "4 Entity Extraction"; "A Appendix".
_HEADING_NUMBER_RE = re.compile(
    rf"^\s*(?:(?:{SECTION}\.?|{LETTER}{SUBSECTIONS}\.?)\s+|{CJK_SECTION}\s*)\S"
)
_MULTI_LEVEL_RE = re.compile(rf"^\s*(?:{NUMBER}|{LETTER}){SUBSECTIONS}\.?\s+\S")
# A CJK section number ("第三节", "一、", "（二）"), like a multi-level one, numbers no list.
_CJK_SECTION_RE = re.compile(rf"^\s*{CJK_SECTION}\s*\S")
_ALGO_LINE_RE = re.compile(
    rf"^\s*(?:{COUNT}:\s+|(?:Input|Output|Require|Ensure|Parameters?|Returns?|Data|Result)"
    r"\s*:\s*)"
)
_ALGO_CAPTION_RE = re.compile(rf"^\s*Algorithm\s+{DIGITS}", re.IGNORECASE)
_KEYWORDS = frozenset(
    "for do end while if then else elif endif endfor endwhile return repeat until "
    "function procedure foreach in to each break continue begin".split()
)
_URL_START_RE = re.compile(r"https?://|www\.")


_MARK_CHARS_MOST = 4  # characters: a footnote's mark is at most this long ("†‡", "12")


def footnote_label(row: Row, body_size: float) -> str:
    """The footnote marker a row of small print starts with ("" if none): a superscript
    number or symbol, or "1)", "①", "*", "†". The marker comes with its trailing spaces."""
    if row.size > body_size - SMALL_PRINT or not row.text:
        return ""
    start = len(row.chars) - len(row.chars.lstrip())
    end = start
    while (
        end < len(row.chars)
        and row.classes[end] == GLYPH
        and row.chars[end] in _MARK_CHARS
        and end - start < _MARK_CHARS_MOST
    ):
        end += 1
    if end > start:  # a superscript marker ("⁴We also ..."), not a formula glued to words
        rest = row.chars[end:]
        while end < len(row.chars) and row.chars[end].isspace():
            end += 1
        return row.chars[:end] if rest.strip() and rest.lstrip()[0] not in "=+−-" else ""
    match = _FOOTNOTE_RE.match(row.chars)
    if not match or not row.chars[match.end() :].strip():
        return ""
    return match.group(0)


def _starts_footnote(prev: Row, cur: Row, first: Row, body_size: float) -> bool:
    """A footnote begins at its marker: a superscript one always; "(1)", "1)", "*" only
    after a finished sentence, after other print, or after another footnote (small print
    can enumerate "(1) ... (2) ..." inside a sentence); inside a footnote opened by a raised
    mark, a line that starts with a plain number goes on the note ("... for more than" |
    "10 seconds.")."""
    label = footnote_label(cur, body_size)
    if not label:
        return False
    if _raised(cur):
        return True
    # A plain number inside a note that a raised mark opened is the note's word; a symbol
    # ("†", "**") marks the next note of a series whatever it follows.
    number = label.strip().isdigit()
    return (
        ends_sentence(prev.text)
        or abs(prev.size - cur.size) > ONE_SIZE
        or (bool(footnote_label(first, body_size)) and not (number and _raised(first)))
    )


def _raised(row: Row) -> bool:
    """Whether ``row`` opens with a raised mark (a superscript)."""
    return row.classes.lstrip("n")[:1] == GLYPH


_HEADING_CJK_MOST = 90  # width (cjk_weight): a numbered heading's line is narrower
_HEADING_NUMBER_WORDS = 12  # words: a numbered heading's line has at most this many


def heading_number(row: Row) -> bool:
    """A numbered heading line: "3.1 Encoding module", "B.1 Fine-grained evaluations", or a
    single number with a bold or larger title; short, few words, no sentence end."""
    text = row.text
    if (
        not _HEADING_NUMBER_RE.match(text)
        or ends_sentence(text)
        or cjk_weight(text) > _HEADING_CJK_MOST
    ):
        return False
    if len(text.split()) > _HEADING_NUMBER_WORDS:
        return False
    distinct = _MULTI_LEVEL_RE.match(text) or _CJK_SECTION_RE.match(text)
    if row.bold:
        return True
    # A decimal in running text at a line's start is no section number: "0.91 at recall
    # 0.21. Precision increased" goes on a sentence; a title opens with no word in lower case.
    title = _MULTI_LEVEL_RE.match(text)
    first = text[title.end() - 1 :].split()[0] if title else ""
    if first.isalpha() and first.islower():
        return False
    return bool(distinct) and short(row)


def caption_start(row: Row) -> bool:
    """A row that begins a caption: "Figure 2. ...", "Table 1: ...", "表 1 ...", or a bold
    "Algorithm 1" (a sentence "Fig. 2 shows ..." is prose)."""
    return caption_label(row.chars, row.bold_lead)


def algorithm_label(text: str) -> str:
    """The label of an algorithm line ("3: ", "Output: "), or ""."""
    match = _ALGO_LINE_RE.match(text)
    return match.group(0) if match and text[match.end() :].strip() else ""


def is_algorithm_caption(text: str) -> bool:
    return bool(_ALGO_CAPTION_RE.match(text))


_KEYWORD_WORDS = 4  # words: a line of pseudo-code keywords alone has at most this many


def only_keywords(words: list[str]) -> bool:
    """Pseudo-code keywords and nothing else ("end for", "return"): not prose to translate."""
    return 0 < len(words) <= _KEYWORD_WORDS and all(w.lower() in _KEYWORDS for w in words)


def new_unit(prev: Row, cur: Row, para: list[Row], body_size: float) -> bool:
    """Whether ``cur`` must start a new paragraph after ``prev`` because of its role: a list
    item, a footnote, an algorithm line, a caption, a numbered or run-in heading, or the line
    after a numbered heading or an algorithm's caption."""
    if starts_item(prev, cur, para) or _starts_footnote(prev, cur, para[0], body_size):
        return True
    if algorithm_label(cur.text) or (is_algorithm_caption(prev.text) and caption_start(prev)):
        return True
    if algorithm_label(prev.text):  # a wrapped algorithm line goes on indented
        return not indented(cur.x0, prev.x0, prev.size)
    if caption_start(cur) and not _runs_into(prev):
        return True
    if run_in_start(prev, cur) or _code_edge(prev, cur, para[0]):
        return True
    if colon_lead(prev) and (colon_lead(cur) or list_label(cur.chars)):
        return True  # "Gold Answer: 5:02" / "TAPAS: 5:00" / "(b) TAPAS gives ..."
    if heading_number(cur) and (ends_sentence(prev.text) or short(prev) or prev.bold != cur.bold):
        return True
    return len(para) == 1 and heading_number(prev) and short(prev) and not _title_goes_on(prev, cur)


_UNDER_TITLE = 0.5  # font sizes: a heading's second line starts this near under its title


def _title_goes_on(heading: Row, cur: Row) -> bool:
    """Whether ``cur`` is the second line of the numbered heading ``heading``: it starts under
    the title, past the number ("3 DESIGNING AI SUPPORTS FOR" | "   EXPOSITORY WRITING"), or
    both are bold and the heading stops on a word no title ends with ("of", "for"); in the
    heading's size and weight, and short (a paragraph's first line runs to the column's edge)."""
    if abs(cur.size - heading.size) > ONE_SIZE or cur.bold != heading.bold or not short(cur):
        return False
    match = _HEADING_NUMBER_RE.match(heading.chars)
    if match and abs(cur.x0 - heading.boxes[match.end() - 1][0]) < _UNDER_TITLE * heading.size:
        return True
    words = heading.text.split()
    return heading.bold and bool(words) and words[-1].lower() in DANGLING_WORDS


def _runs_into(prev: Row) -> bool:
    """Whether the line before a caption's label runs to its column's edge and stops where no
    sentence ends: the label is the sentence's reference going on ("... as displayed in" |
    "Fig. 2."), no caption. A caption stands apart from the text above it, by its figure."""
    return not short(prev) and dangles(prev.text)


_CODE_MONO = 0.8  # a line with this share of monospaced characters is code ...
_PROSE_MONO = 0.5  # ... after one with less of them (prose) ...
_PROSE_AFTER_CODE = 0.2  # ... and a line with less than this share is prose after code


#: A footnote's mark right after a sentence's stop ("...ことができる。*10", "ontologies.9").
_MARK_AFTER_STOP_RE = re.compile(rf"(?<=[.。．!?！？])[*†‡]?{COUNT}$")


def _code_edge(prev: Row, cur: Row, first: Row) -> bool:
    """Where a block of code set in a monospaced font begins (after "... as follows:" or a
    finished sentence) or ends (``first``: the first row of the paragraph ``prev`` ends);
    identifiers filling a line inside a sentence are no block: a monospaced line that prose
    led into goes on in prose ("(e.g., " | "doc.sentences, doc.tokens)" | "(Figure 1). ...").
    A line that opens with a link is no code; one whose comment names a link is
    ("% example text from https://...")."""
    if cur.mono >= _CODE_MONO and prev.mono < _PROSE_MONO and not URL_TAIL_RE.search(prev.text):
        if _URL_START_RE.match(cur.text.lstrip("<([ ")):  # a link set in typewriter type
            return False
        # A lead-in may end on no stop in a script that puts no spaces between words, whose
        # identifiers never fill a wrapped line by themselves ("下記のコードを使えば" |
        # "% example text ..." | "\\kanbunfont").
        lead = _MARK_AFTER_STOP_RE.sub("", prev.text.rstrip())
        return lead.endswith((":", "：")) or ends_sentence(lead) or has_wide(lead[-1:])
    block = first.mono >= _CODE_MONO
    return (
        block
        and prev.mono >= _CODE_MONO
        and cur.mono < _PROSE_AFTER_CODE
        and not prev.text.endswith(",")
    )


def label_of(
    rows: list[Row], body_size: float, text_size: float | None = None
) -> tuple[ParagraphKind | None, str]:
    """The role a paragraph's label gives it, and the label ("" for none): an algorithm line,
    a footnote (small print: smaller than its page's ``text_size``, the body's size where
    None), or a list item (a heading's number is part of the heading, not a label)."""
    first = rows[0]
    label = algorithm_label(first.chars)
    if label:
        return ParagraphKind.ALGORITHM, label
    label = footnote_label(first, body_size if text_size is None else text_size)
    if label:
        return ParagraphKind.FOOTNOTE, label
    heading = len(rows) <= 2 and (first.bold or first.size >= body_size + SIZE_STEP)
    # Large but not bold, a bullet or a letter label makes an item of a list set in a larger
    # face than the paper's body (05's datasheet: "a. Case type"), not a heading.
    lettered = not first.bold and bool(_LETTER_ITEM_RE.match(first.chars))
    # So does a number before words no heading has: lower case, or a line ending in "," or
    # ";" (05 p33: "1. produce summaries for a legal case from the source documents,").
    numbered = not first.bold and bool(_LOWER_ITEM_RE.match(first.chars))
    run_on = rows[-1].text.rstrip().endswith((",", ";")) and bool(list_label(first.chars))
    if heading and not ends_sentence(rows[-1].text) and not (lettered or numbered or run_on):
        label = boxed_number(first)
        return (ParagraphKind.HEADING, label) if label else (None, "")
    label = list_label(first.chars)
    return (ParagraphKind.LIST_ITEM, label) if label else (None, "")


_NUMBER_APART = 0.6  # font sizes: a boxed heading number stands this far from its title


def boxed_number(row: Row) -> str:
    """A heading's number printed apart from its title in another colour (a white "2" on a
    blue box, the title beside it), with the spaces after it; "" for none. It is then the
    heading's label: printed as it is, in its colour, the title set where it was."""
    match = re.match(rf"\s*(?:{SECTION}|{ROMAN}|{LETTER})\.?\s+", row.chars)
    if not match or len(row.styles) != len(row.chars) or len(row.boxes) != len(row.chars):
        return ""
    number = match.group(0).rstrip()
    first, last, after = (
        len(match.group(0)) - len(match.group(0).lstrip()),
        len(number) - 1,
        match.end(),
    )
    if after >= len(row.chars) or row.styles[last] >> 2 == row.styles[after] >> 2:
        return ""
    if row.styles[first] != row.styles[last]:
        return ""
    gap = row.boxes[after][0] - row.boxes[last][2]
    return match.group(0) if gap > _NUMBER_APART * row.size else ""
