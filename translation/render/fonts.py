"""Fonts for typeset translations, and fitting text into a box.

An installed CJK face comes first where there is one (``translation.render.faces``); then the
fonts that ship inside PyMuPDF (nothing is downloaded): Droid Sans Fallback for Chinese,
Japanese and Korean (it also covers Latin), Noto Serif for other targets, and Noto Sans Math and
Noto Sans Symbols for whatever the main fonts lack (formulas restored from placeholders).
Every character is set in the first font of the chain that has a glyph for it. A font object is
created once per process; the renderer embeds each one used at most once per document.
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache

import pymupdf
from pymupdf import mupdf

from translation.read.style.style_marks import MONO, MONO_ON, has_marks, mark_states
from translation.render import faces
from translation.render.face_subset import UsedFace
from translation.render.faces import Face

_CJK_PREFIXES = ("ko", "zh", "ja", "yue", "cmn")


def _builtin(lookup: Callable[[], tuple[object, int]]) -> pymupdf.Font:
    data, size = lookup()
    return pymupdf.Font(fontbuffer=mupdf.raw_to_python_bytes(data, size))


_LOADERS: dict[str, Callable[[], pymupdf.Font]] = {
    "cjk": lambda: pymupdf.Font("korea"),  # Droid Sans Fallback: Hangul, Han, Kana, Latin
    "serif": lambda: pymupdf.Font(script=mupdf.UCDN_SCRIPT_LATIN, is_serif=1),  # Noto Serif
    "math": lambda: _builtin(mupdf.fz_lookup_noto_math_font),
    "symbols": lambda: _builtin(mupdf.fz_lookup_noto_symbol1_font),
    "symbols2": lambda: _builtin(mupdf.fz_lookup_noto_symbol2_font),
    "italic": lambda: pymupdf.Font("tiit"),  # Times Italic, for math letters
    "mono": lambda: pymupdf.Font("cour"),  # Courier, for code set monospaced in the source
}
_lock = threading.Lock()


@cache
def _load(name: str) -> pymupdf.Font:
    return _LOADERS[name]()


def font(name: str) -> pymupdf.Font:
    """The shared font object ``name`` (one of ``cjk``, ``serif``, ``math``, ``symbols``,
    ``symbols2``)."""
    with _lock:
        return _load(name)


def is_cjk_language(lang: str) -> bool:
    return lang.lower().startswith(_CJK_PREFIXES)


def chain_names(target_lang: str) -> tuple[str, ...]:
    """Font names to try, in order, for text in ``target_lang`` (the last one, ``italic``, is
    only used for math letters)."""
    if is_cjk_language(target_lang):
        return ("cjk", "serif", "math", "symbols", "symbols2", "italic")
    return ("serif", "cjk", "math", "symbols", "symbols2", "italic")


def plain_char(char: str) -> tuple[str, bool]:
    """(character to set, set in italics) for ``char``.

    Mathematical alphanumerics (U+1D400-U+1D7FF: 𝑥, 𝜃, 𝐯) become the plain letter, italic when
    it is a Latin letter: PyMuPDF writes a wrong ToUnicode entry for characters outside the
    BMP, so copying them from the output would give other characters.
    """
    if 0x1D400 <= ord(char) <= 0x1D7FF:
        plain = unicodedata.normalize("NFKC", char)
        if len(plain) == 1:
            return plain, plain.isascii() and plain.isalpha()
    return char, False


class FontChain:
    """Picks the font for each character and measures text (advances at size 1).

    With a ``face`` (``translation.render.faces``) the face comes first, before the built-in
    fonts; ``bold`` takes its bold weight. :meth:`weight` gives the chain of the other weight.
    """

    def __init__(self, target_lang: str, face: Face | None = None, bold: bool = False) -> None:
        self.target_lang, self.face = target_lang, face
        self.names = chain_names(target_lang)
        self.fonts = [font(name) for name in self.names]
        self._face: tuple[pymupdf.Font, bytes] | None = None
        if face is not None:
            file = face.bold if bold and face.bold is not None else face.regular
            self._face = faces.load(file)
            self.names = ("face", *self.names)
            self.fonts = [self._face[0], *self.fonts]
        #: Whether bold text is set in a real bold weight (else it is drawn stroked).
        self.real_bold = face is not None and face.bold is not None
        self.italic = len(self.fonts) - 1
        self.mono = font("mono")
        self._choice: dict[str, int] = {}
        self._advance: dict[str, float] = {}
        self._bold: FontChain | None = None

    def weight(self, bold: bool) -> FontChain:
        """The chain that sets text of that weight: this one, or its real bold sibling."""
        if not bold or not self.real_bold:
            return self
        if self._bold is None:
            self._bold = FontChain(self.target_lang, self.face, bold=True)
        return self._bold

    def used_faces(self) -> list[UsedFace]:
        """The face fonts this chain (and its bold sibling) set characters in, with them."""
        used: list[UsedFace] = []
        if self._face is not None:
            face_font, data = self._face
            chars: dict[int, str] = {}
            for char, index in self._choice.items():
                if index == 0:
                    plain = plain_char(char)[0]
                    chars.setdefault(face_font.has_glyph(ord(plain)), plain)
            used.append(UsedFace(face_font, data, chars))
        if self._bold is not None:
            used += self._bold.used_faces()
        return used

    def sets(self, char: str) -> bool:
        """Whether some face of the chain (the monospaced one included) has ``char``: one
        that none has would be left out of the page (``index`` -1)."""
        return char.isspace() or self.index(char) >= 0 or self.in_mono(char)

    def in_mono(self, char: str) -> bool:
        """Whether the monospaced font sets ``char`` (else the chain does)."""
        return not char.isspace() and self.mono.has_glyph(ord(char)) > 0

    def mono_advance(self, char: str) -> float:
        """``char``'s advance in code set monospaced (the chain's where mono lacks it)."""
        return self.mono.glyph_advance(ord(char)) if self.in_mono(char) else self.advance(char)

    def index(self, char: str) -> int:
        """Index of the font that sets ``char``; -1 when no font has it (it is left out)."""
        found = self._choice.get(char)
        if found is None:
            plain, italic = plain_char(char)
            if italic:
                found = self.italic
            elif char.isspace():
                found = 0
            else:
                code = ord(plain)
                fonts = self.fonts[: self.italic]
                found = next((i for i, f in enumerate(fonts) if f.has_glyph(code)), -1)
            self._choice[char] = found
        return found

    def advance(self, char: str) -> float:
        width = self._advance.get(char)
        if width is None:
            i = self.index(char)
            if char.isspace():
                width = self.fonts[0].glyph_advance(32)
            else:
                plain = plain_char(char)[0]
                width = self.fonts[i].glyph_advance(ord(plain)) if i >= 0 else 0.0
            self._advance[char] = width
        return width

    def width(self, text: str) -> float:
        return sum(self.advance(c) for c in text)


# --- line breaking and fitting (pure apart from the font measurements) ----------------------

# No line starts with these, and none ends with the opening ones (a light "kinsoku").
_NO_START = set(")]}>,.;:!?%、。，．：；！？）」』】〉》〕”’ー々ゃゅょっァィゥェォッャュョ")
_NO_END = set("([{<「『【〈《〔“‘")


def _breaks_anywhere(char: str) -> bool:
    """Han and Kana (and full-width forms) break between any two characters; Hangul and Latin
    break at spaces."""
    code = ord(char)
    return 0x3000 <= code <= 0x30FF or 0x3400 <= code <= 0x9FFF or 0xF900 <= code <= 0xFFEF


def tokenize(text: str) -> list[str]:
    """Units that may not be split across lines: words (a compound splits after its
    hyphen), single CJK characters, spaces. Closing punctuation sticks to the unit before it,
    opening punctuation to the one after."""
    units: list[str] = []
    word = ""
    for char in text:
        if char.isspace():
            if word:
                units.append(word)
                word = ""
            if units and units[-1] != " ":
                units.append(" ")
        elif _breaks_anywhere(char) and char not in _NO_START and char not in _NO_END:
            if word and word[-1] not in _NO_END:
                units.append(word)
                word = ""
            word += char
            units.append(word)
            word = ""
        elif char in _NO_START and not word and units and units[-1] != " ":
            units[-1] += char
        else:
            if word and _breaks_anywhere(word[-1]) and word[-1] not in _NO_END:
                units.append(word)
                word = ""
            elif word[-2:-1].isalpha() and word[-1:] == "-" and char.isalpha():
                units.append(word)  # a line may break after the hyphen of a compound
                word = ""
            word += char
    if word:
        units.append(word)
    while units and units[-1] == " ":
        units.pop()
    return units


@dataclass(slots=True)
class TypesetLine:
    units: list[str]
    width: float  # at size 1, without trailing space


@dataclass(slots=True)
class Fitted:
    """Text broken into lines at ``size`` (``fits`` is False when even the smallest size
    overflows the box; the lines are then cut to the box)."""

    size: float
    leading: float  # baseline distance / size
    lines: list[TypesetLine] = field(default_factory=list)
    fits: bool = True


def break_lines(
    units: Sequence[str], max_width: float, measure: Callable[[str], float]
) -> list[TypesetLine]:
    """Greedy line filling of ``units`` into lines of at most ``max_width`` (size 1 units);
    a unit wider than a line is cut between characters. Each unit is measured in the style
    its place in the text gives it (:func:`in_context`): a word inside a run of code set
    monospaced, or a piece of a cut URL, is as wide as it will be drawn."""
    lines: list[TypesetLine] = []
    current: list[str] = []
    widths: list[float] = []
    width = 0.0

    def close() -> None:
        while current and current[-1] == " ":
            current.pop()
            widths.pop()
        lines.append(TypesetLine(list(current), sum(widths)))
        current.clear()
        widths.clear()

    for unit, key in zip(units, in_context(units), strict=True):
        if unit == " ":
            if current:
                current.append(unit)
                widths.append(measure(unit))
                width += widths[-1]
            continue
        w = measure(key)
        trailing = measure(" ") if current and current[-1] == " " else 0.0
        if current and width - trailing + (trailing + w if trailing else w) > max_width:
            close()
            width = 0.0
        if w > max_width and len(unit) > 1:
            for char, cw in zip(unit, _char_widths(unit, key, measure), strict=True):
                if current and width + cw > max_width:
                    close()
                    width = 0.0
                current.append(char)
                widths.append(cw)
                width += cw
            continue
        current.append(unit)
        widths.append(w)
        width += w
    while current and current[-1] == " ":
        current.pop()
        widths.pop()
    if current:
        close()
    return lines


def in_context(units: Sequence[str]) -> list[str]:
    """Each unit as it is measured alone: one that lies inside a run of code set monospaced
    without opening it (a word after the run's first space, the run's last word) starts with
    the run's opening mark, which has no width; the others as they are."""
    if not any(has_marks(unit) for unit in units):
        return list(units)
    states = mark_states("".join(units))
    keys: list[str] = []
    at = 0
    for unit in units:
        inside = bool(unit) and bool(states[at] & MONO) and unit[0] != MONO_ON
        keys.append(MONO_ON + unit if inside else unit)
        at += len(unit)
    return keys


