"""Roles of rows and paragraphs: list items, footnotes, numbered headings, captions, algorithm
lines, front matter (authors, affiliations) and code.

Pure rules on :class:`~translation.read.rows.row.Row` and plain text, called by
:mod:`translation.read.segment` to decide where a paragraph starts and what it is. A *label* (a list
item's "II.", a footnote's marker, an algorithm's "3:" or "Output:") is kept out of the text the
LLM gets and put back first by :func:`translation.read.math.formulas.restore`, so it can neither be
translated nor moved.
"""

from __future__ import annotations

import re

from translation.read.math.formulas import GLYPH, PLACEHOLDER_RE
from translation.read.numbering.captions import caption_label
from translation.read.paragraph import ParagraphKind
from translation.read.rows.row import Row
from translation.read.words.word import (
    DANGLING_WORDS,
    URL_TAIL_RE,
    cjk_weight,
    dangles,
    ends_sentence,
)

# A list item's label: bullets, "1.", "(a)", "iv)", "III.", "①", "[3]" (a reference entry).
_LIST_LABEL_RE = re.compile(
    r"^\s*(?:[•◦▪‣●○■□◆◇▶►✓✔–—*]\s*|[\u2460-\u2473\u3251-\u325f]\s*|"
    r"(?:\(?\d{1,2}[.)]|\(?[a-z][.)]|\([ivx]{1,5}\)|[ivx]{1,5}\)|[IVX]{1,5}\.|\[\d{1,3}\])\s+)"
)
# Items no heading is numbered with: bullets, "a." "(b)" "c)" "(iv)" "iv)".
_LETTER_ITEM_RE = re.compile(r"^\s*(?:[•◦▪‣●○■□◆◇▶►✓✔]|\(?[a-z][.)]\s|\(?[ivx]{1,5}\)\s)")
# A number, then a word in lower case: "1. produce summaries ...", "2) perform ...".
_LOWER_ITEM_RE = re.compile(r"^\s*\(?\d{1,2}[.)]\s+[a-z]")
# Labels that are plain numbering ("1." "(a)"): a new item only after a finished sentence, a
# colon, a semicolon, or another item (a line of prose can start with "(2)").
_NUMBERING_RE = re.compile(r"^\s*[(\[]?[\divxIVXa-z]")
# Footnote markers of a small-print row: "1)", "(1)", "①", "*", "†"; a bare "1 " too.
_FOOTNOTE_RE = re.compile(
    r"^\s*(?:\(?\d{1,2}\)\s*|[\u2460-\u2473\u3251-\u325f]\s*|[*∗†‡§¶]{1,3}\s*|\d{1,2}\s+)"
)
_MARK_CHARS = set("0123456789*∗†‡§¶abcdefghij,")
# "3.1 Encoding module", "B.1 Fine-grained", "4 Entity Extraction"; "A Appendix".
_HEADING_NUMBER_RE = re.compile(
    r"^\s*(?:\d{1,2}(?:\.\d{1,2}){0,3}\.?|[A-Z](?:\.\d{1,2}){1,3}\.?)\s+\S"
)
_MULTI_LEVEL_RE = re.compile(r"^\s*(?:\d{1,2}|[A-Z])(?:\.\d{1,2}){1,3}\.?\s+\S")
_ALGO_LINE_RE = re.compile(
    r"^\s*(?:\d{1,3}:\s+|(?:Input|Output|Require|Ensure|Parameters?|Returns?|Data|Result)"
    r"\s*:\s*)"
)
_ALGO_CAPTION_RE = re.compile(r"^\s*Algorithm\s+\d+", re.IGNORECASE)
_KEYWORDS = frozenset(
    "for do end while if then else elif endif endfor endwhile return repeat until "
    "function procedure foreach in to each break continue".split()
)
_FRONT_END_RE = re.compile(
    r"^\s*(?:abstract|introduction|keywords?|index terms|"
    r"摘\s*要|关键词|關鍵詞|초\s*록|요\s*약|국문\s*요약)",
    re.IGNORECASE,
)
_FIRST_SECTION_RE = re.compile(r"^\s*(?:1|I)\.?\s+\S")
# An affiliation's mark before it: any symbol but a bracket or an opening quote (a name line
# may go on after an icon: "), Ruochen Zhang²").
_AFFILIATION_MARK_RE = re.compile(r"^\s*[^\w\s()\[\]{}\"'“‘«.,;:-]")
_URL_START_RE = re.compile(r"https?://|www\.")
_EMAIL_RE = re.compile(r"@[\w-]+\.[\w.-]+|^\s*(?:https?://|www\.)")
# Between names: marks of any kind (†, ♠, ⋄, digits), commas, "and".
_NAME_SPLIT_RE = re.compile(r"[^\w\s.'’-]+|[\d,;]+|\s{2,}|\s+and\s+")
# A line's first word with an affiliation mark (a digit or a symbol, not a comma) right after it.
_SURNAME_MARK_RE = re.compile(r"^\W*[A-Z][a-zà-ÿ'’-]+(?:\d|[^\w\s,;.'’-])")
_MARKED_RE = re.compile(r"[^\w\s.'’-]|\d")
# A name's word: capitalised (its accents may be TeX's spacing ones, "Andr´e"), or an initial.
_NAME_TOKEN_RE = re.compile(
    r"^(?:[A-Z][a-zà-ÿ'’´¨˘ˆ˜`-]+(?:-[A-Z][a-zà-ÿ'’´¨˘ˆ˜`]+)?|[A-Z]\.(?:-?[A-Z]\.)?)$"
)
# A name set in capitals (ACM's small caps: "MARTI A. HEARST").
_CAPS_NAME_TOKEN_RE = re.compile(r"^(?:[A-Z][A-Z'’-]+|[A-Z]\.)$")
_PARTICLES = frozenset("van von de der da di du la le del dos bin al".split())
_INSTITUTION_RE = re.compile(
    r"Universit|Institut|Department|School|College|Laborator|Lab\b|Research|Center|Centre|"
    r"Inc\b|Corp|Company|Faculty|Academy|Hospital|Foundation|Group",
)


