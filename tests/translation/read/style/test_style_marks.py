"""Style marks: bold and italic carried through the request as tags, back as marks; a literal
tag of the source stays text; a passage split over its pieces keeps the style on both sides."""

from __future__ import annotations

from tests.fakes.pseudo import pseudo_translate
from translation.read.flow.passage import Passage
from translation.read.math.formulas import protect, restore
from translation.read.paragraph import Paragraph
from translation.read.style.paragraph_style import style_code
from translation.read.style.style_marks import (
    BOLD,
    BOLD_OFF,
    BOLD_ON,
    ITALIC,
    MONO,
    mark_states,
    marked,
    to_marks,
    without_marks,
)
from translation.render.typeset import char_styles

BOLD_CODE = style_code(0, True, False)
PLAIN = style_code(0, False, False)


def _para(
    text: str,
    ident: str = "p0-b1",
    placeholders: dict[str, str] | None = None,
    **kw: object,
) -> Paragraph:
    box = (0.0, 0.0, 300.0, 40.0)
    return Paragraph(ident, 0, text, placeholders or {}, box, (), 10.0, **kw)  # type: ignore[arg-type]


def test_styled_stretches_are_tagged_and_spaces_stay_outside() -> None:
    text = "Lead. The word x is new"
    looks = {"Lead.": BOLD, "word": ITALIC}
    states: list[int | None] = []
    for word in text.split(" "):
        states += [None] if states else []
        states += [looks.get(word, 0)] * len(word)
    assert marked(text, states, body=0) == "<b>Lead.</b> The <i>word</i> x is new"
    # The body's own style is not tagged; a styled stretch without letters is not either.
    assert marked("ab, cd", [BOLD, BOLD, BOLD, None, BOLD, BOLD], body=BOLD) == "ab, cd"
    assert marked("ab , cd", [0, 0, None, BOLD, None, 0, 0], body=0) == "ab , cd"


def test_tags_of_the_answer_become_marks_even_as_models_write_them() -> None:
    assert to_marks("<b>x</b> < I >y</ i> <strong>z</STRONG>") == (
        f"{BOLD_ON}x{BOLD_OFF} \U0010fff2y\U0010fff3 {BOLD_ON}z{BOLD_OFF}"
    )
    states = mark_states(to_marks("a<b>bc</b>d"))
    assert [s & BOLD for s in states] == [0, BOLD, BOLD, BOLD, 0, 0]


def test_a_literal_tag_of_the_source_is_sent_as_a_placeholder_and_comes_back_as_text() -> None:
    chars = "use <b> for bold"
    text, originals, _ = protect(chars, "t" * len(chars))
    assert "<b>" not in text and list(originals.values()) == ["<b>"]
    para = _para(text, placeholders=originals)
    back = restore(pseudo_translate(text, "ko"), para)
    assert "<b>" in back and BOLD_ON not in back


def test_code_comes_back_between_monospace_marks() -> None:
    para = _para("set {v1} off", placeholders={"{v1}": "use_idf"}, code_formulas={"{v1}"})
    back = restore("{v1} 끄기", para)
    assert without_marks(back) == "use_idf 끄기"
    states = mark_states(back)
    assert all(s & MONO for s, c in zip(states, back, strict=True) if c in "use_idf")
    assert not states[back.index("끄")] & MONO


def test_a_bold_run_cut_between_two_pieces_stays_bold_on_both_sides() -> None:
    """A passage split over two boxes inside a bold run: the second piece gets a closing tag
    with no opening one, and its text up to it is bold."""
    first = _para("<b>Very long bold", "p0-b1", passage="p0-b1")
    second = _para("lead.</b> Then plain text", "p1-b1", passage="p0-b1")
    passage = Passage("<b>Very long bold lead.</b> Then plain text", (first, second))
    answer = pseudo_translate(passage.text, "ko")
    split = zip(passage.pieces, passage.split(answer), strict=True)
    parts = [restore(part, piece) for piece, part in split]
    assert len(parts) == 2 and parts[1].count(BOLD_OFF) == 1
    for piece, part in zip((first, second), parts, strict=True):
        codes = char_styles(piece, part)
        words = [i for i, c in enumerate(part) if c.isalpha()]
        bold_end = part.find(BOLD_OFF) if BOLD_OFF in part else len(part)
        assert all(codes[i] == BOLD_CODE for i in words if i < bold_end)
        assert all(codes[i] == PLAIN for i in words if i > bold_end)
