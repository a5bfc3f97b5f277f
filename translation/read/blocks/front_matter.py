"""The first page's front matter: where it ends ("Abstract", "1 Introduction"), that each
affiliation, address and e-mail line is its own unit, and which lines are author names
(printed as they are, never translated), there or after a label ("Correspondence to:")."""

from __future__ import annotations

import re
import statistics

from translation.read.math.formulas import GLYPH, PLACEHOLDER_RE
from translation.read.numbering.grammar import FIRST_NUMBER
from translation.read.rows.row import Row

_FRONT_END_RE = re.compile(
    r"^\s*(?:abstract|introduction|keywords?|index terms|"
    r"摘\s*要|关键词|關鍵詞|초\s*록|요\s*약|국문\s*요약)",
    re.IGNORECASE,
)
_FIRST_SECTION_RE = re.compile(rf"^\s*{FIRST_NUMBER}\.?\s+\S")
# An affiliation's mark before it: any symbol but a bracket or an opening quote (a name line
# may go on after an icon: "), Ruochen Zhang²").
_AFFILIATION_MARK_RE = re.compile(r"^\s*[^\w\s()\[\]{}\"'“‘«.,;:-]")
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


def affiliation_mark(text: str) -> bool:
    """Whether ``text`` opens with an affiliation's mark: a symbol (``_AFFILIATION_MARK_RE``)
    or a digit that is no decimal one, raised or circled ("¹", "①", "❸"), which is a mark and
    never a word's first letter."""
    head = text.lstrip()[:1]
    return bool(_AFFILIATION_MARK_RE.match(text)) or (head.isdigit() and not head.isdecimal())


# --- front matter ---------------------------------------------------------------------------

_FRONT_END_CHARS = 60  # characters: an "Abstract" line is shorter (or opens a run of letters)
_FIRST_SECTION_CHARS = 40  # characters: a bold "1 Introduction" line is shorter


def front_matter_end(rows: list[Row]) -> Row | None:
    """The row that ends the first page's front matter (title, authors, affiliations,
    e-mails), read in reading order: the first "Abstract" or "1 Introduction"; None if none."""
    return next(
        (
            r
            for r in rows
            if not r.drop
            and (
                (
                    _FRONT_END_RE.match(r.text)
                    and (len(r.text) < _FRONT_END_CHARS or r.text[:8].isalpha())
                )
                or (
                    _FIRST_SECTION_RE.match(r.text)
                    and r.bold
                    and len(r.text) < _FIRST_SECTION_CHARS
                )
            )
        ),
        None,
    )


#: A title page (a thesis's, a report's cover) holds a few lines (a title, a name) ...
_TITLE_PAGE_FEWEST = 3
_TITLE_PAGE_ROWS = 24
#: ... most of them (this share) centred on one axis (a line's middle this share of the
#: column's width off the lines' median middle at most: a thesis's pages are set off the
#: paper's middle, for the binding; a line set flush right, "Program Authorized to Offer
#: Degree: ...", is not centred) ...
_CENTRED_SHARE = 0.75
_CENTRED = 0.04
#: ... none of them a line of running text (from the column's left edge, this share of
#: the column wide) ...
_RUNNING_WIDTH = 0.85
_LEFT_EDGE = 0.02
#: Of the body's size: the centred lines' left edges spread over more than this.
_LEFTS_SPREAD = 4.0
#: ... counting the lines set at the body's size or larger (of the body's size: a footnote's
#: lines, smaller, do not count).
_NOTE_SIZE = 0.9


def note_sized(row: Row, body_size: float) -> bool:
    """Whether ``row`` is set as small as a note's lines (a title page's footnote)."""
    return row.size < _NOTE_SIZE * body_size


def title_page(rows: list[Row], body_size: float) -> bool:
    """Whether ``rows`` (a first page's, in reading order) are a title page: a few lines of
    the body's size or larger, most of them centred in their column and none running its
    width (a thesis's title, author, degree, university, year). Such a page is front matter
    from top to bottom, with no "Abstract" to end it: its lines are a title and author
    lines, never sentences of the body."""
    lines = [r for r in rows if not r.drop and not r.region and not note_sized(r, body_size)]
    if not _TITLE_PAGE_FEWEST <= len(lines) <= _TITLE_PAGE_ROWS:
        return False
    axis = statistics.median((r.x0 + r.x1) / 2 for r in lines)
    centred = []
    for row in lines:
        col0, col1 = row.col_range
        width = col1 - col0
        if width <= 0:
            return False
        if row.x0 < col0 + _LEFT_EDGE * width and row.x1 - row.x0 > _RUNNING_WIDTH * width:
            return False
        if abs((row.x0 + row.x1) / 2 - axis) <= _CENTRED * width:
            centred.append(row)
    if len(centred) < _CENTRED_SHARE * len(lines):
        return False
    # Lines set flush left, of about one width, have their middles close too: centred ones
    # are told by their left edges, which spread as their widths do.
    lefts = [r.x0 for r in centred]
    return max(lefts) - min(lefts) > _LEFTS_SPREAD * body_size


