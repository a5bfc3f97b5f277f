"""translation.render.fonts: which font sets which character, and fitting text into a box."""

from __future__ import annotations

import pytest

from translation.read.style.style_marks import MONO, MONO_OFF, MONO_ON, is_mark, mark_states
from translation.render.fonts import FontChain, break_lines, fit, plain_char, tokenize


def width_of(unit: str) -> float:
    """A monospaced measure: 0.5 per character (1.0 for CJK), at size 1."""
    return sum(1.0 if ord(c) >= 0x3000 else 0.5 for c in unit)


def test_latin_and_hangul_break_at_spaces_han_and_kana_anywhere() -> None:
    assert tokenize("two words") == ["two", " ", "words"]
    assert tokenize("한국어 번역") == ["한국어", " ", "번역"]
    assert tokenize("中文翻译") == ["中", "文", "翻", "译"]
    assert tokenize("かな、カナ。") == ["か", "な、", "カ", "ナ。"]  # no line starts with 、。
    assert tokenize("「引用」です") == ["「引", "用」", "で", "す"]  # nor ends with 「


def test_lines_never_exceed_the_width() -> None:
    text = "a fairly long sentence that has to be broken over several short lines here"
    lines = break_lines(tokenize(text), 10.0, width_of)
    assert len(lines) > 2
    assert all(line.width <= 10.0 for line in lines)
    assert " ".join("".join(line.units) for line in lines) == text


def test_a_word_wider_than_the_line_is_cut() -> None:
    lines = break_lines(tokenize("supercalifragilistic"), 4.0, width_of)
    assert "".join("".join(line.units) for line in lines) == "supercalifragilistic"
    assert all(line.width <= 4.0 for line in lines)


def test_every_word_of_a_run_of_code_is_measured_monospaced() -> None:
    """The words of a monospaced run after its first, which carry no opening mark of their
    own, are measured as code too: a line of them is as wide as it is drawn."""

    def width(unit: str) -> float:  # code 1.0 a character, other text 0.5
        return sum(
            0.0 if is_mark(c) else 1.0 if state & MONO else 0.5
            for c, state in zip(unit, mark_states(unit), strict=True)
        )

    text = f"see {MONO_ON}aa bb cc dd{MONO_OFF} end"
    lines = break_lines(tokenize(text), 6.0, width)
    assert [("".join(line.units), line.width) for line in lines] == [
        (f"see {MONO_ON}aa", 4.0),
        ("bb cc", 4.5),
        (f"dd{MONO_OFF} end", 4.0),
    ]


def test_fit_keeps_the_size_when_the_text_fits() -> None:
    fitted = fit("short", width=100, height=20, size=10, leading=1.2, measure=width_of)
    assert fitted.size == 10 and fitted.fits and len(fitted.lines) == 1


def test_fit_shrinks_until_the_lines_fit_the_box() -> None:
    text = " ".join(["word"] * 60)
    fitted = fit(text, width=100, height=40, size=10, leading=1.2, measure=width_of)
    assert fitted.fits and fitted.size < 10
    used = fitted.size * (1.0 + (len(fitted.lines) - 1) * fitted.leading)
    assert used <= 40 + 0.01
    assert all(line.width * fitted.size <= 100 + 1e-6 for line in fitted.lines)


def test_fit_cuts_what_cannot_fit_even_at_the_smallest_size() -> None:
    fitted = fit("x " * 500, width=10, height=5, size=10, leading=1.2, measure=width_of)
    assert not fitted.fits
    assert fitted.size * (1.0 + (len(fitted.lines) - 1) * fitted.leading) <= 5 + 0.01


@pytest.mark.parametrize(("lang", "first"), [("ko", "cjk"), ("zh-CN", "cjk"), ("de", "serif")])
def test_the_chain_starts_with_the_target_script_font(lang: str, first: str) -> None:
    chain = FontChain(lang)
    assert chain.names[0] == first
    assert chain.index("가") >= 0 and chain.index("中") >= 0 and chain.index("é") >= 0


def test_math_symbols_fall_back_to_the_math_font() -> None:
    chain = FontChain("ko")
    assert chain.names[chain.index("∑")] in ("cjk", "math")
    assert chain.names[chain.index("⟨")] == "math"  # Droid Sans Fallback lacks it
    assert chain.index("\U000f0001") == -1  # nothing draws a private-use mark
    assert chain.advance("가") > 0


def test_math_letters_are_set_as_plain_italic_letters() -> None:
    assert plain_char("𝑥") == ("x", True)
    assert plain_char("𝜃") == ("θ", False)
    assert plain_char("a") == ("a", False)
    chain = FontChain("ko")
    assert chain.names[chain.index("𝑥")] == "italic"
