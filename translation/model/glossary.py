"""A glossary kept exactly: each source term becomes a placeholder the model passes through, and
the glossary's target term takes its place in the translation.

No model is asked to follow a glossary (TranslateGemma takes no instructions at all): a matched
term is protected exactly like inline math, as a ``{vN}`` placeholder (the scheme of
:mod:`translation.read.math.formulas`, which models keep and
:func:`translation.read.math.formulas.restore` puts back,
mangled forms included), and its placeholder's "original" is the target term. So the output
holds the glossary's term every time, with any model and any prompt format; the term is text,
typeset in the target font like the words around it.

The file: CSV rows ``source,target`` with an optional third column, the target language the row
is for (``ko``, ``zh-CN``...; empty or absent: every target). UTF-8 with or without a BOM, quoted
fields, ``#`` comment lines and blank lines; tab-separated when the first row has a tab and no
comma. A first row of column names (``source,target``, ``term,translation``, or two language
codes such as ``en,ko``) is a header; a header naming a target language (``en,ko``) makes that
language the default of the rows without a third column. Anything else wrong is an
``InputError`` naming the line.

Matching: case-insensitive (but an acronym such as ``MAP`` or ``IT`` only as written, not the
word it spells), longest term first, whole words (a boundary is required only between two
letters or digits of an alphabetic script, so a Latin term is found in Korean or Chinese text
such as ``BERT를`` and a Han or Hangul term anywhere); from English, the plural forms ``-s``,
``-es`` and ``-y`` -> ``-ies`` (an acronym's ``-s``) are the term too, and a possessive ``'s``
stays in the text after the placeholder (the model then reads "{v1001}'s").

Placeholders: entry *i* (0-based, among the entries that apply to the job's target language)
is ``{v<1001+i>}``. Formula placeholders of a paragraph count from ``{v1}`` and never reach 1001
(a paragraph that did would keep its terms untranslated rather than mix them up), and a fixed
number per entry makes the cache key a function of the text sent: :meth:`Glossary.key_text`
appends the entries of the placeholders it holds, so a changed glossary re-translates exactly
the paragraphs holding a changed term and leaves every other key as it was without a glossary.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common.errors import ConfigError, InputError, UnsupportedLanguageError
from common.language import Language
from translation.read.math.formulas import PLACEHOLDER_RE
from translation.read.paragraph import Paragraph

if TYPE_CHECKING:
    from common.settings import Settings

#: Largest glossary file (the server's ``ZT_GLOSSARY``, the CLI's ``--glossary``).
MAX_FILE_BYTES = 1024 * 1024
#: Largest glossary sent with one request (the upload form's field).
MAX_REQUEST_BYTES = 64 * 1024
#: Most entries in one glossary.
MAX_ENTRIES = 5000
#: Longest source or target term, in characters.
MAX_TERM_CHARS = 200
#: Glossary placeholders are ``{v<BASE+1>}``, ``{v<BASE+2>}``...
PLACEHOLDER_BASE = 1000

_HEADER_WORDS = frozenset(
    {"source", "src", "term", "source term", "from", "original", "english", "word"}
) | frozenset({"target", "tgt", "translation", "target term", "to", "translated", "korean"})
# ``tgt_lng``: the column of pdf2zh-next/BabelDOC glossaries, which this reads as they are.
_LANG_WORDS = frozenset(
    {"lang", "language", "target lang", "target language", "target_lang", "target_language"}
    | {"tgt_lng", "tgt_lang", "lang_out"}
)
# Han, kana, Hangul and their compatibility forms: scripts written without spaces between words.
_CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3130-\u318f"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
)
# A letter or digit of an alphabetic script: between two of these a term needs a word boundary.
_WORD = f"[^\\W{_CJK}]"
_BOUNDARY = f"(?:(?<!{_WORD})|(?!{_WORD}))"
_SPACE_RE = re.compile(r"\s+")
_CONSONANT_Y = re.compile(r"[b-df-hj-np-tv-z]y$", re.IGNORECASE)


@dataclass(frozen=True)
class Entry:
    """One row: ``lang`` is the target language it is for, None for all."""

    source: str
    target: str
    lang: Language | None = None


class Glossary:
    """Entries in file order, and the matcher for each pair of languages (built on first use)."""

    def __init__(self, entries: Iterable[Entry] = ()) -> None:
        self.entries: tuple[Entry, ...] = tuple(entries)
        if len(self.entries) > MAX_ENTRIES:
            raise InputError(f"the glossary has {len(self.entries)} entries; at most {MAX_ENTRIES}")
        self._matchers: dict[tuple[Language, Language], _Matcher] = {}

    def __len__(self) -> int:
        return len(self.entries)

    def __repr__(self) -> str:
        return f"Glossary({len(self.entries)} entries)"

    # --- building ----------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, name: str = "glossary") -> Glossary:
        """The glossary in CSV ``text``; ``InputError`` naming ``name`` and the line if bad."""
        return cls(_parse(text, name))

    @classmethod
    def from_bytes(
        cls, data: bytes, name: str = "glossary", limit: int = MAX_FILE_BYTES
    ) -> Glossary:
        """The glossary in a UTF-8 file's bytes (a BOM is fine), at most ``limit`` bytes."""
        if len(data) > limit:
            raise InputError(f"{name} is {len(data):,} bytes; at most {limit:,} are accepted")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data[: exc.start].count(b"\n") + 1
            raise InputError(f"{name}, line {line}: not UTF-8 text") from None
        return cls.parse(text, name)

    @classmethod
    def load(cls, path: Path | str) -> Glossary:
        """The glossary file at ``path``; ``InputError`` when it cannot be read or is bad."""
        path = Path(path).expanduser()
        try:
            with path.open("rb") as file:
                data = file.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise InputError(f"cannot read the glossary {path}: {exc.strerror or exc}") from None
        return cls.from_bytes(data, str(path))

    def extended(self, other: Glossary | None) -> Glossary:
        """This glossary with ``other``'s entries on top: an entry of ``other`` replaces the
        entries for the same source term (any case) and the same target language (all of them,
        for an entry without one), in the place of the first (so the terms after it keep their
        placeholders, and their paragraphs their cache keys); other entries of ``other`` are
        added at the end."""
        if other is None or not other.entries:
            return self
        specific = {(_normal(e.source), e.lang): i for i, e in enumerate(other.entries)}
        everywhere = {_normal(e.source): i for i, e in enumerate(other.entries) if e.lang is None}
        merged: list[Entry] = []
        placed: set[int] = set()
        for entry in self.entries:
            source = _normal(entry.source)
            new = specific.get((source, entry.lang), everywhere.get(source))
            if new is None:
                merged.append(entry)
            elif new not in placed:
                merged.append(other.entries[new])
                placed.add(new)
        merged += [e for i, e in enumerate(other.entries) if i not in placed]
        return Glossary(merged)

    def to_csv(self, target: Language) -> bytes:
        """The entries that apply to ``target`` as a glossary file (UTF-8 CSV with a header
        row, each row's language in its third column), which :meth:`parse` reads back."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["source", "target", "language"])
        for entry in _for_target(self.entries, target):
            writer.writerow([entry.source, entry.target, entry.lang.code if entry.lang else ""])
        return out.getvalue().encode("utf-8")

    # --- use ---------------------------------------------------------------------------------

    def apply(
        self, paragraphs: Sequence[Paragraph], source_lang: Language, target_lang: Language
    ) -> list[Paragraph]:
        """``paragraphs`` with their terms protected: the text to send holds a placeholder for
        each term, and ``placeholders`` maps it to the target term (put back by ``restore``).
        Paragraphs without a term are returned as they are."""
        matcher = self.matcher(source_lang, target_lang)
        return [matcher.apply(paragraph) for paragraph in paragraphs]

    def restore(self, translation: str, paragraph: Paragraph, target_lang: Language) -> str:
        """``translation`` (placeholders already restored) with the Korean particles after
        each target term made to agree with it: the model saw a placeholder, not the term, so
        it could not know whether "그래프" takes 는 or 은 (see :func:`particles_agree`)."""
        if not target_lang.is_korean:
            return translation
        terms = [
            value
            for key, value in paragraph.placeholders.items()
            if int(key[2:-1]) > PLACEHOLDER_BASE
        ]
        return particles_agree(translation, terms) if terms else translation

    def key_text(self, text: str, source_lang: Language, target_lang: Language) -> str:
        """What the cache key of ``text`` (as sent) covers: the text, plus the entries of the
        glossary placeholders it holds; ``text`` itself when it holds none."""
        return self.matcher(source_lang, target_lang).key_text(text)

    def matcher(self, source_lang: Language, target_lang: Language) -> _Matcher:
        pair = (source_lang, target_lang)
        if pair not in self._matchers:
            english = source_lang.code == "en"
            self._matchers[pair] = _Matcher(_for_target(self.entries, target_lang), english)
        return self._matchers[pair]


def only_terms(text: str) -> bool:
    """Whether ``text`` (as sent) is glossary terms, formulas, digits and punctuation only:
    nothing a model could translate, so nothing to send it (a table cell "BERT")."""
    if not any(int(n) > PLACEHOLDER_BASE for n in PLACEHOLDER_RE.findall(text)):
        return False
    return not any(char.isalpha() for char in PLACEHOLDER_RE.sub("", text))


def from_settings(settings: Settings) -> Glossary | None:
    """The ``ZT_GLOSSARY`` glossary, read once at start; ``ConfigError`` if it is bad."""
    if settings.glossary is None:
        return None
    try:
        return Glossary.load(settings.glossary)
    except InputError as exc:
        raise ConfigError(f"ZT_GLOSSARY: {exc}") from None


# Korean particles whose form depends on whether the word before ends in a consonant: (after a
# consonant, after a vowel). 으로/로 also takes 로 after a final ㄹ.
_PARTICLE_PAIRS = {
    "은": ("은", "는"),
    "는": ("은", "는"),
    "이": ("이", "가"),
    "가": ("이", "가"),
    "을": ("을", "를"),
    "를": ("을", "를"),
    "과": ("과", "와"),
    "와": ("과", "와"),
    "으로": ("으로", "로"),
    "로": ("으로", "로"),
}
# A particle glued to the term and ending the word ("그래프는 ", "그래프로서,"), not the start of
# a longer word ("그래프이다" is the copula, left alone).
_PARTICLE_AFTER = "(으로|로|은|는|이|가|을|를|과|와)(?=(?:서|써)?(?:[^\uac00-\ud7a3]|$))"
_RIEUL = 8  # the final consonant ㄹ, as a syllable's index among the 28 finals


def particles_agree(text: str, terms: Iterable[str]) -> str:
    """``text`` with the particle right after each of ``terms`` (Korean words) in the form
    that agrees with the term's last syllable. Terms ending in anything but a Hangul syllable
    ("BERT") are left alone: how they are read is not known."""
    for term in sorted(set(terms), key=len, reverse=True):
        last = term[-1:]
        if not "\uac00" <= last <= "\ud7a3":
            continue
        final = (ord(last) - 0xAC00) % 28
        vowel_like = final == 0

        def agree(match: re.Match[str], vowel_like: bool = vowel_like, final: int = final) -> str:
            particle = match.group(1)
            consonant_form, vowel_form = _PARTICLE_PAIRS[particle]
            if particle in ("으로", "로"):
                right = vowel_form if vowel_like or final == _RIEUL else consonant_form
            else:
                right = vowel_form if vowel_like else consonant_form
            return match.group(0)[: -len(particle)] + right

        text = re.sub(re.escape(term) + _PARTICLE_AFTER, agree, text)
    return text


def combine(base: Glossary | None, extra: Glossary | None) -> Glossary | None:
    """``base`` (the server's) extended by ``extra`` (the request's), or whichever exists."""
    if base is None:
        return extra
    return base.extended(extra)


# --- matching --------------------------------------------------------------------------------


class _Matcher:
    """The entries for one target language, compiled into one pattern."""

    def __init__(self, entries: Sequence[Entry], english: bool) -> None:
        self.entries = tuple(entries)
        # Lower-case forms of most terms; acronyms ("MAP", "IT") as written, so that they do
        # not take the word ("map", "it") they spell.
        self._index: dict[str, int] = {}
        self._exact: dict[str, int] = {}
        for i, entry in enumerate(self.entries):
            source = _SPACE_RE.sub(" ", entry.source.strip())
            if _is_acronym(source):
                plural = [source + "s"] if english else []
                for form in [source, *plural]:
                    self._exact.setdefault(form, i)
            else:
                for form in _forms(source.lower(), english):
                    self._index.setdefault(form, i)
        # Case-insensitive terms first: "MAP estimate" (a term) before the acronym "MAP".
        parts = [f"(?i:{_trie(self._index)})"] if self._index else []
        parts += [_trie(self._exact)] if self._exact else []
        self._pattern = (
            re.compile(_BOUNDARY + "(?:" + "|".join(parts) + ")" + _BOUNDARY) if parts else None
        )

    def protect(self, text: str) -> tuple[str, dict[str, str]]:
        """``text`` with each term replaced by its placeholder; the placeholders' targets."""
        if self._pattern is None:
            return text, {}
        pattern = self._pattern
        numbers = [int(n) for n in PLACEHOLDER_RE.findall(text)]
        if numbers and max(numbers) > PLACEHOLDER_BASE:
            return text, {}  # more formulas than any paragraph has: keep them apart
        terms: dict[str, str] = {}

        def swap(match: re.Match[str]) -> str:
            found = _SPACE_RE.sub(" ", match.group(0))
            i = self._exact.get(found, self._index.get(found.lower()))
            if i is None:  # a case folding the lookup does not share
                return match.group(0)
            key = f"{{v{PLACEHOLDER_BASE + 1 + i}}}"
            terms[key] = self.entries[i].target
            return key

        out: list[str] = []
        at = 0
        for placeholder in PLACEHOLDER_RE.finditer(text):
            out.append(pattern.sub(swap, text[at : placeholder.start()]))
            out.append(placeholder.group(0))
            at = placeholder.end()
        out.append(pattern.sub(swap, text[at:]))
        return "".join(out), terms

    def apply(self, paragraph: Paragraph) -> Paragraph:
        text, terms = self.protect(paragraph.text)
        if not terms:
            return paragraph
        return dataclasses.replace(
            paragraph, text=text, placeholders={**paragraph.placeholders, **terms}
        )

    def key_text(self, text: str) -> str:
        numbers = sorted(
            {int(n) for n in PLACEHOLDER_RE.findall(text)}
            & set(range(PLACEHOLDER_BASE + 1, PLACEHOLDER_BASE + 1 + len(self.entries)))
        )
        if not numbers:
            return text
        used = [self.entries[n - PLACEHOLDER_BASE - 1] for n in numbers]
        return (
            text
            + "\n\x1fglossary:"
            + "".join(
                f"\x1f{{v{n}}}={entry.source}\x1e{entry.target}"
                for n, entry in zip(numbers, used, strict=True)
            )
        )