def _char_widths(unit: str, key: str, measure: Callable[[str], float]) -> list[float]:
    """The width of each character of ``unit`` (measured as ``key``) in its own style."""
    if not has_marks(key):
        return [measure(char) for char in unit]
    states = mark_states(key)[len(key) - len(unit) :]
    return [
        measure(MONO_ON + char if state & MONO else char)
        for char, state in zip(unit, states, strict=True)
    ]


_UNCUT_SHRINK = 0.8  # the smallest scale that keeps a word from being cut between letters


def fit(
    text: str,
    width: float,
    height: float,
    size: float,
    leading: float,
    measure: Callable[[str], float],
    min_size: float = 3.0,
) -> Fitted:
    """Break ``text`` into lines that fit ``width`` x ``height`` at the largest size up to
    ``size``: the font shrinks until the lines fit (the box never grows), in height and in
    width (a unit that cannot be cut, a copied formula, must fit the width too). A line takes
    ``leading`` x size, the first one 1.0 x size (ascenders to descenders)."""
    units = tokenize(text)
    if not units or width <= 0 or height <= 0:
        return Fitted(size=size, leading=leading)
    cache: dict[str, float] = {}

    def measured(unit: str) -> float:
        value = cache.get(unit)
        if value is None:
            value = cache[unit] = measure(unit)
        return value

    def attempt(s: float) -> tuple[list[TypesetLine], bool]:
        lines = break_lines(units, width / s, measured)
        used = s * (1.0 + (len(lines) - 1) * leading)
        # A unit that cannot be cut (a copied formula) wider than the box needs a smaller size.
        wide = any(line.width * s > width + 0.01 for line in lines)
        return lines, used <= height + 0.01 and not wide

    # A word a little wider than the box (an e-mail address in a narrow cell, set in a wider
    # face than the source's) is set whole at a slightly smaller size rather than cut.
    widest = max((measured(u) for u in units if u != " "), default=0.0)
    if widest * size > width >= _UNCUT_SHRINK * size * widest:
        size = max(min_size, width / widest)
    lines, ok = attempt(size)
    if ok:
        return Fitted(size=size, leading=leading, lines=lines)
    # Start from the size the area allows, then step down until the lines fit.
    total = sum(measured(u) for u in units)
    estimate = (width * height / (total * leading)) ** 0.5 if total > 0 else size
    s = max(min_size, min(size, estimate * 1.1))
    while True:
        lines, ok = attempt(s)
        if ok:
            return Fitted(size=s, leading=leading, lines=lines)
        if s <= min_size:
            keep = max(1, int((height / s - 1.0) / leading) + 1)
            return Fitted(size=s, leading=leading, lines=lines[:keep], fits=False)
        s = max(min_size, s * 0.95)
