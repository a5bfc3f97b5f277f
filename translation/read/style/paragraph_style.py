"""Character style (colour, bold, italic) of source text, and the styled runs of a paragraph.

A style is one int (:func:`style_code`) so rows can carry one per character. A paragraph gets
its body style (what most of its text looks like), a run-in lead (a bold or italic prefix such
as "Finding:" or "Training Data.") and the other runs whose style differs from the body (a red
answer, an italic term). The typesetter finds a run's text again in the translation (text that
survives translation: numbers, names, a lead's closing colon) and styles it there.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from translation.read.math.formulas import MATHS

# TeX's Computer Modern bold faces (CMBX12, CMB10: a JSS paper's section headings and names).
_CM_BOLD = r"CMBX|CMB10"
_BOLD_RE = re.compile(rf"Bold|Black|Heavy|Semibold|Demi|Medi(?!um)|{_CM_BOLD}|-Bd|\.B$", re.I)
_CM_BOLD_RE = re.compile(_CM_BOLD)
_ITALIC_RE = re.compile(r"Italic|Oblique|Ital|-It$|-BdIt|CMTI|CMSL|CMBXTI|\.I$", re.I)
# TeX's short font names: family, then "b" for bold (ptmb8t, rtxb: a bold ligature).
_TEX_BOLD_RE = re.compile(r"^(?:[A-Z]{6}\+)?[a-z]{3}b[a-z0-9]{0,4}$")
_LEAD_ENDS = tuple(":.：．。?？!！")
_URL_RE = re.compile(r"(?:https?://|www\.)\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL_TAIL_RE = re.compile(r"(?:https?://|www\.)\S*[./_-]$")


def style_code(color: int, bold: bool, italic: bool) -> int:
    return (color & 0xFFFFFF) << 2 | int(italic) << 1 | int(bold)


def color_of(code: int) -> int:
    return code >> 2


def is_bold(code: int) -> bool:
    return bool(code & 1)


def is_italic(code: int) -> bool:
    return bool(code & 2)


def tex_bold(font: str) -> bool:
    """Whether ``font`` is a TeX bold face by its name alone: Computer Modern's ("CMBX12",
    "CMB10") or a short TeX name with "b" for bold ("ptmb8t"), which MuPDF does not flag."""
    return bool(_CM_BOLD_RE.search(font) or _TEX_BOLD_RE.match(font))


def span_style(font: str, flags: int, color: int) -> int:
    """The style of a span from its font name, MuPDF flags (2 italic, 16 bold) and colour."""
    bold = bool(flags & 16) or bool(_BOLD_RE.search(font) or _TEX_BOLD_RE.match(font))
    italic = bool(flags & 2) or bool(_ITALIC_RE.search(font))
    return style_code(color, bold, italic)


@dataclass(frozen=True, slots=True)
class ParagraphStyle:
    """Body style, run-in lead (``lead`` text, its style) and the other differing runs."""

    color: int
    bold: bool
    italic: bool
    lead: str = ""
    lead_style: int = 0
    runs: tuple[tuple[str, int], ...] = ()


def paragraph_style(
    lines: Sequence[tuple[str, str, Sequence[int]]], label: str = ""
) -> ParagraphStyle:
    """The style of a paragraph from its rows as (chars, classes, styles), top to bottom,
    after its ``label`` (a list item's "2.", a footnote's marker: not part of the text sent).

    Math characters and URLs have no style of their own (they come back from placeholders).
    A lead is a bold or italic prefix of whole words, with a letter or digit in it and text
    after it, where the body is not bold (italic) like it. A run is a stretch of at least two
    letters or digits in a style other than the body's.
    """
    chars: list[str] = []
    codes: list[int | None] = []  # None: no style of its own (spaces, math, URLs)
    for text, classes, styles in lines:
        if len(styles) != len(text):
            styles = [0] * len(text)
        start = len(text) - len(text.lstrip())
        end = len(text.rstrip())
        if start >= end:
            continue
        if chars and not _URL_TAIL_RE.search("".join(chars[-80:])):
            chars.append(" ")
            codes.append(None)
        for i in range(start, end):
            chars.append(text[i])
            math = i < len(classes) and classes[i] in MATHS
            codes.append(None if text[i].isspace() or math else styles[i])
    for match in _URL_RE.finditer("".join(chars)):
        codes[match.start() : match.end()] = [None] * (match.end() - match.start())
    skip = len(label.strip()) if "".join(chars).startswith(label.strip()) else 0
    codes[:skip] = [None] * skip
    if not any(c is not None for c in codes):
        return ParagraphStyle(color=0, bold=False, italic=False)
    # The lead: the first styled characters while they keep the first one's style.
    end = 0
    first = next((c for c in codes if c is not None), 0)
    if first & 3:
        for i, code in enumerate(codes):
            if code is not None and code != first:
                break
            end = i + 1
    color, bold, italic = _body(chars[end:], codes[end:])
    body = style_code(color, bold, italic)
    lead = "".join(chars[skip:end]).strip()
    stands_out = bool(first & 3 & ~body)  # bold or italic where the body is not
    mid_word = 0 < end < len(chars) and chars[end - 1].isalnum() and chars[end].isalnum()
    if not (
        end
        and stands_out
        and not mid_word
        and any(c.isalnum() for c in lead)
        and any(c.isalnum() for c in chars[end:])
    ):
        lead, end = "", 0
        color, bold, italic = _body(chars, codes)
        body = style_code(color, bold, italic)
    runs: list[tuple[str, int]] = []
    i, n = end, len(chars)
    while i < n:
        code = codes[i]
        if code is None or code == body:
            i += 1
            continue
        j = i + 1
        while j < n and (codes[j] == code or (codes[j] is None and chars[j].isspace())):
            j += 1
        text = "".join(chars[i:j]).strip()
        if sum(c.isalnum() for c in text) >= 2:
            runs.append((text, code))
        i = j
    return ParagraphStyle(color, bold, italic, lead, first if lead else 0, tuple(runs))


#: A paragraph is bold (italic) when this share of its word characters is.
_STYLED_SHARE = 0.9


def _body(chars: Sequence[str], codes: Sequence[int | None]) -> tuple[int, bool, bool]:
    """(colour, bold, italic) of most of the text: colour by characters, bold and italic by
    letters and digits (a dagger or a comma in another font does not count)."""
    colors = Counter(color_of(c) for c in codes if c is not None)
    if not colors:
        return 0, False, False
    words = [c for ch, c in zip(chars, codes, strict=True) if c is not None and ch.isalnum()]
    total = len(words) or 1
    bold = bool(words) and sum(is_bold(c) for c in words) >= _STYLED_SHARE * total
    italic = bool(words) and sum(is_italic(c) for c in words) >= _STYLED_SHARE * total
    return colors.most_common(1)[0][0], bold, italic


#: Characters: a translated lead's end is looked for this far at least, or this many times
#: the source lead's length.
_LEAD_REACH_LEAST, _LEAD_REACH_TIMES = 12, 3


def lead_end(lead: str, text: str) -> int:
    """Where the run-in ``lead`` ends in the translation ``text`` (0: not found). A lead closed
    by a colon or full stop ends at the first such mark in the translation's first stretch; one
    that is not, where its own text is found at the start (an untranslated "RQ1")."""
    if not lead:
        return 0
    if text.startswith(lead):
        return len(lead)
    if lead.endswith(_LEAD_ENDS):
        reach = min(len(text) - 1, max(_LEAD_REACH_LEAST, _LEAD_REACH_TIMES * len(lead)))
        for i, char in enumerate(text[: reach + 1]):
            if char in _LEAD_ENDS and (i + 1 == len(text) or not text[i + 1].isalnum()):
                if char == "." and i > 0 and text[i - 1].isdigit():
                    continue  # a section number, not the lead's end
                return i + 1
    return 0


def with_lead_stop(text: str, lead: str) -> tuple[str, str]:
    """(text, lead) with a full stop closing a run-in lead that has no closing mark of its own
    ("Training Data Our corpus..." -> "Training Data. Our corpus..."): the translation then
    shows where the lead ends. A lead the text does not start with is dropped."""
    if not lead or not text.startswith(lead):
        return text, ""
    if lead.endswith(_LEAD_ENDS):
        return text, lead
    rest = text[len(lead) :]
    if rest.startswith(_LEAD_ENDS):  # the closing mark is set in the body's style
        return text, lead + rest[0]
    following = rest.lstrip()[:1]
    if not (following.isupper() or following.isdigit()):
        # The sentence runs on after a styled start ("BERT is...", "Title, pages 1-8"): no
        # run-in heading, and nothing may be added to the text.
        return text, ""
    return f"{lead}.{rest}", f"{lead}."
