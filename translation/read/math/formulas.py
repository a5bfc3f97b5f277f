"""Math protection: character classes, placeholders for inline math and URLs, and restoring
them after translation.

Inline math and symbols (math fonts, math Unicode, Greek, sub/superscripts), URLs, e-mail
addresses and TeX commands named in a sentence become placeholders ``{v1}``, ``{v2}``...
(:data:`PLACEHOLDER_RE`) that :func:`restore` puts back after translation.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Sequence

from translation.read.math.operator_names import OPERATOR_NAMES
from translation.read.paragraph import Paragraph
from translation.read.style.style_marks import MONO_OFF, MONO_ON, TAG_RE, to_marks

#: A placeholder as sent to the LLM: ``{v1}``, ``{v2}``... (the pdf2zh convention).
PLACEHOLDER_RE = re.compile(r"\{v(\d+)\}")

# What models make of a placeholder: "{ v1 }", "{V1}", "{{v1}}", full-width braces, "v1}", "{v1".
MANGLED_RE = re.compile(
    r"[{｛](?:\s*[{｛])?\s*[vV]\s*(\d+)(?:\s*[}｝])?(?:\s*[}｝])?"
    r"|(?<![A-Za-z0-9])[vV]\s*(\d+)\s*[}｝]{1,2}"
)


# --- character classes and placeholders -----------------------------------------------------

# TeX's math faces by their names; a package's variant of one keeps the name after a short
# prefix of its own (yhmath's extension font, "yhcmex").
_MATH_FONT_RE = re.compile(
    r"^([a-z]{0,2}CM(MI|SY|EX|BSY|MIB)|MSAM|MSBM|EUFM|EUSM|EUEX|RSFS|LMMath|"
    r"MT(MI|SY|EX)|MT2(MI|SY|EX|MS|BS|BE)|TX(MI|SY|EX)|PX(MI|SY|EX)|rtx(mi|sy|ex)|"
    r"NewTXMI|ztmcm|esint|wasy|stmary|Asana|XITSMath|STIX.*Math|.*Math|Symbol|Euclid|"
    r"MathematicalPi|Mathematica)",
    re.IGNORECASE,
)
# Computer Modern text fonts: math in a paper set in Times, text in a paper set in CM.
CM_TEXT_FONT_RE = re.compile(r"^(CMR|CMBX|CMTI|CMSL|CMSS|CMCSC|SFRM|LMRoman)", re.IGNORECASE)
_SUBSET_PREFIX_RE = re.compile(r"^[A-Z]{6}\+")

_MATH_RANGES = (
    (0x0370, 0x03FF),  # Greek
    (0x1D00, 0x1DBF),  # phonetic extensions (math modifiers)
    (0x1F00, 0x1FFF),  # Greek extended
    (0x2032, 0x2037),  # primes
    (0x2070, 0x209F),  # super- and subscripts
    (0x20D0, 0x20FF),  # combining marks for symbols
    (0x2100, 0x214F),  # letterlike (ℝ, ℓ, ℕ)
    (0x2190, 0x21FF),  # arrows
    (0x2200, 0x22FF),  # mathematical operators
    (0x2300, 0x23FF),  # misc technical (⌈ ⌉ ⌊ ⌋)
    (0x25A0, 0x25FF),  # geometric shapes
    (0x27C0, 0x27FF),
    (0x2900, 0x2AFF),
    (0x1D400, 0x1D7FF),  # mathematical alphanumerics
    (0xE000, 0xF8FF),  # private use: unmapped glyphs of math fonts
    (0xFFFD, 0xFFFD),  # a glyph without Unicode (math fonts without ToUnicode)
)
_MATH_LATIN1 = set("±×÷¬²³¹µ·∗")
_NEUTRAL_CHARS = set("0123456789()[]{}=+-−/,.:;'|<>!*^_~%&")
_LITERAL_SYMBOLS = set("•◦▪‣●○■□◆◇†‡§¶*")  # bullets and footnote marks: plain text for the LLM
# URLs, e-mail addresses, and e-mails of several people in braces ("{ann,bob}@x.org"). A
# URL's last piece, a file name, may follow a space: TeX draws "\_" as a rule, which leaves a
# gap ("https://www.sbert.net/docs/pretrained models.html"), and a break may fall there.
_URL_RE = re.compile(
    r"(?:https?://|www\.)[^\s)\]}>,;]+[^\s)\]}>,;.]"
    r"(?:\s[\w-]+\.(?:html?|php|aspx?|pdf|md|txt|json|xml|ipynb|py)\b)?"
    r"|\{\s*[\w.+-]+(?:\s*[,;|]\s*[\w.+-]+)*\s*\}\s*@[\w-]+(?:\.[\w-]+)+"
    r"|[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
    # An address's owner named after it: "roisin@uclouvain.be (Nicolas Roisin)".
    r"(?:\s\((?:[A-Z][\w'’-]+\s){1,3}[A-Z][\w'’-]+\))?"
)
#: A TeX command named in a text ("\\listoffigures", "\\nocite{*}", "\\setCJKmainfont"), with
#: the arguments glued to it that hold no space and no CJK word: kept as a placeholder, so a
#: sentence that names commands (in any script) is sent without them being translated.
COMMAND_RE = re.compile(
    r"\\[A-Za-z@]+\*?(?:\{[^{}\s\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]*\}"
    r"|\[[^\[\]\s\u3040-\u30ff\u3400-\u9fff\uac00-\ud7a3]*\])*"
)
# Ligatures, and the bullets of the Symbol font that arrive as private-use characters.
LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
LIGATURES |= {"\uf0b7": "•", "\uf0a7": "▪"}
_PAIRS = (("(", ")"), ("[", "]"), ("{", "}"))

MATH, NEUTRAL, TEXT = "m", "n", "t"
#: Math set in a math font or as a sub/superscript: its text cannot be trusted (TeX and MathTime
#: fonts map glyphs to wrong Unicode, "=" reads "D") nor re-typeset flat, so the renderer copies
#: the original glyphs of a formula holding any such character.
GLYPH = "g"
MATHS = (MATH, GLYPH)
#: Code set in a monospaced font (identifiers, code, URLs): never translated, restored as text.
CODE = "c"
_KEPT = (MATH, GLYPH, CODE)


def _is_math_char(char: str) -> bool:
    if char in _MATH_LATIN1:
        return True
    code = ord(char)
    return any(lo <= code <= hi for lo, hi in _MATH_RANGES)


def font_base(name: str) -> str:
    """The font name without a subset prefix (``ABCDEF+CMMI10`` -> ``CMMI10``)."""
    return _SUBSET_PREFIX_RE.sub("", name)


def is_math_font(name: str, cm_is_math: bool = False) -> bool:
    """Whether text in font ``name`` is math (``cm_is_math``: the document's text is not set
    in Computer Modern, so CMR and friends only appear in formulas)."""
    base = font_base(name)
    if _MATH_FONT_RE.match(base):
        return True
    return cm_is_math and bool(CM_TEXT_FONT_RE.match(base))


def is_literal_symbol(char: str) -> bool:
    """A bullet or a footnote mark: plain text for the LLM (``char_class``), in any face."""
    return char in _LITERAL_SYMBOLS


@functools.cache  # asked for every character read; a page holds a few hundred distinct ones
def char_class(char: str, span_is_math: bool) -> str:
    if char.isspace():
        return NEUTRAL
    if unicodedata.category(char) in ("Cc", "Co"):
        # A glyph with no text of its own (a dingbat font's circled digit read as its code,
        # 05 p20: "group name (1)" lost its marker): kept as drawn, like a formula's glyph.
        return GLYPH
    if char in _LITERAL_SYMBOLS:
        return TEXT
    if span_is_math:
        return GLYPH
    if _is_math_char(char):
        return MATH
    if char in _NEUTRAL_CHARS:
        return NEUTRAL
    return TEXT


def protect(chars: str, classes: str) -> tuple[str, dict[str, str], list[tuple[int, int]]]:
    """Replace math runs, code, URLs and TeX commands in ``chars`` with placeholders.

    ``classes`` holds one class per character: ``m`` or ``g`` (math), ``c`` (code), ``n``
    (neutral: digits, spaces, operators, brackets, punctuation) or ``t`` (text). A math run is a
    stretch of math, code and neutral characters holding at least one math or code character,
    narrowed to its math characters
    plus the brackets they open or close and digits glued to them. Text that looks like a
    placeholder or a style tag (``translation.read.style.style_marks``) is protected too, so it can
    never be mistaken for one. Returns the text, the
    placeholders (in order) and the (start, end) character range of each.
    """
    if len(chars) != len(classes):
        raise ValueError("one class per character is needed")
    marks = list(classes)
    for pattern in (_URL_RE, MANGLED_RE, TAG_RE, COMMAND_RE):
        for match in pattern.finditer(chars):
            marks[match.start() : match.end()] = [MATH] * (match.end() - match.start())
    _operators_into_math(chars, marks)
    out: list[str] = []
    originals: dict[str, str] = {}
    ranges: list[tuple[int, int]] = []
    i, n = 0, len(chars)
    while i < n:
        if marks[i] == TEXT:
            out.append(chars[i])
            i += 1
            continue
        j = i
        while j < n and marks[j] != TEXT:
            j += 1
        if not any(mark in _KEPT for mark in marks[i:j]):
            out.append(chars[i:j])
            i = j
            continue
        start, end = _trim_run(chars, i, j, marks)
        out.append(chars[i:start])
        key = f"{{v{len(originals) + 1}}}"
        originals[key] = chars[start:end]
        ranges.append((start, end))
        out.append(key)
        out.append(chars[end:j])
        i = j
    return "".join(out), originals, ranges


def _operators_into_math(chars: str, marks: list[str]) -> None:
    """An operator name (``translation.read.math.operator_names``) of a formula is part of it:
    one glued to the formula's math (``8√log(d)``, ``argmin_θ``: no space between, an opening
    bracket at most), or with math on both sides across nothing but spaces and operators
    (``x = log y``). The word itself is text ("the log of the data" stays words)."""
    n, end = len(chars), 0
    while end < n:
        start = end
        while end < n and chars[end].isalpha() and marks[end] == TEXT:
            end += 1  # a word of text: its letters (a formula's letters are classed apart)
        if end == start:
            end += 1
            continue
        if chars[start:end] not in OPERATOR_NAMES:
            continue
        right = end
        while right < n and chars[right] in "([" and marks[right] not in MATHS:
            right += 1
        glued = (start > 0 and marks[start - 1] in MATHS) or (right < n and marks[right] in MATHS)
        if glued or (_math_beside(marks, start - 1, -1) and _math_beside(marks, end, 1)):
            marks[start:end] = [MATH] * (end - start)


def _math_beside(marks: Sequence[str], at: int, step: int) -> bool:
    """Whether the first mark from ``at`` on (going ``step``) that is not neutral is math."""
    while 0 <= at < len(marks) and marks[at] == NEUTRAL:
        at += step
    return 0 <= at < len(marks) and marks[at] in MATHS


def _trim_run(chars: str, start: int, end: int, marks: Sequence[str]) -> tuple[int, int]:
    """Narrow a run to its math characters plus what belongs to them: brackets they open or
    close and digits glued to them (not surrounding spaces and sentence punctuation)."""
    first = next(i for i in range(start, end) if marks[i] in _KEPT)
    last = next(i for i in range(end - 1, start - 1, -1) if marks[i] in _KEPT) + 1
    while True:
        run = chars[first:last]
        if last < end and (
            chars[last] in _GLUE
            or any(chars[last] == c and run.count(o) > run.count(c) for o, c in _PAIRS)
        ):
            last += 1
        elif first > start and (
            chars[first - 1] in _GLUE
            or any(chars[first - 1] == o and run.count(c) > run.count(o) for o, c in _PAIRS)
        ):
            first -= 1
        elif (
            first > start
            and last < end
            and any(chars[first - 1] == o and chars[last] == c for o, c in _PAIRS)
        ):
            first, last = first - 1, last + 1  # "(a, b)": brackets around the formula
        else:
            break
    # Operators at the edges belong to the formula only with something after/before them,
    # unless they are glyphs of a math font (MathTime reads ")" as "/"); a URL keeps its
    # closing "/", a literal style tag its ">".
    url = _URL_RE.match(chars, first) or TAG_RE.match(chars, first)
    while (
        last > first + 1
        and chars[last - 1] in "+-−=*/^_<>|~"
        and marks[last - 1] != GLYPH
        and not (url and url.end() >= last)
    ):
        last -= 1
    return first, last


# Digits and operators written against a formula ("x+1", "2x", "n^2") are part of it.
_GLUE = set("0123456789+-−=*/^_'<>|~")


#: Stands for formula ``{vN}`` in restored text when its glyphs have no Unicode (U+FFFD or
#: private-use characters): the renderer copies such a formula as it looks on the page.
FORMULA_MARK_BASE = 0xF0000


def formula_mark(key: str) -> str:
    """The marker character of placeholder ``key`` (``{v3}`` -> U+F0003)."""
    return chr(FORMULA_MARK_BASE + int(key[2:-1]))


def mark_key(char: str) -> str | None:
    """The placeholder a marker character stands for, or None."""
    code = ord(char) - FORMULA_MARK_BASE
    return f"{{v{code}}}" if 0 < code < 0xFFFD else None


def copied_as_glyphs(classes: str) -> bool:
    """Whether the formula of a placeholder whose characters have ``classes`` is drawn as a
    copy of its source glyphs: it holds math, in a math face or in the text face alike (a
    Greek letter, an arrow, a minus, a "≤" retyped from its extracted text changes face, and
    that text need not map back to the glyph the page drew). Code and URLs come back as text."""
    return GLYPH in classes or MATH in classes


def _needs_copy(original: str) -> bool:
    return any(c == "\ufffd" or 0xE000 <= ord(c) <= 0xF8FF for c in original)


def restore(translation: str, paragraph: Paragraph) -> str:
    """Put the originals back in place of the placeholders of ``paragraph``.

    Recognises the mangled forms models produce (``{ v1 }``, ``{V1}``, ``{{v1}}``, full-width
    braces, a lost brace). Policy: a placeholder the paragraph does not have is dropped; one the
    model used twice is restored twice; one the model dropped is appended at the end of the text,
    in source order, so the formula still appears in its paragraph. No placeholder ever remains:
    originals are inserted in a single pass and never rescanned. A formula whose glyphs have no
    Unicode or whose text cannot be trusted (``paragraph.glyph_formulas``) comes back as its
    marker character (:func:`formula_mark`), which the renderer draws as a copy of the
    original glyphs. Code (``paragraph.code_formulas``) comes back between monospace marks,
    and the answer's style tags become style marks (``translation.read.style.style_marks``; before
    the originals go in, so a literal tag of the source stays text). The paragraph's ``label``
    (list label, footnote marker), never sent, comes first.
    """
    originals = {
        key: formula_mark(key)
        if _needs_copy(value) or key in paragraph.glyph_formulas
        else f"{MONO_ON}{value}{MONO_OFF}"
        if key in paragraph.code_formulas
        else value
        for key, value in paragraph.placeholders.items()
    }
    seen: set[str] = set()

    def put_back(match: re.Match[str]) -> str:
        key = f"{{v{int(match.group(1) or match.group(2))}}}"
        if key not in originals:
            return ""
        seen.add(key)
        return originals[key]

    text = MANGLED_RE.sub(put_back, to_marks(translation))
    missing = [value for key, value in originals.items() if key not in seen]
    if missing:
        text = " ".join([text.rstrip(), *missing]) if text.strip() else " ".join(missing)
    return paragraph.label + text.lstrip() if paragraph.label else text
