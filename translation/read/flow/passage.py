"""Passages: what is sent to the model as one request, and how its answer goes back to the
boxes it came from.

A passage is a paragraph whose pieces sit in several boxes (``translation.read.flow.links``): its
text is the pieces' texts joined as one paragraph (a word cut by a hyphen at a box's end made
whole again, a compound keeping its hyphen), with a placeholder where a display equation
interrupts it or a list item's label stands. A paragraph that is not cut is a passage of one
piece, its text unchanged.

The answer is cut back into one text per piece: at each such placeholder where the model kept
it (the equation itself stays on the page, untouched; the label is put back by
``translation.read.math.formulas.restore``), and elsewhere by sentence, keeping each piece's own
placeholders on its side where the model left them in order. Every word of the answer goes to
exactly one piece. Between two boxes the cut is, first that holds:

1. the answer's sentence end that matches the source's: when the answer has as many sentences as
   the source, the sentence a box boundary cuts in the source goes, whole, to the box that held
   most of it;
2. the answer's sentence end nearest the point where the boxes' shares of the source meet;
3. its nearest clause end (comma, semicolon, colon, their CJK forms);
4. its nearest word boundary (between two characters in Chinese or Japanese): a single long
   sentence without a comma, split over two columns.

An end is taken only within :data:`SHARE_SLACK` (of the smaller box's share) of the meeting
point, so a box is never handed much more text than it held: it would be set smaller than the
paragraphs beside it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from translation.read.math.formulas import MANGLED_RE, PLACEHOLDER_RE, restore
from translation.read.paragraph import Paragraph
from translation.read.words.lexicon import joins_at_break
from translation.read.words.sentences import clause_ends, sentence_ends
from translation.read.words.word import hangul_cut

_WIDE_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
# Punctuation that never opens a line or a box (it stays with the character before it).
_NO_START = set("、。，．！？：；）」』】〕》〉…・ー,.!?:;)]}%")
#: How far a sentence or clause end may lie from the point where the boxes' shares of the
#: source meet and still be the cut, as a part of the smaller box's share: a box given a tenth
#: more than it held is set about 5 % smaller, as close as its neighbours' sizes agree.
SHARE_SLACK = 0.1
#: A matched sentence end (rule 1) may lie a little further off: it is the right cut.
MATCHED_SLACK = 0.15


@dataclass(frozen=True, slots=True)
class Passage:
    """One request: ``text`` is what the model reads; ``pieces`` are the paragraphs it is set
    in, in reading order."""

    text: str
    pieces: tuple[Paragraph, ...]

    def split(self, answer: str) -> list[str]:
        """The answer cut into one text per piece (placeholders still in; the
        placeholders between pieces taken out). See the module doc."""
        if len(self.pieces) == 1:
            return [answer]
        cuts = _break_cuts(answer, self.pieces)
        parts: list[str] = []
        start, first = 0, 0
        for index, (begin, end) in sorted(cuts.items()):
            parts.extend(_spread(answer[start:begin], self.pieces[first:index]))
            start, first = end, index
        parts.extend(_spread(answer[start:], self.pieces[first:]))
        return parts


def passages(paragraphs: Sequence[Paragraph]) -> list[Passage]:
    """The requests for ``paragraphs``, in the order of each passage's first piece."""
    groups: dict[str, list[Paragraph]] = {}
    for paragraph in paragraphs:
        groups.setdefault(paragraph.passage or f"\0{paragraph.id}", []).append(paragraph)
    return [Passage(_joined(group), tuple(group)) for group in groups.values()]


def translated(paragraphs: Sequence[Paragraph], translate: Callable[[str], str]) -> dict[str, str]:
    """Each paragraph's final text (placeholders restored) when every passage of
    ``paragraphs`` is translated by ``translate`` (a benchmark's or a test's translator; the
    pipeline does the same with the model, the cache and the glossary)."""
    out: dict[str, str] = {}
    for passage in passages(paragraphs):
        for piece, part in zip(passage.pieces, passage.split(translate(passage.text)), strict=True):
            out[piece.id] = restore(part, piece)
    return out


def _joined(pieces: Sequence[Paragraph]) -> str:
    text = pieces[0].text
    for piece in pieces[1:]:
        after = piece.text.lstrip()
        if piece.break_before:
            text = f"{text.rstrip()} {piece.break_before} {after}"
        elif pair := hyphen_break(text, after):
            broken = joins_at_break(*pair) if piece.hyphen_joins is None else piece.hyphen_joins
            text = (text[:-1] if broken else text) + after
        elif _WIDE_RE.match(text[-1:]) and _WIDE_RE.match(after[:1]) or hangul_cut(text, after):
            text += after  # no space inside a word (Korean wraps inside words)
        else:
            text = f"{text.rstrip()} {after}"
    return text


def hyphen_break(text: str, after: str) -> tuple[str, str] | None:
    """The letters before and after a hyphen that ends ``text`` where the next piece's text
    ``after`` goes on with letters (a line-end hyphen between two boxes); None otherwise."""
    if not (re.search(r"[^\W\d_][-\u2010]$", text) and after[:1].isalpha()):
        return None
    before = re.search(r"[^\W\d_]+(?=.$)", text)
    word = re.match(r"[^\W\d_]*", after)
    return (before.group(), word.group()) if before and word else None


