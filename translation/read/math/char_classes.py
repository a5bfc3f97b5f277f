"""Character classes of a paragraph's text beyond what each glyph's font says: letters in a
text face that belong to the math around them (a variable's name glued to its subscript, the
"e" of 5.8e−3, an accent over a math letter), and TeX's spacing accents composed with their
letters ("F¨arber" reads "Färber"). Pure."""

from __future__ import annotations

import re
import unicodedata

from translation.read.layout import Rect, union
from translation.read.math.formulas import GLYPH, MATH, NEUTRAL, TEXT


def with_math_letters(chars: str, classes: str) -> str:
    """``classes`` with the text-face letters that belong to the math around them made math:
    see ``_absorb_variables``, ``_exponents`` and ``_math_accents``."""
    return _math_accents(chars, _exponents(chars, _absorb_variables(chars, classes)))


def _absorb_variables(chars: str, classes: str) -> str:
    """Letters in a text font glued to math set in a math font are part of the formula: a
    bold vector name before its subscript ("x" + "k"), a name between math glyphs ("; lm ^").
    Only runs of one or two letters of an alphabet: a word with a footnote mark stays a word,
    and so do Hangul and Han, where one or two characters make a word ("상해" + "1)")."""
    marks = list(classes)
    i, n = 0, len(chars)
    while i < n:
        if not (marks[i] == TEXT and _variable_letter(chars[i])):
            i += 1
            continue
        j = i
        while j < n and marks[j] == TEXT and _variable_letter(chars[j]):
            j += 1
        glued = (j < n and marks[j] == GLYPH) or (i > 0 and marks[i - 1] == GLYPH)
        after = next((k for k in range(j, n) if not chars[k].isspace()), n)
        before = next((k for k in range(i - 1, -1, -1) if not chars[k].isspace()), -1)
        between = after < n and before >= 0 and marks[after] == marks[before] == GLYPH
        if j - i <= 2 and (glued or between):
            marks[i:j] = [GLYPH] * (j - i)
        i = j
    return "".join(marks)


_EXPONENT_RE = re.compile(r"(?<=\d)\s?[eE](?=\s?[−\-+]?\s?\d)")


def _exponents(chars: str, classes: str) -> str:
    """The "e" of a number in scientific notation inside math ("p = 2.2e−16", the "e" set in
    the text face) is math: sent alone it reads as a word."""
    marks = list(classes)
    for match in _EXPONENT_RE.finditer(chars):
        at = match.end() - 1
        # The math the number belongs to: the first class before it that is not a digit's,
        # a point's or a space's (those are neutral, joined to the math around them).
        k = match.start() - 1
        while (
            k >= 0
            and classes[k] == NEUTRAL
            and (chars[k] in "0123456789.,= " or chars[k].isspace())
        ):
            k -= 1
        if marks[at] == TEXT and k >= 0 and classes[k] in (MATH, GLYPH):
            marks[at] = classes[k]
    return "".join(marks)


#: TeX's accents set as glyphs of their own before their letter ("F¨arber", "Mitrovi´c"):
#: the combining mark each stands for.
_SPACING_ACCENTS = {
    "´": "\u0301", "`": "\u0300", "¨": "\u0308", "ˆ": "\u0302", "˜": "\u0303",
    "˘": "\u0306", "ˇ": "\u030c", "¸": "\u0327", "˙": "\u0307", "¯": "\u0304", "˚": "\u030a",
}  # fmt: skip


def composed(
    chars: str, classes: str, boxes: list[Rect], bases: list[float], styles: list[int]
) -> tuple[str, str, list[Rect], list[float], list[int]]:
    """A paragraph's characters (with their classes, boxes, baselines and styles) where a
    spacing accent right before a letter, with a precomposed character for the pair, becomes
    that character ("F¨arber" reads "Färber"): sent apart, the accent cuts the word in two.
    The character takes the letter's class, baseline and style and the pair's box."""
    if not any(c in _SPACING_ACCENTS for c in chars):
        return chars, classes, boxes, bases, styles
    out: list[tuple[str, int, Rect]] = []  # (character, index of its letter, box)
    i = 0
    while i < len(chars):
        mark = _SPACING_ACCENTS.get(chars[i])
        pair = chars[i + 1 : i + 2]
        if mark and pair.isalpha() and (i == 0 or not chars[i - 1].isdigit()):
            joined = unicodedata.normalize("NFC", pair + mark)
            if len(joined) == 1:
                out.append((joined, i + 1, union([boxes[i], boxes[i + 1]])))
                i += 2
                continue
        out.append((chars[i], i, boxes[i]))
        i += 1
    return (
        "".join(c for c, _, _ in out),
        "".join(classes[k] for _, k, _ in out),
        [box for _, _, box in out],
        [bases[k] for _, k, _ in out],
        [styles[k] for _, k, _ in out],
    )


def _math_accents(chars: str, classes: str) -> str:
    """A spacing accent set in the text face right after a math letter ("𝑥" + "˜": x̃, the
    median) is the formula's: sent alone it reads as a character of the text."""
    marks = list(classes)
    for i, char in enumerate(chars):
        if char in _SPACING_ACCENTS and marks[i] == TEXT:
            k = i - 1
            if k >= 0 and chars[k] == " ":
                k -= 1
            if k >= 0 and classes[k] in (MATH, GLYPH):
                marks[i] = classes[k]
    return "".join(marks)


def _variable_letter(char: str) -> bool:
    """A letter that can name a variable: Latin, Greek or Cyrillic (not Hangul, kana or Han)."""
    return char.isalpha() and ord(char) < 0x1100
