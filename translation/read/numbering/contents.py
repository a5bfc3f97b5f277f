"""Contents lists: an entry's text, then its leader (a run of dots) and its page number.

Each entry is a unit of its own (the rows of a contents list never run into one paragraph),
and only its text is sent: the leader and the page number are kept as they are, a
placeholder in the request ("1.1 Security fundamentals{v1}"), restored after the
translation ("1.1 보안의 기본. . . . . . 2").
"""

from __future__ import annotations

import re

from translation.read.numbering.grammar import PAGE_NUMBER

#: Dots a leader has at least (spaced or not; a long entry's last line leaves room for few),
#: then a page number (Arabic, or Roman as front matter is numbered), ending the line.
LEADER_DOTS = 2
_LEADER_RE = re.compile(rf"(?:\s*[.·…]){{{LEADER_DOTS},}}\s*(?:{PAGE_NUMBER})\s*$", re.IGNORECASE)
_LETTER_RE = re.compile(r"[^\W\d_]")


def leader_start(text: str) -> int | None:
    """Where the leader and page number that end ``text`` begin (an entry of a contents
    list: some words, then the leader), or None when ``text`` ends otherwise."""
    match = _LEADER_RE.search(text)
    if match is None or not _LETTER_RE.search(text[: match.start()]):
        return None
    return match.start()


def is_leader(text: str) -> bool:
    """Whether ``text`` is a leader and a page number alone (what an entry keeps)."""
    match = _LEADER_RE.search(text)
    return match is not None and not text[: match.start()].strip()


_KEY_RE = re.compile(r"\{v\d+\}$")


def ends_entry(text: str, placeholders: dict[str, str]) -> bool:
    """Whether ``text`` is a contents entry as sent: it ends with the placeholder that keeps
    its leader and page number."""
    key = _KEY_RE.search(text)
    return key is not None and is_leader(placeholders.get(key.group(0), ""))


def with_leader(text: str, placeholders: dict[str, str]) -> str:
    """``text`` (as sent) with the placeholder that keeps its leader and page number spelled
    out: the entry as printed; any other text as it is."""
    if not ends_entry(text, placeholders):
        return text
    key = _KEY_RE.search(text)
    assert key is not None  # ends_entry found it
    return text[: key.start()] + placeholders[key.group(0)]
