"""What a block is, as an ordered list of rules: the first that holds decides whether the
block is sent and as what kind (:data:`RULES`). The order is the policy: a table cell of
numbers is a quantity before it is a cell, a front-matter line of names is author names
before it is front matter, a labelled paragraph keeps its label's kind before any look at
its size or weight could make it a heading.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from translation.read.blocks import leads, roles
from translation.read.blocks.code_text import looks_like_code, outside_meta
from translation.read.blocks.front_matter import (
    LIGHT_LARGER,
    author_names,
    common_words,
    labelled_names,
)
from translation.read.math.formulas import PLACEHOLDER_RE
from translation.read.math.notation import only_citation, only_notation
from translation.read.math.operator_names import only_operator_names
from translation.read.math.quantities import is_quantity
from translation.read.measures import SIZE_STEP
from translation.read.numbering.contents import ends_entry
from translation.read.paragraph import ParagraphKind
from translation.read.rows.row import Row
from translation.read.style.style_marks import without_tags
from translation.read.words.vocabulary import Vocabulary
from translation.read.words.word import WORD_RE, cjk_weight, ends_sentence, has_wide


@dataclass(frozen=True, slots=True)
class Facts:
    """What the rules see of a block: its rows, its text (math as placeholders) and their
    originals, whether it is in the front matter, its label, its characters as joined (before
    protection), its words, how many letters and math characters it holds, the share of its
    text set monospaced, the body size and the document's vocabulary."""

    rows: list[Row]
    text: str
    placeholders: dict[str, str]
    front: bool
    label: str
    chars: str
    words: list[str]
    letters: int
    math_chars: int
    mono: float
    body_size: float
    seen: Vocabulary | None


#: A rule's outcome: a reason not to send the block, a kind to send it as, or None (sent as
#: the kind it has).
Outcome = str | ParagraphKind | None


def _no_words(f: Facts) -> bool:
    return not f.words


_SHORT_MONO = 0.6  # a few words with this share of monospaced characters are code

_SHORT_MONO_WORDS = 4  # words: code set monospaced is fewer (a sentence around a URL is more)


def _short_mono(f: Facts) -> bool:
    """Code: a few words set monospaced (a sentence around a long URL is not), the names of
    its meta-variables aside, in whatever script ("fontcmd=⟨書体のコマンド⟩")."""
    if f.mono < _SHORT_MONO:
        return False
    words = WORD_RE.findall(PLACEHOLDER_RE.sub(" ", outside_meta(f.text, f.placeholders)))
    return len(words) < _SHORT_MONO_WORDS


def _code_text(f: Facts) -> bool:
    """LaTeX source or a command line in a face not measured monospaced, line by line."""
    return looks_like_code([row.text for row in f.rows])


_EQUATION_WORDS = 3  # words: an equation among more math than letters has at most this many


def _mostly_math(f: Facts) -> bool:
    """A few words among more math than letters: an equation."""
    return (
        bool(f.math_chars) and len(f.words) <= _EQUATION_WORDS and f.letters <= 2 * f.math_chars + 2
    )


_RELATIONS = ("=", "≈", "≤", "≥", "≡", "∝", ":=")

_NAMED_EQUATION_TOKENS = 9  # tokens: an equation between named quantities has at most this many


def _named_equation(f: Facts) -> bool:
    """An equation between named quantities ("iBLEU = α·BLEU − (1−α)·self-BLEU"): a relation
    among its math, and every other word a name (capitals or digits in it), never a plain
    lower-case word of a sentence ("where", "is")."""
    tokens = [t for t in re.split(r"(\{v\d+\})|\s+", f.text) if t]
    math = [t for t in tokens if PLACEHOLDER_RE.fullmatch(t)]
    names = [t for t in tokens if not PLACEHOLDER_RE.fullmatch(t)]
    return (
        bool(math)
        and len(tokens) <= _NAMED_EQUATION_TOKENS
        and any(r in f.placeholders.get(t, "") for t in math for r in _RELATIONS)
        and all(re.search(r"[A-Z0-9]", t) for t in names)
    )


def _quantity_cell(f: Facts) -> bool:
    return f.rows[0].cell and is_quantity(f.text)


def _notation_cell(f: Facts) -> bool:
    return f.rows[0].cell and only_notation(f.text, f.seen)


def _citation_cell(f: Facts) -> bool:
    return f.rows[0].cell and only_citation(without_tags(f.text))


def _operator_names(f: Facts) -> bool:
    return only_operator_names(f.words)


def _keywords(f: Facts) -> bool:
    """Pseudo-code keywords alone, outside the front matter and not a column's header cell (a
    table cell of one capitalised word: "Function", "Return"; pseudo-code sets its keywords in
    lower case)."""
    header_cell = f.rows[0].cell and len(f.words) == 1 and f.words[0][:1].isupper()
    return roles.only_keywords(f.words) and not f.front and not header_cell


def _front_names(f: Facts) -> bool:
    return f.front and author_names([r.text for r in f.rows], f.text, f.rows[0].cell)


def _labelled_names(f: Facts) -> bool:
    """Anywhere: a note of whom to write to. A label's list in title case whose words the
    paper prints in lower case is keywords or a title ("Keywords: Answer Validation, ...",
    "Chapter 4: Hardware Dependencies"), not names (front_matter.common_words)."""
    if not labelled_names(f.text):
        return False
    return f.seen is None or not common_words(f.text, f.seen.lowered)


def _cell(f: Facts) -> bool:
    return f.rows[0].cell


#: Rows of a front matter's marked line, at most: an affiliation runs over one or two.
_AFFILIATION_ROWS = 2


