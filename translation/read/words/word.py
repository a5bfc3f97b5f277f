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
#: The last word of a text, punctuation after it aside.
LAST_WORD_RE = re.compile(r"([^\W\d_]+)\W*$")
_HYPHEN_END_RE = re.compile(r"[^\W\d_][-\u2010]$")


def cjk_weight(text: str) -> int:
    """Length of ``text`` in Latin-letter widths: a CJK character (Hangul, Han, kana, full-width
    forms) counts two, so thresholds made for English lines hold for Chinese and Korean."""
    return len(text) + len(_WIDE_RE.findall(text))


def has_wide(text: str) -> bool:
    """Whether ``text`` holds a CJK character (Hangul, Han, kana, full-width forms)."""
    return _WIDE_RE.search(text) is not None


#: Words a sentence or a title cannot end with: after them the next line goes on ("the" |
#: "Transformer", "3 Designing AI supports for" | "expository writing").
DANGLING_WORDS = frozenset(
    "a an the of and or to in on for with by from as at is are was were be that which whose"
    " than into via under over between".split()
)
#: Words whose stop never ends a sentence: a number or an example follows them ("in Fig." |
#: "5. The ...", "see Eq." | "(3)", "e.g." | "BERT").
_LEADING_ABBREVIATION_RE = re.compile(
    r"(?:^|[\s(\[])(?:figs?|eqs?|secs?|sects?|tabs?|refs?|pp|vol|ch|alg|thm|lem|cf|vs|e\.g|i\.e)\.$",
    re.IGNORECASE,
)


def ends_sentence(text: str) -> bool:
    """Whether ``text`` ends with a sentence's stop (a colon and a semicolon count), not inside
    a URL nor after a word that a number follows ("Fig.", "Eq.", "e.g.")."""
    if URL_TAIL_RE.search(text) or _LEADING_ABBREVIATION_RE.search(text.rstrip()):
        return False
    return text.rstrip(" \"'”’)]").endswith(_TERMINAL)


def has_letters(text: str) -> bool:
    return any(c.isalpha() for c in text)


def dangles(text: str) -> bool:
    """Whether ``text`` stops where no sentence ends: at a comma, a hyphen or a word such as
    "the" or "in"."""
    tail = text.rstrip()
    word = LAST_WORD_RE.search(tail)
    dangling = tail.endswith(",") or bool(_HYPHEN_END_RE.search(tail))
    return dangling or bool(word and word.group(1) in DANGLING_WORDS)


#: Words of one Hangul syllable that stand alone ("및", "등", "수", "것", "이"): a line that ends
#: in one of them ended at a space. (Counters, "개", "년", "호", attach to their numbers.)
_LONE_SYLLABLES = frozenset(
    (
        "각 간 갈 것 곧 곳 그 긴 꼭 꽤 내 너 네 늘 "
        "다 단 더 데 된 될 두 뒤 듯 등 때 또 막 말 "
        "몇 못 및 밑 바 밖 법 뿐 새 세 속 수 시 안 "
        "앞 약 양 옆 옛 온 올 왜 외 위 이 잘 저 전 "
        "점 제 좀 줄 중 즉 차 참 채 척 첫 총 측 큰 "
        "편 한 할 후"
    ).split()
)
_LAST_SYLLABLE_RE = re.compile(r"(?:^|\s)([\uac00-\ud7a3])$")
_FIRST_SYLLABLE_RE = re.compile(r"([\uac00-\ud7a3])(?:\s|[,.;:)]|$)")
#: Words of one syllable that may open a phrase: a line starting with one began at a space.
_LEADING_WORDS = _LONE_SYLLABLES - frozenset("이 가 은 는 을 를 의 에 도 로 와 과 만".split())


def hangul_cut(before: str, after: str) -> bool:
    """Whether a line (or a box) ending ``before`` and the next starting ``after`` cut one
    Korean word in two ("확" | "진자는", "재" | "해라고"): Korean wraps its lines inside words,
    with no hyphen. Told where ``before`` ends in a syllable standing alone that is no word of
    one syllable, and ``after`` goes on in Hangul; otherwise the break is taken for a space."""
    before = before.rstrip()
    if not ("\uac00" <= before[-1:] <= "\ud7a3" and "\uac00" <= after[:1] <= "\ud7a3"):
        return False
    last = _LAST_SYLLABLE_RE.search(before)
    if last is not None:
        return last.group(1) not in _LONE_SYLLABLES
    # A word's last syllable alone at the next line's start ("법정감염" | "병 1급에"), or a
    # particle, which never stands alone ("치명률" | "이 높은").
    first = _FIRST_SYLLABLE_RE.match(after)
    return first is not None and first.group(1) not in _LEADING_WORDS
