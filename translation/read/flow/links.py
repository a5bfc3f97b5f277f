"""Flow: which paragraphs go on in a later box, so that one sentence is one request.

A paragraph is cut in pieces by the page: at a column's foot it goes on at the next column's
head, at a page's foot on the next page, after a figure, a table, a caption or the footnotes
below it, and around a display equation set in its middle ("... we can write" [equation]
"where x is ..."). Chinese, Japanese and Korean have no case to tell a sentence's going on
by: one left open on a CJK character before a display equation or a listing goes on in CJK
text after it. Each piece stays a paragraph of its own (it is typeset in its own box), and
the pieces of one paragraph make one *passage*, sent as one request
(``translation.read.flow.passage``).

A list that the sentence before it opens ("... our contributions are:") goes on that sentence,
item by item while the items end with a comma or a semicolon; each item keeps its box and its
label, and the label's place in the passage is a placeholder, as a display equation's is. An
item after a semicolon goes on the enumeration ("(1) ...; (2) ..."). A list whose first item
stops on no mark ("... the following elements:" | "headings and subheadings") is a list of
bullets, each its own request.

A piece goes on in the next one when it ends inside a sentence (no stop, or a hyphen, a comma
or a semicolon at its end), the next one opens as a continuation (lower case, a placeholder,
or, after a dangling word such as "the", a comma, a hyphen or a justified last line that runs
to the column's edge, a capital or a number: anything but an indented new paragraph),
both are running text of one size (a lower-case continuation may change weight), and nothing
but floats, footnotes, text set smaller (a table) and equations lies between them in reading
order (running heads and figure text are never read). A heading, a caption, a footnote, a
table cell or a reference entry never continues a body paragraph, and a list item only as an
item of its own (above); nor does a definition list's entry (a bold term, then its text, its
other lines hanging indented under it). A paragraph that opens with a caption's label where
the body text before it stops mid-sentence ("... linking in" | "Table 4. On average, ...") is
body text (:func:`run_on_captions`). A footnote left open at a column's foot goes on in the
next column's first small print of its size when that opens inside a sentence, past the text
between (:func:`_footnote_links`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from translation.read import measures
from translation.read.blocks.draft import Draft
from translation.read.flow.passage import hyphen_break
from translation.read.math.formulas import PLACEHOLDER_RE
from translation.read.measures import ONE_SIZE, SIZE_STEP, line_step
from translation.read.numbering.contents import ends_entry
from translation.read.paragraph import Paragraph, ParagraphKind
from translation.read.rows.row import Row
from translation.read.words.lexicon import joins_at_break
from translation.read.words.vocabulary import Vocabulary
from translation.read.words.word import LAST_WORD_RE, dangles, ends_sentence, has_wide

#: What may lie between two pieces of one paragraph (besides skipped rows: equations, numbers).
_FLOATS = (ParagraphKind.CAPTION, ParagraphKind.FOOTNOTE, ParagraphKind.CELL)
#: Pieces that may go on in a later box, and the pieces that may continue them.
_OPEN = (ParagraphKind.BODY, ParagraphKind.LIST_ITEM)
#: A footnote mark's placeholder set right after a comma or a semicolon ("arXiv,{v1}").
_MARK_END_RE = re.compile(r"(?<=[,;])\{v\d+\}$")
#: The rest of a bracketed citation list: numbers, commas and dashes, then the bracket.
_CITATION_CLOSE_RE = re.compile(r"\s*\d+(?:\s*[,;\-\u2013]\s*\d+)*\s*\]")


def links(drafts: Sequence[Draft], sent: Callable[[int], bool]) -> dict[int, tuple[int, bool]]:
    """For each draft that goes on in a later one: (index of that draft, whether something
    stands between them in the sentence: a display equation, or the later one's list label).
    ``drafts`` are in reading order over the document; ``sent(i)`` says whether draft ``i``
    becomes a paragraph (not skipped, on a wanted page, not a reference entry): only those are
    linked. Each draft continues at most one and is continued by at most one; a piece goes on
    at most on the next page."""
    found: dict[int, tuple[int, bool]] = {}
    taken: set[int] = set()
    for i, draft in enumerate(drafts):
        if not sent(i) or draft.kind not in _OPEN or draft.front or _closed(draft.text):
            continue
        if ends_entry(draft.text, draft.placeholders):
            continue  # a contents entry ends at its page number
        if draft.rows[0].region:
            continue  # margin material (a side note, a label) goes on in no other box
        displays: list[Draft] = []
        listings: list[Draft] = []
        for j in range(i + 1, len(drafts)):
            nxt = drafts[j]
            if nxt.page > draft.page + 1:
                break
            if nxt.rows[0].region:
                continue  # the body's sentence goes on past the margin's material
            if nxt.skip:
                # A listing stands in a CJK sentence left open before it ("LaTeX 文档的标准结构是"
                # [listing]); a Latin one goes on past it by the rules for any break.
                if _display(nxt) or (_listing(nxt) and has_wide(draft.text.rstrip()[-1:])):
                    displays.append(nxt)
                elif _listing(nxt):
                    listings.append(nxt)
                continue
            if nxt.kind in _FLOATS or _smaller(nxt, draft):
                continue  # a float, a footnote, a table's small print
            equation = _interrupts(displays, draft, nxt)
            # After a listing, only words that open inside a sentence take it up ("... can
            # be inspected via" [listing] "See Table 2 ..." is a new sentence).
            anew = _interrupts(listings, draft, nxt) and not _opens_inside(nxt.text.lstrip())
            if sent(j) and j not in taken and not anew and _goes_on(draft, nxt, equation):
                found[i] = (j, equation or nxt.kind == ParagraphKind.LIST_ITEM)
                taken.add(j)
            break
    _footnote_links(drafts, sent, found, taken)
    return found


#: Drafts: a list of lines runs this many or more.
_SERIES_LINES = 3
_SERIES_STEP = 0.15  # font sizes: the lines of a list stand apart alike to this much
_SERIES_SHORT = 2.0  # font sizes: each line of a list ends at least this short of its column


def line_series(drafts: Sequence[Draft]) -> list[int]:
    """The drafts classed as body text that are entries of a list of lines: three or more such
    drafts of one line each, one after another on a page, starting at one x, each opening
    with a word (its term: no formula or code kept as a placeholder) and ending inside a
    sentence short of its column's edge, set apart alike (further than the lines of a
    paragraph: each is a draft of its own): a definition list whose terms and
    descriptions fit on a line ("dgeMatrix Real matrices in general storage mode" |
    "dsyMatrix Symmetric real matrices in non-packed storage"), a list of items without marks.
    Each line is ended on purpose: the entries are list items, which go on no sentence but an
    enumeration's (:func:`_goes_on`), even across a page (the list's rest heads the next
    page)."""
    found: list[int] = []
    run: list[int] = []

    def entry(k: int) -> bool:
        draft = drafts[k]
        row = draft.rows[0]
        return (
            not draft.skip
            and draft.kind == ParagraphKind.BODY
            and not draft.front
            and len(draft.rows) == 1
            and not draft.rows[0].region
            and not _closed(draft.text)
            and len(draft.text.split()) > 1
            and draft.text.lstrip()[:1].isalpha()  # a term: a word, not a formula or code
            and row.x1 < row.col_range[1] - _SERIES_SHORT * row.size
        )

    def close() -> None:
        if len(run) >= _SERIES_LINES:
            found.extend(run)
        run.clear()

    for k in range(len(drafts)):
        if not entry(k):
            close()
            continue
        if run:
            last, first = drafts[run[-1]].rows[0], drafts[k].rows[0]
            steps = [
                line_step(drafts[a].rows[0], drafts[b].rows[0])
                for a, b in zip(run, run[1:], strict=False)
            ]
            alike = not steps or abs(line_step(last, first) - steps[0]) <= _SERIES_STEP * last.size
            if (
                drafts[k].page != drafts[run[-1]].page
                or abs(first.x0 - last.x0) > _SERIES_STEP * last.size
                or abs(first.size - last.size) > SIZE_STEP
                or not alike
            ):
                close()
        run.append(k)
    close()
    return found


def _footnote_links(
    drafts: Sequence[Draft],
    sent: Callable[[int], bool],
    found: dict[int, tuple[int, bool]],
    taken: set[int],
) -> None:
    """Add to ``found`` the footnotes that go on in a later column: a footnote left open at
    its column's foot goes on in the next small print of its size, past the text set larger
    between (the next column's body), where that print opens inside a sentence and bears no
    mark of its own ("... such as the airplane's" | "altitude and airspeed, ..."); the next
    note's mark closes it."""
    for i, draft in enumerate(drafts):
        if draft.kind != ParagraphKind.FOOTNOTE or not sent(i) or _closed(draft.text):
            continue
        size = draft.rows[-1].size
        for j in range(i + 1, len(drafts)):
            nxt = drafts[j]
            if nxt.page > draft.page + 1 or nxt.kind == ParagraphKind.FOOTNOTE:
                break
            if nxt.skip or nxt.rows[0].region or abs(nxt.rows[0].size - size) > SIZE_STEP:
                continue  # the text between, a margin's note, a formula
            text = nxt.text.lstrip("([“‘\"' ")
            if (
                nxt.kind == ParagraphKind.BODY
                and not nxt.label
                and text
                and _opens_inside(text)
                and sent(j)
                and j not in taken
            ):
                found[i] = (j, False)
                taken.add(j)
            break


def _closed(text: str) -> bool:
    """Whether ``text`` ends a sentence (a colon or a semicolon before an equation or a list
    does not)."""
    text = text.rstrip()
    if not text or text.endswith((",", ";", "-", "\u2010")):
        return False
    return ends_sentence(text) and not text.endswith((":", "："))


#: A line set monospaced this much is a listing's (its commands all placeholders: no words).
_LISTING_MONO = 0.8


def _display(draft: Draft) -> bool:
    """A skipped draft that is a display equation."""
    return draft.skip == "equation" or (
        draft.skip == "no words" and any(r.mathy for r in draft.rows)
    )


def _listing(draft: Draft) -> bool:
    """A skipped draft that is a displayed listing (code kept as it is printed)."""
    return draft.skip == "code" or (
        draft.skip == "no words" and any(r.mono >= _LISTING_MONO for r in draft.rows)
    )


_DISPLAY_REACH = 5.0  # font sizes: a display equation between two pieces stands this near


def _interrupts(displays: Sequence[Draft], prev: Draft, nxt: Draft) -> bool:
    """Whether a display equation of ``displays`` stands in the sentence between ``prev`` and
    ``nxt``: set just above ``nxt`` in its column, or at the text's size just below ``prev``
    in its column; both when the two pieces share a column. A formula of a table or of a
    footnote somewhere between is no part of the sentence."""
    first, last = nxt.rows[0], prev.rows[-1]
    reach = _DISPLAY_REACH * first.size
    above = [
        d
        for d in displays
        if d.page == nxt.page
        and _overlaps(d.rows[0], first)
        and 0 < line_step(d.rows[-1], first) < reach
    ]
    below = [
        d
        for d in displays
        if d.page == prev.page
        and _overlaps(d.rows[0], last)
        and 0 < line_step(last, d.rows[0]) < reach
    ]
    if prev.page == nxt.page and _overlaps(last, first):
        return bool(above and below)
    # At a column's foot, a formula set smaller than the text is a footnote's.
    return bool(above) or any(d.rows[0].size >= last.size - SIZE_STEP for d in below)


def _overlaps(row: Row, other: Row) -> bool:
    """Whether ``row`` lies over ``other``'s column."""
    left, right = other.col_range
    return min(row.x1, right) > max(row.x0, left)


def _smaller(draft: Draft, than: Draft) -> bool:
    """Whether ``draft`` is set smaller than the end of ``than`` (a table, a float's text)."""
    return draft.rows[0].size < than.rows[-1].size - SIZE_STEP


def _goes_on(prev: Draft, nxt: Draft, equation: bool) -> bool:
    """Whether ``nxt`` continues the sentence that ``prev`` leaves open (module doc);
    ``equation``: a display equation stands between them."""
    if nxt.front or abs(prev.rows[-1].size - nxt.rows[0].size) > SIZE_STEP:
        return False
    text = nxt.text.lstrip("([“‘\"' ")
    # A footnote mark set right after a comma leaves the comma the sentence's last mark.
    tail = _MARK_END_RE.sub("", prev.text.rstrip())
    if not text:
        return False
    if nxt.kind == ParagraphKind.LIST_ITEM:
        # A list that goes on the sentence before it: "... are:" "(a) lower case...;".
        word = LAST_WORD_RE.search(tail)
        joined = tail.endswith((",", ";")) or bool(word and word.group(1) in ("and", "or"))
        # A sentence that stops on a colon, or on a word no sentence ends with ("... it has
        # to be assured in addition that" | "• the model only depends on ..., "), opens it.
        opened = (tail.endswith((":", "：")) or dangles(tail)) and _opens_inside(text)
        return joined or (opened and _enumerates(nxt.text))
    entry = nxt.kind == ParagraphKind.HEADING and ends_entry(nxt.text, nxt.placeholders)
    if nxt.kind != ParagraphKind.BODY and not entry or nxt.label or _defines(nxt):
        return False  # a contents entry's last lines may open the next column
    head = text[0]
    if prev.rows[-1].bold != nxt.rows[0].bold and not head.islower():
        return False  # a bold word may open a line; a bold heading set apart may not
    if tail.endswith((":", "：")) and not _opens_inside(text):
        return False  # "as follows:" [equation] "The model ..." starts anew
    if _opens_inside(text) or (not equation and _closes_bracket(tail, nxt.text)):
        return True
    if equation and has_wide(tail[-1:]) and has_wide(head):
        # Chinese, Japanese or Korean text has no case to tell a sentence's going on by: one
        # left open before a display goes on after it ("...的命令是" [listing] "即可完成安装。").
        return True
    if equation or not (head.isalpha() or head.isdigit()):
        return False
    # A capital or a number goes on after a hyphen, a comma, a word no sentence ends with or
    # a last line set full to the column's edge ("... we used" | "Specter as ...", "... in
    # fall" | "2018. His ..."), unless the next piece opens with an indented first line (a new
    # paragraph).
    first = nxt.rows[0]
    indented = len(nxt.rows) > 1 and measures.indented(first.x0, nxt.rows[1].x0, first.size)
    return (dangles(tail) or _runs_full(prev)) and not indented


def _enumerates(text: str) -> bool:
    """Whether a list item's ``text`` is a part of a sentence's enumeration: it goes on to the
    next item (a comma, a semicolon, "and", "or") or ends the sentence ("... on two
    datasets."). An item that stops on no mark is a bullet of its own ("headings and
    subheadings"), as are the items after it."""
    tail = _MARK_END_RE.sub("", text.rstrip())
    word = LAST_WORD_RE.search(tail)
    goes_on = tail.endswith((",", ";")) or bool(word and word.group(1) in ("and", "or"))
    return goes_on or ends_sentence(tail)


def _defines(draft: Draft) -> bool:
    """Whether ``draft`` is an entry of a definition list: its first line opens with a term
    in bold, then its text in the regular weight, and its other lines hang indented under
    it ("<b>book</b> A book with an explicit publisher." | "    Required fields: ..."). An
    entry starts anew, whatever the entry before it ends with."""
    first = draft.rows[0]
    return (
        len(draft.rows) > 1
        and not first.bold
        and 0 < first.bold_lead < len(first.text.rstrip())
        and measures.indented(draft.rows[1].x0, first.x0, first.size)
    )


_FULL_AS_OTHERS = 0.5  # font sizes: a full last line ends this near the other lines' end ...
_FULL = 1.5  # ... and this near its column's edge


def _runs_full(draft: Draft) -> bool:
    """Whether ``draft``'s last line runs to its column's edge as far as its other lines do:
    a justified line that the paragraph goes on after (its last line ends short). A piece of
    one line (a paragraph's first line at a page's foot) is measured by its column alone."""
    last = draft.rows[-1]
    edge = max((r.x1 for r in draft.rows[:-1]), default=last.x1)
    return (
        last.x1 >= edge - _FULL_AS_OTHERS * last.size
        and last.x1 >= last.col_range[1] - _FULL * last.size
    )


def _closes_bracket(tail: str, text: str) -> bool:
    """Whether ``text`` opens by closing a bracket that ``tail`` leaves open after a comma or
    a dash: a citation list broken across the page ("... classification [11," | "37], ...")."""
    opened = tail.rfind("[")
    if opened < 0 or opened < tail.rfind("]") or not tail.endswith((",", ";", "-", "\u2013")):
        return False
    return bool(_CITATION_CLOSE_RE.match(text))


#: A caption that is body text runs this many lines or more.
_RUN_ON_ROWS = 3


def run_on_captions(drafts: Sequence[Draft]) -> list[int]:
    """The drafts classed as captions that are body text: a paragraph that opens with a
    caption's label ("Table 4. On average, ...") right where the body text before it (floats
    and skipped lines aside) stops at a word no sentence ends with ("... linking in"), at that
    text's size, three lines or more, and the body text after it does not go on in lower case
    (that would be the sentence's own continuation, the caption a float between)."""
    found: list[int] = []
    for j, draft in enumerate(drafts):
        if draft.kind != ParagraphKind.CAPTION or draft.skip or len(draft.rows) < _RUN_ON_ROWS:
            continue
        before = _neighbour(drafts, range(j - 1, -1, -1))
        if (
            before is None
            or before.kind != ParagraphKind.BODY
            or before.page < draft.page - 1
            or not dangles(before.text.rstrip())
            or abs(before.rows[-1].size - draft.rows[0].size) > ONE_SIZE
        ):
            continue
        after = _neighbour(drafts, range(j + 1, len(drafts)))
        if after is None or after.kind != ParagraphKind.BODY or not _opens_inside(after.text):
            found.append(j)
    return found


def _neighbour(drafts: Sequence[Draft], indices: range) -> Draft | None:
    """The first draft at ``indices`` that is neither skipped nor a float."""
    return next(
        (drafts[k] for k in indices if not drafts[k].skip and drafts[k].kind not in _FLOATS),
        None,
    )


#: Marks no sentence opens with: a piece that opens with one goes on the sentence before it
#: ("... helpful to users" | "/ programmers who ...").
_INSIDE_MARKS = tuple("/,;:)]}")


def _opens_inside(text: str) -> bool:
    """Whether ``text`` opens inside a sentence: lower case, a formula, or a mark no sentence
    opens with."""
    return text[0].islower() or bool(PLACEHOLDER_RE.match(text)) or text.startswith(_INSIDE_MARKS)


def chain(paragraphs: Sequence[Paragraph], after: dict[int, tuple[int, bool]]) -> list[Paragraph]:
    """``paragraphs`` with the pieces of each passage marked (``Paragraph.passage``), their
    placeholders numbered on across the passage and the display equations between pieces given
    a placeholder of their own (``Paragraph.break_before``). ``after`` maps a paragraph's
    position to the position of the piece it goes on in, and whether something stands between
    them (:func:`links`)."""
    out = list(paragraphs)
    heads = set(after) - {j for j, _ in after.values()}
    for head in sorted(heads):
        passage = out[head].id
        out[head] = replace(out[head], passage=passage)
        count = _highest(out[head])
        at = head
        while at in after:
            at, marked = after[at]
            key = ""
            if marked:
                count += 1
                key = f"{{v{count}}}"
            piece = _renumbered(out[at], count)
            count = max(count, _highest(piece))
            out[at] = replace(piece, passage=passage, break_before=key)
    return out


def _highest(paragraph: Paragraph) -> int:
    """The highest formula placeholder number of ``paragraph`` (glossary terms aside)."""
    return max((int(k[2:-1]) for k in paragraph.placeholders), default=0)


def _renumbered(paragraph: Paragraph, offset: int) -> Paragraph:
    """``paragraph`` with placeholder ``{vN}`` renamed ``{v<N+offset>}`` everywhere."""
    if not offset or not paragraph.placeholders:
        return paragraph

    def key(old: str) -> str:
        return f"{{v{int(old[2:-1]) + offset}}}"

    return replace(
        paragraph,
        text=PLACEHOLDER_RE.sub(lambda m: key(m.group(0)), paragraph.text),
        placeholders={key(k): v for k, v in paragraph.placeholders.items()},
        formula_boxes={key(k): v for k, v in paragraph.formula_boxes.items()},
        formula_descents={key(k): v for k, v in paragraph.formula_descents.items()},
        glyph_formulas=frozenset(key(k) for k in paragraph.glyph_formulas),
        code_formulas=frozenset(key(k) for k in paragraph.code_formulas),
    )


def hyphens_decided(paragraphs: list[Paragraph], seen: Vocabulary) -> list[Paragraph]:
    """``paragraphs`` with ``hyphen_joins`` set on each piece whose passage's previous piece
    ends in a line-end hyphen (decided with the document's vocabulary ``seen``)."""
    last: dict[str, Paragraph] = {}
    out: list[Paragraph] = []
    for paragraph in paragraphs:
        before = last.get(paragraph.passage) if paragraph.passage else None
        pair = before and hyphen_break(before.text, paragraph.text.lstrip())
        if pair and not paragraph.break_before:
            paragraph = replace(paragraph, hyphen_joins=joins_at_break(*pair, seen=seen))
        if paragraph.passage:
            last[paragraph.passage] = paragraph
        out.append(paragraph)
    return out
