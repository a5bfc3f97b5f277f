"""Passages: what is sent to the model as one request, and how its answer goes back to the
boxes it came from.

A passage is a paragraph whose pieces sit in several boxes (``translation.read.flow.links``): its
text is the pieces' texts joined as one paragraph (a word cut by a hyphen at a box's end made
whole again, a compound keeping its hyphen), with a placeholder where a display equation
interrupts it or a list item's label stands. A paragraph that is not cut is a passage of one
piece, its text unchanged.

The answer is cut back into one text per piece: at each such placeholder where the model kept
it (the equation itself stays on the page, untouched; the label is put back by
``translation.read.math.formulas.restore``), and elsewhere in
proportion to how much of the source each box held, at a word boundary (between two characters
in Chinese or Japanese), keeping each piece's own placeholders on its side where the model left
them in order. Every word of the answer goes to exactly one piece.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from translation.read.math.formulas import MANGLED_RE, PLACEHOLDER_RE, restore
from translation.read.paragraph import Paragraph
from translation.read.words.lexicon import joins_at_break
from translation.read.words.word import hangul_cut

_WIDE_RE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")
# Punctuation that never opens a line or a box (it stays with the character before it).
_NO_START = set("、。，．！？：；）」』】〕》〉…・ー,.!?:;)]}%")


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
    text = PLACEHOLDER_RE.sub(lambda m: piece.placeholders.get(m.group(0), ""), piece.text)
    return max(1, len(" ".join(text.split())))


def _spread(text: str, pieces: Sequence[Paragraph]) -> list[str]:
    """``text`` cut into ``len(pieces)`` parts in proportion to the pieces' weights."""
    text = text.strip()
    if len(pieces) == 1:
        return [text]
    bounds = _boundaries(text)
    weights = [_weight(p) for p in pieces]
    total = sum(weights)
    keys = [_own_keys(text, piece) for piece in pieces]
    parts: list[str] = []
    start = 0
    for index in range(1, len(pieces)):
        target = len(text) * sum(weights[:index]) / total
        # Each piece's placeholders stay on its side, where the model kept them in order.
        low = max([start, *(end for k in keys[:index] for _, end in k)])
        high = min([len(text), *(begin for k in keys[index:] for begin, _ in k)])
        allowed = [b for b in bounds if b >= start and (low <= b <= high or low > high)]
        cut = min(allowed, key=lambda b: abs(b - target), default=len(text))
        parts.append(text[start:cut].strip())
        start = cut
    parts.append(text[start:].strip())
    return parts


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