_FRONT_LARGER = 1.0  # points: a short front-matter line at most this larger than the body ...
_SHORT = 0.15  # ... ending this share of its column before the edge is one unit of its own
#: Points: a light (not bold) front-matter line larger than the body by less is an author's
#: line (an affiliation, an address: ``kind_rules._front_line``), by more a title's.
LIGHT_LARGER = 2.5


def front_break(prev: Row, cur: Row, body_size: float) -> bool:
    """In the front matter every affiliation, address and e-mail line is its own unit: a
    short line (ending well before its column's edge) breaks from the next when it is set
    about the body's size, or light and larger by less than a title is (a centred address
    set large, "Institut für Statistik" | "Ludwig-Maximilians-Universität München")."""
    if affiliation_mark(cur.chars) or (cur.classes.lstrip("n")[:1] == GLYPH):
        return True
    if _EMAIL_RE.search(cur.text) or _EMAIL_RE.search(prev.text):
        return True
    col0, col1 = prev.col_range
    sized = prev.size <= body_size + _FRONT_LARGER or (
        not prev.bold and prev.size < body_size + LIGHT_LARGER
    )
    return sized and prev.x1 < col1 - _SHORT * (col1 - col0)


_LONG_NAME_LIST = 3  # groups: a line of this many names or more may start with a surname
_NAME_WORDS_MOST = 4  # words: one author's name has at most this many (particles aside)


#: In a long list of names one in this many may be a single word.
_ONE_WORD_IN = 5


def looks_like_names(text: str, alone: bool = False) -> bool:
    """A line of author names ("Arman Cohan†∗ Sergey Feldman† Iz Beltagy†"): two or more
    groups of two to four capitalised words or initials, split by marks, commas or "and",
    and no institution words; one such group with no mark only when it stands ``alone`` (a
    cell of an author grid: "Joseph Chee Chang" over its affiliation). Names are printed as
    they are, not translated."""
    if _INSTITUTION_RE.search(text) or "@" in text or affiliation_mark(text):
        return False  # an affiliation's mark comes before it, a name's after it
    groups = [g.split() for g in _NAME_SPLIT_RE.split(text) if g.strip()]
    if not groups:
        return False
    # In a long list of names one in five may be a single word (a surname taken into its
    # marks' placeholder: "Kyle {v1}" for "Kyle Loα∗").
    spare = len(groups) // _ONE_WORD_IN
    for k, group in enumerate(groups):
        names = [t for t in group if t.lower() not in _PARTICLES]
        # A line that goes on with the last name of the line above ("Lee⁴, Jacob Carlson⁵,
        # and Weining Li⁵"): one name, marked, before two whole ones.
        fewest = (
            1 if k == 0 and len(groups) >= _LONG_NAME_LIST and _SURNAME_MARK_RE.match(text) else 2
        )
        if len(names) == 1 and fewest == 2 and spare and _NAME_TOKEN_RE.match(names[0]):
            spare -= 1
            continue
        if not fewest <= len(names) <= _NAME_WORDS_MOST or not all(
            _NAME_TOKEN_RE.match(t) for t in names
        ):
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
        and 2 <= len(words) <= _NAME_WORDS_MOST
        and all(_NAME_TOKEN_RE.match(w) or _CAPS_NAME_TOKEN_RE.match(w) for w in words)
        and bool(_INSTITUTION_RE.search(rest))
    )


_WORD_SHARE = 0.5  # of a line's capitalised words: this many printed in lower case elsewhere
_CAPITALISED_RE = re.compile(r"\b[A-Z][a-zà-ÿ]+\b")


def common_words(text: str, lowered: frozenset[str]) -> bool:
    """Whether most capitalised words of ``text`` are words the document prints in lower case
    (``Vocabulary.lowered``): a title or keywords in title case ("Keywords: Answer Validation,
    Recognizing Textual Entailment"), not people's names, which prose never lowers."""
    words = _CAPITALISED_RE.findall(text)
    return bool(words) and sum(w.lower() in lowered for w in words) >= _WORD_SHARE * len(words)


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


#: Marks an author's name carries to its note ("김 창 호*", "Ann Lee†").
_AUTHOR_MARKS = "*∗†‡§¶"
_AUTHOR_MARK_RE = re.compile(rf"(?<=[^\W\d_])([{_AUTHOR_MARKS}]{{1,3}})\s*$")
#: Words a name's line has at most ("김 창 호", "Ann Lee", "Maria de la Cruz").
_NAME_WORDS = 5


def author_note_marks(texts: list[str]) -> set[str]:
    """The marks the front matter's author lines ``texts`` end with, right after a name's
    last letter ("김 창 호*" -> "*"): the notes that bear one of them are the authors' (an
    affiliation, a contact). A line of more than :data:`_NAME_WORDS` words, or holding a
    formula, a link or a digit, is no name ("... mailing list for discussion{v2}†")."""
    found = set()
    for text in texts:
        match = _AUTHOR_MARK_RE.search(text)
        name = text[: match.start()] if match else ""
        if (
            match
            and len(name.split()) <= _NAME_WORDS
            and not PLACEHOLDER_RE.search(name)
            and not any(c.isdigit() for c in name)
        ):
            found.add(match.group(1))
    return found
