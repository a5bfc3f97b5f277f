"""Words and sentence ends in plain text, as the reading rules count them."""

from __future__ import annotations

import re

_TERMINAL = tuple(".!?:;。．！？")
# A line ending inside a URL ("https://github." / "example.org/a-"): the next line continues it.
URL_TAIL_RE = re.compile(r"(?:https?://|www\.)\S*[./_-]$|\bhttps?:/{0,2}$")
# Words: runs of letters (Latin, Hangul, ...); each Chinese character or kana is a word of its
# own (those scripts put no spaces between words), so a Chinese line counts like an English one.
_CJK_IDEOGRAPHS = "\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff"
WORD_RE = re.compile(rf"[^\W\d_{_CJK_IDEOGRAPHS}]{{2,}}|[{_CJK_IDEOGRAPHS}\uac00-\ud7af]")
_WIDE_RE = re.compile(r"[\u1100-\u11ff\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def cjk_weight(text: str) -> int:
    """Length of ``text`` in Latin-letter widths: a CJK character (Hangul, Han, kana, full-width
    forms) counts two, so thresholds made for English lines hold for Chinese and Korean."""
    return len(text) + len(_WIDE_RE.findall(text))


def has_wide(text: str) -> bool:
    """Whether ``text`` holds a CJK character (Hangul, Han, kana, full-width forms)."""
    return _WIDE_RE.search(text) is not None


def ends_sentence(text: str) -> bool:
    if URL_TAIL_RE.search(text):
        return False
    return text.rstrip(" \"'”’)]").endswith(_TERMINAL)


def has_letters(text: str) -> bool:
    return any(c.isalpha() for c in text)
