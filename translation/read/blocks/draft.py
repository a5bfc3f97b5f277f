"""A paragraph in the making: its rows joined into one text (line-end hyphens resolved, inline
math protected as placeholders), its role and whether it is sent decided, and then turned into
the :class:`~translation.read.paragraph.Paragraph` the model reads."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from translation.read.blocks import roles
from translation.read.blocks.code_text import in_meta
from translation.read.blocks.kind_rules import Facts, decide
from translation.read.layout import Frame, Rect, union
from translation.read.math.char_classes import composed, with_math_letters
from translation.read.math.formulas import (
    CODE,
    GLYPH,
    MATH,
    MATHS,
    NEUTRAL,
    PLACEHOLDER_RE,
    TEXT,
    copied_as_glyphs,
    protect,
)
from translation.read.numbering.contents import leader_start
from translation.read.paragraph import ParagraphKind
from translation.read.regions.doc_stats import DocStats
from translation.read.rows.row import Row
from translation.read.style.paragraph_style import (
    is_bold,
    is_italic,
)
from translation.read.style.style_marks import BOLD, ITALIC
from translation.read.words.lexicon import joins_at_break
from translation.read.words.logos import text_logos
from translation.read.words.vocabulary import Vocabulary
from translation.read.words.word import URL_TAIL_RE, WORD_RE, hangul_cut


@dataclass(slots=True)
class Draft:
    rows: list[Row]
    page: int
    frame: Frame
    kind: ParagraphKind = ParagraphKind.BODY
    text: str = ""
    placeholders: dict[str, str] = field(default_factory=dict)
    formula_boxes: dict[str, tuple[Rect, ...]] = field(default_factory=dict)
    formula_descents: dict[str, tuple[float, ...]] = field(default_factory=dict)
    glyph_formulas: set[str] = field(default_factory=set)
    skip: str = ""
    front: bool = False  # in the first page's front matter (title, authors, affiliations)
    label: str = ""
    #: The rows joined as the text is (line-end hyphens resolved), label included: characters,
    #: classes and the style of each (see translation.read.style.paragraph_style).
    styled: tuple[str, str, list[int]] = ("", "", [])
    #: The bold/italic mask of each character of ``text`` (None: no style of its own).
    states: list[int | None] = field(default_factory=list)
    code_formulas: set[str] = field(default_factory=set)


def _is_cjk(char: str) -> bool:
    code = ord(char)
    return 0x3000 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFFEF


def _joins_hyphenated(chars: list[str], text: str, seen: Vocabulary | None) -> bool:
    """A word broken at a line end ("ap-" + "proach"), not a compound ("state-" +
    "of-the-art", "BERT-" + "based"): see :func:`translation.read.words.lexicon.joins_at_break`
    (``seen``: the document's vocabulary)."""
    start = len(chars) - 1
    while start > 0 and chars[start - 1].isalnum():
        start -= 1
    after = re.match(r"[^\W\d_]*", text)
    return joins_at_break("".join(chars[start:-1]), after.group() if after else "", seen=seen)


def _join_rows(
    rows: list[Row], seen: Vocabulary | None
) -> tuple[str, str, list[Rect], list[float], list[int]]:
    """The paragraph's characters, classes, character boxes, the baseline of each
    character's row and its style, line breaks undone."""
    chars: list[str] = []
    classes: list[str] = []
    boxes: list[Rect] = []
    bases: list[float] = []
    styles: list[int] = []
    for row in rows:
        start = len(row.chars) - len(row.chars.lstrip())
        end = len(row.chars.rstrip())
        text = row.chars[start:end]
        if chars:
            last = chars[-1]
            if last in "-\u00ad\u2010" and _joins_hyphenated(chars, text, seen) or last == "\u00ad":
                del chars[-1], classes[-1], boxes[-1], bases[-1], styles[-1]
            elif URL_TAIL_RE.search("".join(chars[-200:])):
                pass
            elif (
                not (_is_cjk(last) and _is_cjk(text[0]))
                and last not in "-\u2010"
                and not hangul_cut("".join(chars[-40:]), text)
            ):
                chars.append(" ")
                classes.append(NEUTRAL)
                boxes.append(boxes[-1])
                bases.append(bases[-1])
                styles.append(styles[-1])
        chars.extend(text)
        classes.extend(row.classes[start:end])
        boxes.extend(row.boxes[start:end])
        bases.extend([row.baseline] * (end - start))
        own = row.styles[start:end] if len(row.styles) == len(row.chars) else []
        styles.extend(own or [0] * (end - start))
    return "".join(chars), "".join(classes), boxes, bases, styles


def words_of(text: str) -> list[str]:
    return WORD_RE.findall(PLACEHOLDER_RE.sub(" ", text))


_INNER_BREAK_RE = re.compile(r"(?<![\w-])([^\W\d_]+)[-\u2010] ([^\W\d_]+)")


def _mend_inner_breaks(
    joined: tuple[str, str, list[Rect], list[float], list[int]], seen: Vocabulary | None
) -> tuple[str, str, list[Rect], list[float], list[int]]:
    """Undo a line-end hyphen left inside a line by a document reflowed after it was
    hyphenated ("the deep se- mantic information"): the hyphen and the space go where the
    word list says the pieces make one word (``lexicon.joins_at_break``: "pre- and" stays)."""
    chars, classes, boxes, bases, styles = joined
    cuts = [
        m.end(1)
        for m in _INNER_BREAK_RE.finditer(chars)
        if classes[m.start(1) : m.end(2)].count(TEXT) == m.end(2) - m.start(1) - 2
        and joins_at_break(m.group(1), m.group(2), seen=seen)
    ]
    for cut in reversed(cuts):
        chars, classes = chars[:cut] + chars[cut + 2 :], classes[:cut] + classes[cut + 2 :]
        del boxes[cut : cut + 2], bases[cut : cut + 2], styles[cut : cut + 2]
    return chars, classes, boxes, bases, styles


def classify(draft: Draft, stats: DocStats, seen: Vocabulary | None = None) -> None:
    """Join the draft's rows into its text and decide its role and whether it is sent;
    ``seen``, the document's vocabulary, helps decide line-end hyphens."""
    joined = _join_rows(draft.rows, seen)
    chars, classes, boxes, bases, styles = composed(*_mend_inner_breaks(joined, seen))
    draft.styled = (chars, classes, styles)
    role, label = roles.label_of(draft.rows, stats.body_size, stats.text_size(draft.page))
    if role is not None and not draft.rows[0].cell:
        # The label is printed first as it is, never sent (see Paragraph.label).
        cut = len(label.strip())
        cut += len(chars[cut:]) - len(chars[cut:].lstrip())
        if cut < len(chars):
            draft.kind, draft.label = role, label.strip() + (" " if label[-1:].isspace() else "")
            chars, classes, boxes, bases = chars[cut:], classes[cut:], boxes[cut:], bases[cut:]
            styles = styles[cut:]
    chars, classes = text_logos(chars, classes)
    classes = with_math_letters(chars, classes)
    text, originals, ranges = protect(chars, classes)
    draft.text, draft.states = _collapsed(text, _protected_states(chars, classes, styles, ranges))
    draft.placeholders = originals
    for key, (start, end) in zip(originals, ranges, strict=True):
        rects, descents = _formula_rects(boxes[start:end], bases[start:end], draft.frame)
        draft.formula_boxes[key], draft.formula_descents[key] = rects, descents
        if copied_as_glyphs(classes[start:end]):
            draft.glyph_formulas.add(key)
        elif CODE in classes[start:end] and MATH not in classes[start:end]:
            draft.code_formulas.add(key)
    _keep_leader(draft)
    words = words_of(draft.text)
    rows = draft.rows
    facts = Facts(
        rows=rows,
        text=draft.text,
        placeholders=draft.placeholders,
        front=draft.front,
        label=draft.label,
        chars=chars,
        words=words,
        letters=sum(len(w) for w in words),
        math_chars=classes.count(MATH) + classes.count(GLYPH),
        mono=_mono_share(chars, classes),
        body_size=stats.body_size,
        seen=seen,
    )
    _, outcome = decide(facts)  # kind_rules.RULES: the first rule that holds decides
    if isinstance(outcome, ParagraphKind):
        draft.kind = outcome
    elif outcome is not None:
        draft.skip = outcome


def _mono_share(chars: str, classes: str) -> float:
    """The share of the block's characters (spaces aside) set monospaced, a meta-variable's
    brackets and name aside ("pandoc ⟨入力ファイル名⟩ -o ⟨出力ファイル名⟩.pdf": its name, in
    a CJK face, stands for what the user types; the line is code)."""
    total = code = 0
    meta = in_meta(chars, [kind == CODE for kind in classes])
    for char, kind, inside in zip(chars, classes, meta, strict=True):
        if not (char.isspace() or inside):
            total += 1
            code += kind == CODE
    return code / total if total else 0.0


def _keep_leader(draft: Draft) -> None:
    """A contents entry's leader and page number (``numbering.contents``) kept as they are:
    a placeholder after the entry's text, its original the leader as printed."""
    start = leader_start(draft.text)
    if start is None:
        return
    numbers = [int(k[2:-1]) for k in draft.placeholders if k[2:-1].isdigit()]
    key = f"{{v{max(numbers, default=0) + 1}}}"
    draft.placeholders[key] = draft.text[start:]
    draft.text = draft.text[:start] + key
    draft.states = [*draft.states[:start], *([None] * len(key))]


def _protected_states(
    chars: str, classes: str, styles: list[int], ranges: list[tuple[int, int]]
) -> list[int | None]:
    """The bold/italic mask of each character of ``protect``'s text for ``chars``: a
    placeholder, a space and math have none of their own (None)."""

    def state(i: int) -> int | None:
        char = chars[i]
        if char.isspace() or classes[i] in MATHS:
            return None
        code = styles[i] if i < len(styles) else 0
        return (BOLD if is_bold(code) else 0) | (ITALIC if is_italic(code) else 0)

    out: list[int | None] = []
    at = 0
    for number, (start, end) in enumerate(ranges, 1):
        out.extend(state(i) for i in range(at, start))
        out.extend([None] * len(f"{{v{number}}}"))
        at = end
    out.extend(state(i) for i in range(at, len(chars)))
    return out


def _collapsed(text: str, states: list[int | None]) -> tuple[str, list[int | None]]:
    """``text`` with runs of whitespace made one space and the ends stripped, and
    ``states`` kept in step with it."""
    chars: list[str] = []
    kept: list[int | None] = []
    for char, state in zip(text, states, strict=True):
        if char.isspace():
            if not chars or chars[-1] == " ":
                continue
            char, state = " ", None
        chars.append(char)
        kept.append(state)
    while chars and chars[-1] == " ":
        chars.pop()
        kept.pop()
    return "".join(chars), kept


def _formula_rects(
    boxes: list[Rect], bases: list[float], frame: Frame
) -> tuple[tuple[Rect, ...], tuple[float, ...]]:
    """Page rects of a formula's characters, one per line it runs over, and how far the
    bottom of each lies below its line's baseline. Characters of one row stay in one piece
    even when they step back left (a label stacked over an arrow)."""
    lines: list[list[Rect]] = []
    line_bases: list[float] = []
    for box, base in zip(boxes, bases, strict=True):
        if lines and base == line_bases[-1]:
            lines[-1].append(box)
        else:
            lines.append([box])
            line_bases.append(base)
    unions = [union(line) for line in lines]
    rects = tuple(frame.to_page(u) for u in unions)
    return rects, tuple(u[3] - base for u, base in zip(unions, line_bases, strict=True))