def _short(row: Row) -> bool:
    """The line ends well before its column's right edge (a last line, a heading)."""
    col0, col1 = row.col_range
    col1 = max(col1, row.x1)
    return row.x1 < col1 - max(2.0 * row.size, 0.25 * (col1 - col0))


def list_label(text: str) -> str:
    """The list label a line starts with, with its trailing spaces ("" if none)."""
    match = _LIST_LABEL_RE.match(text)
    if not match or len(match.group(0).strip()) == len(text.strip()):
        return ""
    if match.group(0).lstrip()[:1] == "[" and text[match.end()].islower():
        return ""  # a citation opening a line of prose ("[18] experiment with ...")
    return match.group(0)


def starts_item(prev: Row, cur: Row, para: list[Row]) -> bool:
    """Whether ``cur`` begins a new list item after ``prev`` (``para``: the rows of the
    paragraph ``prev`` ends). Bullets always do; numbering and "[12]" after the end of a
    sentence, a colon or a semicolon, or after another item; never a marker whose predecessor
    stands inside a line of the paragraph (an enumeration run into the text: "...: i) improving
    ..." then "ii) aggregating ..." opening a line, 02 p7)."""
    label = list_label(cur.chars)
    if not label:
        return False
    if not _NUMBERING_RE.match(label):
        return True
    if _run_in_enumeration(label, para):
        return False
    first = para[0]
    if prev.text.rstrip().endswith((":", ";", "：", "；")) or ends_sentence(prev.text):
        return True
    if prev.text.endswith(("—", "–")) and _short(prev):
        return True  # "... the following workflow —" ended on purpose, then "1. Spend ..."
    # A reference entry "[12] ..." after the short last line of the one before it; not a
    # citation "[18]" that happens to open a line of prose.
    return bool(list_label(first.chars)) or (label.lstrip()[:1] == "[" and _short(prev))


# An enumeration's marker closed by a bracket: "ii)", "(b)", "3)".
_BRACKET_MARK_RE = re.compile(r"^(\(?)([ivx]{1,5}|[a-z]|\d{1,2})\)$")
_ROMANS = "i ii iii iv v vi vii viii ix x xi xii".split()


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


