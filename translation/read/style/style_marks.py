"""Style marks: bold and italic inside a paragraph carried through the request, and monospace
carried from the source to the page.

The text sent to the model wraps each stretch that is bold (italic) where the paragraph's body
is not in ``<b>...</b>`` (``<i>...</i>``), the way inline math is carried as ``{vN}``: a model
keeps such tags around the words they mark, so the style lands on the translated words, and a
run-in lead ends where its ``</b>`` is, whatever punctuation the answer has. Text of the source
that looks like a tag is sent as a placeholder (``translation.read.math.formulas.protect``), so
every
tag in an answer is one of ours.

:func:`to_marks` turns the tags of an answer into mark characters (private use, plane 16) that
stay in the restored text: a literal ``<b>`` put back from a placeholder is text, never a mark.
Code set in a monospaced font comes back from its placeholder between :data:`MONO_ON` and
:data:`MONO_OFF`. Marks have no glyph and no width; :func:`mark_states` reads the style of each
character from them. A passage cut over several boxes may leave a piece with a closing mark
and no opening one: its text from the start is in that style.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

BOLD, ITALIC, MONO = 1, 2, 4

BOLD_ON, BOLD_OFF = "\U0010fff0", "\U0010fff1"
ITALIC_ON, ITALIC_OFF = "\U0010fff2", "\U0010fff3"
MONO_ON, MONO_OFF = "\U0010fff4", "\U0010fff5"
_MARKS = {
    BOLD_ON: (BOLD, True),
    BOLD_OFF: (BOLD, False),
    ITALIC_ON: (ITALIC, True),
    ITALIC_OFF: (ITALIC, False),
    MONO_ON: (MONO, True),
    MONO_OFF: (MONO, False),
}
_TAGS = {BOLD: "b", ITALIC: "i"}

#: A style tag as sent, or as models write it back ("< b >", "<B>", "<strong>", "</ em>").
TAG_RE = re.compile(r"<\s*(/?)\s*(b|i|strong|em)\s*>", re.IGNORECASE)
_TAG_STYLE = {"b": BOLD, "strong": BOLD, "i": ITALIC, "em": ITALIC}


def is_mark(char: str) -> bool:
    return char in _MARKS


def marked(text: str, states: Sequence[int | None], body: int) -> str:
    """``text`` with tags around the stretches whose style (``states``: one per character,
    a ``BOLD | ITALIC`` mask, None for a character without a style of its own: a space, a
    placeholder, punctuation) adds bold or italic to the ``body``'s. A character without a
    style takes its neighbours' where both sides agree; a stretch holding no letter or digit
    (a bold comma, a dagger) is not marked."""
    if len(states) != len(text):
        raise ValueError("one state per character is needed")
    extra = [None if s is None else s & ~body & (BOLD | ITALIC) for s in states]
    # Characters without a style of their own take the style around them.
    filled: list[int] = [0] * len(text)
    prev: int | None = None
    for i, state in enumerate(extra):
        if state is not None:
            prev = state
            filled[i] = state
            continue
        after = next((s for s in extra[i + 1 :] if s is not None), None)
        filled[i] = prev if prev is not None and prev == after else 0
    # A styled stretch without a letter or digit stays plain.
    i = 0
    while i < len(text):
        j = i + 1
        while j < len(text) and filled[j] == filled[i]:
            j += 1
        if filled[i] and not any(c.isalnum() for c in text[i:j]):
            filled[i:j] = [0] * (j - i)
        i = j
    out: list[str] = []
    open_ = 0
    for char, state in zip(text, filled, strict=True):
        if state != open_:
            for flag in (ITALIC, BOLD):  # close inner first
                if open_ & flag:
                    out.append(f"</{_TAGS[flag]}>")
            for flag in (BOLD, ITALIC):
                if state & flag:
                    out.append(f"<{_TAGS[flag]}>")
            open_ = state
        out.append(char)
    for flag in (ITALIC, BOLD):
        if open_ & flag:
            out.append(f"</{_TAGS[flag]}>")
    # Spaces go outside the tags: "<b>Lead. </b>x" -> "<b>Lead.</b> x".
    text = re.sub(r"((?:<[bi]>)+)(\s+)", r"\2\1", "".join(out))
    return re.sub(r"(\s+)((?:</[bi]>)+)", r"\2\1", text)


def to_marks(answer: str) -> str:
    """``answer`` with its style tags turned into mark characters."""

    def mark(match: re.Match[str]) -> str:
        flag = _TAG_STYLE[match.group(2).lower()]
        closing = bool(match.group(1))
        if flag == BOLD:
            return BOLD_OFF if closing else BOLD_ON
        return ITALIC_OFF if closing else ITALIC_ON

    return TAG_RE.sub(mark, answer)


def without_tags(text: str) -> str:
    """``text`` as the reader sees it: no style tags."""
    return TAG_RE.sub("", text)


def without_marks(text: str) -> str:
    return "".join(c for c in text if c not in _MARKS)


def has_marks(text: str) -> bool:
    return any(c in _MARKS for c in text)


def styled_stretches(text: str) -> list[tuple[int, int]]:
    """(start, end) in ``text`` of each stretch in one bold/italic state other than plain,
    in order, marks included: the n-th stretch of an answer that kept its tags is the n-th
    of its source."""
    states = [s & (BOLD | ITALIC) for s in mark_states(text)]
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(text):
        j = i + 1
        while j < len(text) and states[j] == states[i]:
            j += 1
        if states[i] and any(not is_mark(c) for c in text[i:j]):
            out.append((i, j))
        i = j
    return out


def mark_states(text: str) -> list[int]:
    """The ``BOLD | ITALIC | MONO`` mask each character of ``text`` is in, read from its
    mark characters (a mark has the state it opens). A closing mark with no opening one
    before it puts the text before it in its style (the passage was cut inside the run)."""
    states = [0] * len(text)
    state = seen = 0
    for i, char in enumerate(text):
        found = _MARKS.get(char)
        if found is not None:
            flag, on = found
            if not on and not seen & flag:
                for k in range(i):  # the run began before this piece
                    states[k] |= flag
            seen |= flag
            state = state | flag if on else state & ~flag
        states[i] = state
    return states