def _break_cuts(answer: str, pieces: Sequence[Paragraph]) -> dict[int, tuple[int, int]]:
    """Piece index -> (start, end) in ``answer`` of the placeholder before that piece,
    for the placeholders the model kept once each, in order."""
    found: dict[str, list[re.Match[str]]] = {}
    for match in MANGLED_RE.finditer(answer):
        found.setdefault(f"{{v{int(match.group(1) or match.group(2))}}}", []).append(match)
    cuts: dict[int, tuple[int, int]] = {}
    last = -1
    for index, piece in enumerate(pieces):
        matches = found.get(piece.break_before, []) if piece.break_before else []
        if len(matches) == 1 and matches[0].start() >= last:
            cuts[index] = (matches[0].start(), matches[0].end())
            last = matches[0].end()
    return cuts


def _weight(piece: Paragraph) -> int:
    """How much of the source the piece's box held: its characters, formulas as printed."""
    return max(1, len(" ".join(_printed(piece).split())))


def _spread(text: str, pieces: Sequence[Paragraph]) -> list[str]:
    """``text`` cut into ``len(pieces)`` parts, by sentence (the module docstring's rules)."""
    text = text.strip()
    if len(pieces) == 1:
        return [text]
    bounds = _boundaries(text)
    weights = [_weight(p) for p in pieces]
    total = sum(weights)
    keys = [_own_keys(text, piece) for piece in pieces]
    inside = {i for m in MANGLED_RE.finditer(text) for i in range(m.start() + 1, m.end())}
    sentences = [e for e in sentence_ends(text) if e not in inside]
    clauses = [e for e in clause_ends(text) if e not in inside]
    matched = _matched_ends(text, sentences, pieces)
    parts: list[str] = []
    start = 0
    for index in range(1, len(pieces)):
        # Each piece's placeholders stay on its side, where the model kept them in order.
        low = max([start, *(end for k in keys[:index] for _, end in k)])
        high = min([len(text), *(begin for k in keys[index:] for begin, _ in k)])
        share = [len(text) * sum(weights[:i]) / total for i in (index - 1, index, index + 1)]
        room = min(share[1] - share[0], share[2] - share[1])  # the smaller box's share
        window = _Window(share[1], start, low, high, len(text), room)
        cut = _first_cut(window, matched[index - 1] if matched else None, sentences, clauses)
        if cut is None:
            cut = min(
                (b for b in bounds if window.holds(b)),
                key=lambda b: abs(b - window.target),
                default=len(text),
            )
        parts.append(text[start:cut].strip())
        start = cut
    parts.append(text[start:].strip())
    return parts


@dataclass(frozen=True, slots=True)
class _Window:
    """Where one cut between two pieces may fall: after ``start`` and between ``low`` and
    ``high`` (the pieces' placeholders), near ``target`` (where their source shares meet)."""

    target: float
    start: int
    low: int
    high: int
    length: int
    #: The share of the smaller of the two boxes (characters): the slack is a part of it.
    room: float

    def holds(self, cut: int) -> bool:
        return cut >= self.start and (self.low <= cut <= self.high or self.low > self.high)

    def near(self, cut: int, slack: float) -> bool:
        inner = self.start < cut < self.length
        return inner and self.holds(cut) and abs(cut - self.target) <= slack * self.room


def _first_cut(
    window: _Window, matched: int | None, sentences: list[int], clauses: list[int]
) -> int | None:
    """Rules 1-3 of the module docstring; None leaves rule 4 (a word boundary)."""
    if matched is not None and window.near(matched, MATCHED_SLACK):
        return matched
    for ends in (sentences, clauses):
        near = [b for b in ends if window.near(b, SHARE_SLACK)]
        if near:
            return min(near, key=lambda b: abs(b - window.target))
    return None


def _matched_ends(text: str, ends: list[int], pieces: Sequence[Paragraph]) -> list[int] | None:
    """Rule 1 of the module docstring: for each boundary between two pieces, the answer's
    sentence end that matches the source's; None when the answer and the source do not have
    the same number of sentences."""
    sources = [" ".join(_printed(piece).split()) for piece in pieces]
    source = " ".join(sources)
    source_ends = sentence_ends(source)
    if len(source_ends) != len(ends) or not ends:
        return None
    starts = [0, *source_ends, len(source)]
    matched = []
    offset = 0
    for own in sources[:-1]:
        offset += len(own) + 1  # where the next piece begins in ``source``
        # The source sentence the boundary falls in: index ``k`` spans starts[k]..starts[k+1].
        k = max(i for i, begin in enumerate(starts[:-1]) if begin <= offset)
        before, after = offset - starts[k], starts[k + 1] - offset
        whole = k if after >= before else k + 1  # sentences before the cut in the answer
        matched.append(0 if whole == 0 else len(text) if whole > len(ends) else ends[whole - 1])
    return matched


def _printed(piece: Paragraph) -> str:
    """The piece's text with its formulas as printed (how much of the box they take)."""
    return PLACEHOLDER_RE.sub(lambda m: piece.placeholders.get(m.group(0), ""), piece.text)


def _own_keys(text: str, piece: Paragraph) -> list[tuple[int, int]]:
    return [
        (m.start(), m.end())
        for m in MANGLED_RE.finditer(text)
        if f"{{v{int(m.group(1) or m.group(2))}}}" in piece.placeholders
    ]


def _boundaries(text: str) -> list[int]:
    """Where ``text`` may be cut: before each word after a space, and between two Chinese or
    Japanese characters; never inside a placeholder."""
    inside = {i for m in MANGLED_RE.finditer(text) for i in range(m.start() + 1, m.end())}
    bounds = []
    for i in range(1, len(text)):
        if i in inside or text[i] in _NO_START:
            continue
        if text[i - 1].isspace() and not text[i].isspace():
            bounds.append(i)
        elif _WIDE_RE.match(text[i - 1]) and _WIDE_RE.match(text[i]):
            bounds.append(i)
    return bounds