def _front_mark(f: Facts) -> bool:
    """A line or two of the front matter opened by a mark ("¹ School of Physics, ..."): an
    affiliation that the authors' marks point to, not a footnote of the text."""
    return f.front and bool(f.label) and len(f.rows) <= _AFFILIATION_ROWS


def _contents_entry(f: Facts) -> bool:
    """An entry of a contents list: its text ends with its leader's and page number's
    placeholder (``numbering.contents``). It names a section, as its heading does."""
    return ends_entry(f.text, f.placeholders)


def _labelled(f: Facts) -> bool:
    """A list item, footnote or algorithm line: its label said its kind."""
    return bool(f.label)


def _front_line(f: Facts) -> bool:
    """A light line or two of the front matter (not a title set in a large light face)."""
    first = f.rows[0]
    return (
        f.front and not first.bold and len(f.rows) <= 2 and first.size < f.body_size + LIGHT_LARGER
    )


_HEADING_WORDS = 15  # words: a heading of a line or two has at most this many
#: Lines a bold or larger heading holds at most: a narrow column (a three-column page's)
#: breaks a title of a dozen words over three ("Explanation of Certain Provisions for" |
#: "Alternative Methods of Compliance" | "(AMOCs)"); its words stay as few.
_HEADING_ROWS = 3
#: Latin letters a word takes, its space with it: a CJK character (Han, kana, Hangul), two
#: letters wide (``cjk_weight``), is a third of a word, so a heading's word limit holds in the
#: script's own terms ("三、公司实际控制人...的承诺事项", 44 characters, is 15 words' width; a
#: Korean title's syllables, three a word, count as its spaced words do).
_LETTERS_A_WORD = 6


def heading_words(words: list[str]) -> float:
    """How many words ``words`` (``WORD_RE``'s: a Latin word, or one CJK character) make in
    their script's own terms: a Latin word is one, a CJK character :data:`_LETTERS_A_WORD`'s
    share of its width."""
    wide = sum(cjk_weight(w) for w in words if has_wide(w))
    return sum(not has_wide(w) for w in words) + wide / _LETTERS_A_WORD


#: A sentence's stop inside CJK text ("...编译。推荐使用..."): a text holding one is prose.
_CJK_STOP_RE = re.compile("[。．！？]")


def _few_words(f: Facts) -> bool:
    """Whether ``f``'s text has a heading's few words: :data:`_HEADING_WORDS` as
    ``WORD_RE`` counts them, or as many in its script's own terms (:func:`heading_words`)
    where it holds no CJK sentence stop ("...编译。推荐使用 XƎLaTeX。为了", "...を示す。*1")
    and opens no caption ("表 4 西文字体与..."): a CJK text so long is a heading only by its
    look."""
    if len(f.words) <= _HEADING_WORDS:
        return True
    return (
        heading_words(f.words) <= _HEADING_WORDS
        and not _CJK_STOP_RE.search(f.text)
        and not roles.caption_start(f.rows[0])
    )


#: Words a front matter's title (bold or larger) holds at most: a thesis's runs long.
_FRONT_TITLE_WORDS = 2 * _HEADING_WORDS


def _heading(f: Facts) -> bool:
    """A line or two (three in a narrow column), bold or larger, no sentence ending ("Gold
    Answer: 5:02" is bold but for "5:02"), of a heading's few words (a front matter's title
    up to :data:`_FRONT_TITLE_WORDS`); or a numbered heading's line or two."""
    rows = f.rows
    return (
        len(rows) <= _HEADING_ROWS
        and (_few_words(f) or (f.front and len(f.words) <= _FRONT_TITLE_WORDS))
        and (rows[0].bold and rows[-1].bold or rows[0].size >= f.body_size + SIZE_STEP)
        and not ends_sentence(f.text)
        and not leads.colon_lead(rows[0])
    ) or (len(rows) <= 2 and roles.heading_number(rows[0]))


def _caption(f: Facts) -> bool:
    return roles.caption_start(f.rows[0])


def _algorithm(f: Facts) -> bool:
    return bool(roles.algorithm_label(f.rows[0].text))


def _numbered_line(f: Facts) -> bool:
    """A listing's numbered line (its number kept apart as printed, ``rows.listing_rows``):
    one line of pseudo-code, whatever its columns look like."""
    return f.rows[0].numbered


#: The rules, in order; the first that holds decides.
RULES: tuple[tuple[Callable[[Facts], bool], Outcome], ...] = (
    (_no_words, "no words"),
    (_short_mono, "code"),
    (_code_text, "code"),
    (_mostly_math, "equation"),
    (_named_equation, "equation"),
    (_quantity_cell, "quantity"),
    (_notation_cell, "notation"),
    (_citation_cell, "citation"),
    (_operator_names, "operator names"),
    (_keywords, "pseudo-code keywords"),
    (_front_names, "author names"),
    (_labelled_names, "author names"),
    (_numbered_line, ParagraphKind.ALGORITHM),
    (_cell, ParagraphKind.CELL),
    (_front_mark, ParagraphKind.AUTHOR),
    (_contents_entry, ParagraphKind.HEADING),
    (_labelled, None),
    (_front_line, ParagraphKind.AUTHOR),
    (_heading, ParagraphKind.HEADING),
    (_caption, ParagraphKind.CAPTION),
    (_algorithm, ParagraphKind.ALGORITHM),
)


def decide(facts: Facts) -> tuple[bool, Outcome]:
    """Whether a rule of :data:`RULES` held for ``facts``, and the first one's outcome."""
    for holds, outcome in RULES:
        if holds(facts):
            return True, outcome
    return False, None