def _is_acronym(term: str) -> bool:
    """Two or more letters, all capitals ("MAP", "GPT-4", "IT"): matched as written."""
    cased = [char for char in term if char.isupper() or char.islower()]
    return len(cased) >= 2 and all(char.isupper() for char in cased)


def _normal(term: str) -> str:
    return _SPACE_RE.sub(" ", term.strip()).lower()


def _forms(term: str, english: bool) -> list[str]:
    """The term and, from English, its plural forms."""
    forms = [term]
    if english and term[-1:].isascii() and term[-1:].isalpha():
        forms += [term + "s", term + "es"]
        if _CONSONANT_Y.search(term):
            forms.append(term[:-1] + "ies")
    return forms


def _trie(words: Iterable[str]) -> str:
    """One pattern matching any of ``words`` (lower case), the longest first at each place:
    a trie, so matching costs the length of a term, not the number of terms."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        branches = [
            (r"\s+" if char == " " else re.escape(char)) + build(child)
            for char, child in node.items()
            if char
        ]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        # Greedy: the longer term is tried first, the shorter one if what follows fails.
        return f"(?:{body})?" if "" in node else body

    return "(?:" + build(root) + ")"


def _for_target(entries: Sequence[Entry], target: Language) -> list[Entry]:
    """The entries that apply to ``target``; one for the same source term for ``target`` wins
    over one for every language."""
    chosen: dict[str, Entry] = {}
    for entry in entries:
        if entry.lang not in (None, target):
            continue
        source = _normal(entry.source)
        if source not in chosen or entry.lang is not None:
            chosen[source] = entry
    return list(chosen.values())


# --- the file --------------------------------------------------------------------------------


def _parse(text: str, name: str) -> list[Entry]:
    text = text.removeprefix("\ufeff")
    first = next((line for line in text.splitlines() if line.strip()), "")
    delimiter = "\t" if "\t" in first and "," not in first else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    entries: list[Entry] = []
    seen: dict[tuple[str, Language | None], tuple[int, str]] = {}
    default_lang: Language | None = None
    header_done = False
    line = 0
    try:
        for row in reader:
            line = reader.line_num - sum(cell.count("\n") for cell in row)
            cells = [cell.strip() for cell in row]
            if not any(cells) or cells[0].startswith("#"):
                continue
            if not header_done:
                header_done = True
                is_header, default_lang = _header(cells)
                if is_header:
                    continue
            entry = _entry(cells, default_lang, f"{name}, line {line}")
            key = (_normal(entry.source), entry.lang)
            if key in seen:
                other_line, other_target = seen[key]
                if other_target != entry.target:
                    raise InputError(
                        f"{name}, line {line}: {entry.source!r} is already on line {other_line}"
                        f" with another translation ({other_target!r})"
                    )
                continue
            seen[key] = (line, entry.target)
            entries.append(entry)
            if len(entries) > MAX_ENTRIES:
                raise InputError(f"{name}: more than {MAX_ENTRIES} entries")
    except csv.Error as exc:
        raise InputError(f"{name}, line {reader.line_num}: {exc}") from None
    return entries


def _header(cells: list[str]) -> tuple[bool, Language | None]:
    """Whether ``cells`` is a header, and the target language it names (or None)."""
    words = [cell.lower() for cell in cells]
    if len(words) not in (2, 3) or (len(words) == 3 and words[2] and words[2] not in _LANG_WORDS):
        return False, None
    if words[0] in _HEADER_WORDS and words[1] in _HEADER_WORDS:
        return True, None
    if all(len(word) <= 10 for word in words[:2]):
        try:
            languages = [Language.parse(word) for word in words[:2]]
        except UnsupportedLanguageError:
            return False, None
        return True, languages[1]
    return False, None


def _entry(cells: list[str], default_lang: Language | None, where: str) -> Entry:
    if len(cells) < 2:
        raise InputError(f"{where}: expected source,target (a comma between the two terms)")
    if len(cells) > 3:
        raise InputError(f"{where}: expected source,target[,language], found {len(cells)} fields")
    source, target = (_SPACE_RE.sub(" ", cell) for cell in cells[:2])
    if not source or not target:
        raise InputError(f"{where}: the {'source' if not source else 'target'} term is empty")
    if max(len(source), len(target)) > MAX_TERM_CHARS:
        raise InputError(f"{where}: a term is longer than {MAX_TERM_CHARS} characters")
    if not any(char.isalnum() for char in source):
        raise InputError(f"{where}: the source term {source!r} has no letter or digit")
    if PLACEHOLDER_RE.search(source) or "{" in source or "}" in source:
        raise InputError(f"{where}: the source term {source!r} may not hold braces")
    lang = default_lang
    if len(cells) == 3 and cells[2]:
        try:
            lang = Language.parse(cells[2])
        except UnsupportedLanguageError as exc:
            raise InputError(f"{where}: {exc}") from None
    return Entry(source, target, lang)