def footnote_label(row: Row, body_size: float) -> str:
    """The footnote marker a row of small print starts with ("" if none): a superscript
    number or symbol, or "1)", "①", "*", "†". The marker comes with its trailing spaces."""
    if row.size > body_size - 0.5 or not row.text:
        return ""
    start = len(row.chars) - len(row.chars.lstrip())
    end = start
    while (
        end < len(row.chars)
        and row.classes[end] == GLYPH
        and row.chars[end] in _MARK_CHARS
        and end - start < 4
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
    can enumerate "(1) ... (2) ..." inside a sentence)."""
    label = footnote_label(cur, body_size)
    if not label:
        return False
    if cur.classes.lstrip("n")[:1] == GLYPH:
        return True
    return (
        ends_sentence(prev.text)
        or abs(prev.size - cur.size) > 0.5
        or bool(footnote_label(first, body_size))
    )


def heading_number(row: Row) -> bool:
    """A numbered heading line: "3.1 Encoding module", "B.1 Fine-grained evaluations", or a
    single number with a bold or larger title; short, few words, no sentence end."""
    text = row.text
    if not _HEADING_NUMBER_RE.match(text) or ends_sentence(text) or cjk_weight(text) > 90:
        return False
    if len(text.split()) > 12:
        return False
    return (bool(_MULTI_LEVEL_RE.match(text)) and _short(row)) or row.bold


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


def only_keywords(words: list[str]) -> bool:
    """Pseudo-code keywords and nothing else ("end for", "return"): not prose to translate."""
    return 0 < len(words) <= 4 and all(w.lower() in _KEYWORDS for w in words)


def run_in_start(prev: Row, cur: Row) -> bool:
    """``cur`` opens with a bold run-in heading ("Results. We run ...") after a finished
    sentence: a new paragraph."""
    if cur.bold or cur.bold_lead < 3 or not ends_sentence(prev.text):
        return False
    lead = cur.text[: cur.bold_lead].rstrip()
    return lead.endswith((".", ":", "：", "。")) or bool(list_label(lead + " "))


def lead_runs_on(prev: Row, cur: Row, para: list[Row]) -> bool:
    """A bold run-in lead set over several lines goes on in ``cur``: the paragraph so far is
    bold, its last line runs to the column's edge inside a sentence, and ``cur`` opens in bold
    and goes on in another weight ("Highlighted hints have no effect in eval-" / "uating
    summaries: Surprisingly, ..."). A bold heading is no such lead: its line ends short, or a
    sentence ends with it."""
    if cur.bold or not all(r.bold for r in para) or _short(prev) or ends_sentence(prev.text):
        return False
    lead = cur.chars[: cur.bold_lead]
    return sum(c.isalpha() for c in lead) >= 2 and len(lead.strip()) < len(cur.text)


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
    if prev.x1 < col1 - 0.5 * prev.size:
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
    if not cur.bold or prev.bold or _short(prev) or ends_sentence(prev.text):
        return False
    if len(prev.styles) != len(prev.chars):
        return False
    end = len(prev.chars.rstrip())
    start = end
    while start > 0 and not prev.chars[start - 1].isspace():
        start -= 1
    word = [i for i in range(start, end) if prev.chars[i].isalnum()]
    return bool(word) and all(prev.styles[i] & 1 for i in word)


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
    if len(lead.split()) > 6 or not any(c.isalpha() for c in lead):
        return False
    if not all(row.styles[i] & 1 for i in range(start, colon + 1) if text[i].isalnum()):
        return False
    return any(not row.styles[i] & 1 for i in range(colon + 1, len(text)) if text[i].isalnum())


def new_unit(prev: Row, cur: Row, para: list[Row], body_size: float) -> bool:
    """Whether ``cur`` must start a new paragraph after ``prev`` because of its role: a list
    item, a footnote, an algorithm line, a caption, a numbered or run-in heading, or the line
    after a numbered heading or an algorithm's caption."""
    if starts_item(prev, cur, para) or _starts_footnote(prev, cur, para[0], body_size):
        return True
    if algorithm_label(cur.text) or (is_algorithm_caption(prev.text) and caption_start(prev)):
        return True
    if algorithm_label(prev.text):  # a wrapped algorithm line goes on indented
        return cur.x0 <= prev.x0 + 0.8 * prev.size
    if caption_start(cur) and not _runs_into(prev):
        return True
    if run_in_start(prev, cur) or _code_edge(prev, cur, para[0]):
        return True
    if colon_lead(prev) and (colon_lead(cur) or list_label(cur.chars)):
        return True  # "Gold Answer: 5:02" / "TAPAS: 5:00" / "(b) TAPAS gives ..."
    if heading_number(cur) and (ends_sentence(prev.text) or _short(prev) or prev.bold != cur.bold):
        return True
    return (
        len(para) == 1 and heading_number(prev) and _short(prev) and not _title_goes_on(prev, cur)
    )


def _title_goes_on(heading: Row, cur: Row) -> bool:
    """Whether ``cur`` is the second line of the numbered heading ``heading``: it starts under
    the title, past the number ("3 DESIGNING AI SUPPORTS FOR" | "   EXPOSITORY WRITING"), or
    both are bold and the heading stops on a word no title ends with ("of", "for"); in the
    heading's size and weight, and short (a paragraph's first line runs to the column's edge)."""
    if abs(cur.size - heading.size) > 0.5 or cur.bold != heading.bold or not _short(cur):
        return False
    match = _HEADING_NUMBER_RE.match(heading.chars)
    if match and abs(cur.x0 - heading.boxes[match.end() - 1][0]) < 0.5 * heading.size:
        return True
    words = heading.text.split()
    return heading.bold and bool(words) and words[-1].lower() in DANGLING_WORDS


def _runs_into(prev: Row) -> bool:
    """Whether the line before a caption's label runs to its column's edge and stops where no
    sentence ends: the label is the sentence's reference going on ("... as displayed in" |
    "Fig. 2."), no caption. A caption stands apart from the text above it, by its figure."""
    return not _short(prev) and dangles(prev.text)


def _code_edge(prev: Row, cur: Row, first: Row) -> bool:
    """Where a block of code set in a monospaced font begins (after "... as follows:" or a
    finished sentence) or ends (``first``: the first row of the paragraph ``prev`` ends);
    identifiers filling a line inside a sentence are no block: a monospaced line that prose
    led into goes on in prose ("(e.g., " | "doc.sentences, doc.tokens)" | "(Figure 1). ...")."""
    if cur.mono >= 0.8 and prev.mono < 0.5 and not URL_TAIL_RE.search(prev.text):
        if _URL_START_RE.search(cur.text):  # links set in typewriter type, not code
            return False
        return prev.text.endswith((":", "：")) or ends_sentence(prev.text)
    block = first.mono >= 0.8
    return block and prev.mono >= 0.8 and cur.mono < 0.2 and not prev.text.endswith(",")


def label_of(rows: list[Row], body_size: float) -> tuple[ParagraphKind | None, str]:
    """The role a paragraph's label gives it, and the label ("" for none): an algorithm line,
    a footnote, or a list item (a heading's number is part of the heading, not a label)."""
    first = rows[0]
    label = algorithm_label(first.chars)
    if label:
        return ParagraphKind.ALGORITHM, label
    label = footnote_label(first, body_size)
    if label:
        return ParagraphKind.FOOTNOTE, label
    heading = len(rows) <= 2 and (first.bold or first.size >= body_size + 0.8)
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


def boxed_number(row: Row) -> str:
    """A heading's number printed apart from its title in another colour (a white "2" on a
    blue box, the title beside it), with the spaces after it; "" for none. It is then the
    heading's label: printed as it is, in its colour, the title set where it was."""
    match = re.match(r"\s*(?:\d{1,2}(?:\.\d{1,2}){0,3}|[IVX]{1,5}|[A-Z])\.?\s+", row.chars)
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
    return match.group(0) if gap > 0.6 * row.size else ""


# --- front matter ---------------------------------------------------------------------------


def front_matter_end(rows: list[Row]) -> Row | None:
    """The row that ends the first page's front matter (title, authors, affiliations,
    e-mails), read in reading order: the first "Abstract" or "1 Introduction"; None if none."""
    return next(
        (
            r
            for r in rows
            if not r.drop
            and (
                (_FRONT_END_RE.match(r.text) and (len(r.text) < 60 or r.text[:8].isalpha()))
                or (_FIRST_SECTION_RE.match(r.text) and r.bold and len(r.text) < 40)
            )
        ),
        None,
    )


def front_break(prev: Row, cur: Row, body_size: float) -> bool:
    """In the front matter every affiliation, address and e-mail line is its own unit."""
    if _AFFILIATION_MARK_RE.match(cur.chars) or (cur.classes.lstrip("n")[:1] == GLYPH):
        return True
    if _EMAIL_RE.search(cur.text) or _EMAIL_RE.search(prev.text):
        return True
    col0, col1 = prev.col_range
    return prev.size <= body_size + 1.0 and prev.x1 < col1 - 0.15 * (col1 - col0)


def looks_like_names(text: str, alone: bool = False) -> bool:
    """A line of author names ("Arman Cohan†∗ Sergey Feldman† Iz Beltagy†"): two or more
    groups of two to four capitalised words or initials, split by marks, commas or "and",
    and no institution words; one such group with no mark only when it stands ``alone`` (a
    cell of an author grid: "Joseph Chee Chang" over its affiliation). Names are printed as
    they are, not translated."""
    if _INSTITUTION_RE.search(text) or "@" in text or _AFFILIATION_MARK_RE.match(text):
        return False  # an affiliation's mark comes before it, a name's after it
    groups = [g.split() for g in _NAME_SPLIT_RE.split(text) if g.strip()]
    if not groups:
        return False
    # In a long list of names one in five may be a single word (a surname taken into its
    # marks' placeholder: "Kyle {v1}" for "Kyle Loα∗").
    spare = len(groups) // 5
    for k, group in enumerate(groups):
        names = [t for t in group if t.lower() not in _PARTICLES]
        # A line that goes on with the last name of the line above ("Lee⁴, Jacob Carlson⁵,
        # and Weining Li⁵"): one name, marked, before two whole ones.
        fewest = 1 if k == 0 and len(groups) >= 3 and _SURNAME_MARK_RE.match(text) else 2
        if len(names) == 1 and fewest == 2 and spare and _NAME_TOKEN_RE.match(names[0]):
            spare -= 1
            continue
        if not fewest <= len(names) <= 4 or not all(_NAME_TOKEN_RE.match(t) for t in names):
            return False
    if text.rstrip().endswith(":"):
        return False  # a title's first line ("Beyond Summarization:"), never a name list
    return len(groups) >= 2 or alone or bool(_MARKED_RE.search(text))


def name_with_affiliation(text: str) -> bool:
    """A front-matter line of one author's name and affiliation ("MARTI A. HEARST, University
    of California, Berkeley, USA"): two to four name words before the first comma, an
    institution after it. Printed as it is: a model would spell the name out."""
    name, comma, rest = text.partition(",")
    words = name.split()
    return (
        bool(comma)
        and 2 <= len(words) <= 4
        and all(_NAME_TOKEN_RE.match(w) or _CAPS_NAME_TOKEN_RE.match(w) for w in words)
        and bool(_INSTITUTION_RE.search(rest))
    )


def author_names(lines: list[str], text: str, cell: bool) -> bool:
    """Whether a front-matter paragraph (its rows' ``lines``; ``text``, its text with raised
    marks made placeholders; ``cell``: a table cell) is author names, printed as they are: a
    line of names (see ``looks_like_names``), also where its marks became placeholders
    ("Kyle Lo{v1}"), one author's name with an affiliation, or a cell of an author grid of
    names alone ("Kyle Lo" over "Doug Downey")."""
    return (
        looks_like_names(" ".join(lines))
        or looks_like_names(PLACEHOLDER_RE.sub("†", text))
        or name_with_affiliation(text)
        or (cell and all(looks_like_names(line, alone=True) for line in lines))
    )


#: A short label before a colon ("Correspondence to:", "Contact:").
_LABEL_COLON_RE = re.compile(r"^[^:{}]{3,40}:\s+(?P<rest>.+?)\.?$")
#: ACM's block of the authors' postal and e-mail addresses ("Authors' addresses: Tal August,
#: ..., University of Washington, Seattle, ...; Lucy Lu Wang, ...").
_ADDRESSES_RE = re.compile(r"^Authors?[’']?s?[’']?\s+(?:e-?mail\s+)?address(?:es)?\s*:", re.I)


def labelled_names(text: str) -> bool:
    """A label and the names it introduces ("Correspondence to: Jishnu Ray Chowdhury, Yong
    Zhuang, Shuyi Wang."), or the authors' addresses, anywhere in a paper: printed as they
    are, as author names are."""
    if _ADDRESSES_RE.match(text):
        return True
    match = _LABEL_COLON_RE.match(text)
    return match is not None and looks_like_names(match.group("rest"))


# --- rows the page-edge filters must not drop -----------------------------------------------


def rescue_edge_rows(rows_by_page: dict[int, list[Row]], body_size: float) -> None:
    """Give back to the text what the header/footer filters took from it: footnotes whose last
    lines run into the bottom band (a footnote starts with its marker and is not repeated page
    after page), and the top line of a page that finishes the previous page's sentence."""
    pages = sorted(rows_by_page)
    for index in pages:
        rows = rows_by_page[index]
        _rescue_footnotes(rows, body_size)
        previous = rows_by_page.get(index - 1)
        if previous:
            _rescue_continuation(rows, previous, body_size)


def _rescue_footnotes(rows: list[Row], body_size: float) -> None:
    if not rows:
        return
    middle = (min(r.baseline for r in rows) + max(r.baseline for r in rows)) / 2
    chains: list[list[Row]] = []
    for row in sorted(rows, key=lambda r: r.baseline):
        if row.drop not in ("", "header/footer"):
            continue
        if row.baseline > middle and footnote_label(row, body_size):
            chains.append([row])
            continue
        chain = next((c for c in reversed(chains) if _below(c[-1], row)), None)
        if chain is not None:
            chain.append(row)
    for chain in chains:
        for member in chain:
            if member.drop == "header/footer":
                member.drop = ""


def _below(upper: Row, lower: Row) -> bool:
    return (
        abs(upper.size - lower.size) < 0.6
        and 0.5 * upper.size < lower.baseline - upper.baseline < 1.9 * upper.size
        and min(upper.x1, lower.x1) > max(upper.x0, lower.x0)
    )


def _rescue_continuation(rows: list[Row], previous: list[Row], body_size: float) -> None:
    live = [r for r in previous if not r.drop and abs(r.size - body_size) < 0.6]
    if not live:
        return
    # The page's last line of body text: the lowest of its rightmost column.
    right = max(r.x0 for r in live)
    last_col = [r for r in live if r.x1 > right]
    last = max(last_col or live, key=lambda r: r.baseline)
    for row in rows:
        if (
            row.drop == "header"
            and abs(row.size - last.size) < 0.6
            and not ends_sentence(last.text)
        ):
            row.drop = ""


# --- how a label looks ----------------------------------------------------------------------


def label_look(rows: list[Row], label: str) -> tuple[int | None, float, float, float]:
    """How the ``label`` that ``rows`` start with is printed: its style code (None when it
    has no style of its own), its size and the rise of its baseline as shares of the row's
    size (a superscript footnote marker: about 0.7 and 0.35), and the hanging indent in points
    (continuation lines start under the text after the label, not under the label; 0 for
    none)."""
    first = rows[0]
    mark = label.strip()
    start = len(first.chars) - len(first.chars.lstrip())
    if not mark or not first.chars[start:].startswith(mark) or len(first.boxes) < start + 1:
        return None, 1.0, 0.0, 0.0
    end = start + len(mark)
    boxes = first.boxes[start:end]
    styles = first.styles[start:end] if len(first.styles) == len(first.chars) else []
    style = styles[0] if styles and all(s == styles[0] for s in styles) else None
    # A character box spans 0.8 x size above its span's baseline to 0.25 x size below it.
    sizes = [(b[3] - b[1]) / 1.05 for b in boxes]
    size = max(sizes) if sizes else first.size
    base = max(b[3] for b in boxes) - 0.25 * size if boxes else first.baseline
    scale, rise = 1.0, 0.0
    if first.size and size < 0.85 * first.size and first.baseline - base > 0.12 * first.size:
        scale = round(size / first.size, 2)
        rise = round((first.baseline - base) / first.size, 2)
    hang = 0.0
    text_at = end + len(first.chars[end:]) - len(first.chars[end:].lstrip())
    if text_at < len(first.boxes):
        under = first.boxes[text_at][0]  # where the text after the label starts
        later = min((r.x0 for r in rows[1:]), default=under)
        wide = under - first.boxes[end - 1][2] > 0.6 * first.size  # a tab after the label
        if len(rows) == 1 and wide:
            hang = round(under - first.x0, 2)
        elif later > first.x0 + 0.5 * first.size and abs(later - under) < 0.6 * first.size:
            hang = round(later - first.x0, 2)
    return style, scale, rise, hang
