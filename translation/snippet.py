"""A snippet: a short plain text a reader plugin sends (a selection, an annotation, a title),
protected the way a paper's paragraph is, and its answer put back together. Pure, no I/O.

What the model must not touch becomes a placeholder ``{v1}``, ``{v2}``... exactly as in a
paper (``translation.read.math.formulas``): inline math and symbols (Greek, operators, sub- and
superscripts), URLs and e-mail addresses, and identifiers a reader selects with the text:
DOIs, arXiv ids, ``snake_case`` and ``camelCase`` names, calls ``f()`` and ``a::b`` paths.
Glossary terms (``ZT_GLOSSARY``) become their own placeholders and come back as the target
term. A literal style tag in the selection (``<b>``) is protected too and comes back as typed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from common.language import Language
from translation.model import glossary as glossaries
from translation.model.glossary import Glossary
from translation.read.math.formulas import CODE, MANGLED_RE, PLACEHOLDER_RE, char_class, protect

#: Identifiers that stay as written (each match is marked as code before protecting).
IDENTIFIER_RE = re.compile(
    r"\b10\.\d{4,9}/[^\s\"<>]+[^\s\"<>.,;:)\]]"  # a DOI
    r"|\barXiv:\s?\d{4}\.\d{4,5}(?:v\d+)?"
    r"|\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b"  # snake_case (not a lone "_")
    r"|\b[a-z]+[0-9]*[A-Z][A-Za-z0-9]*\b"  # camelCase
    r"|\b[A-Za-z_][\w.]*\(\)"  # a call: f(), np.mean()
    r"|\b\w+(?:::\w+)+"  # a path: std::vector
)


@dataclass(frozen=True)
class Snippet:
    """``text`` is what the model is sent; ``placeholders`` maps each placeholder to what it
    stands for in the answer (the original, or a glossary term's target)."""

    original: str
    text: str
    placeholders: dict[str, str] = field(default_factory=dict)

    @property
    def translatable(self) -> bool:
        """Whether anything is left for the model: letters outside the placeholders."""
        return any(char.isalpha() for char in PLACEHOLDER_RE.sub("", self.text))


#: A markup tag of an HTML selection (LibreTranslate's ``format: html``).
HTML_TAG_RE = re.compile(r"<[A-Za-z/!][^<>]{0,300}>")


def protect_snippet(
    text: str,
    source: Language,
    target: Language,
    glossary: Glossary | None = None,
    *,
    html: bool = False,
) -> Snippet:
    """``text`` with math, URLs, identifiers and glossary terms (and with ``html`` every
    markup tag) replaced by placeholders."""
    classes = list(char_class(char, False) for char in text)
    patterns = (IDENTIFIER_RE, HTML_TAG_RE) if html else (IDENTIFIER_RE,)
    for match in (m for pattern in patterns for m in pattern.finditer(text)):
        classes[match.start() : match.end()] = [CODE] * (match.end() - match.start())
    sent, originals, _ = protect(text, "".join(classes))
    placeholders = dict(originals)
    if glossary is not None:
        sent, terms = glossary.matcher(source, target).protect(sent)
        placeholders.update(terms)
    return Snippet(text, sent, placeholders)


def restore_snippet(answer: str, snippet: Snippet, target: Language) -> str:
    """The answer with every placeholder put back: mangled forms (``{ v1 }``) are recognised,
    unknown ones dropped, a dropped one appended (so nothing the reader selected is lost);
    Korean particles after a glossary term agree with it (``glossary.particles_agree``)."""
    seen: set[str] = set()

    def put_back(match: re.Match[str]) -> str:
        key = f"{{v{int(match.group(1) or match.group(2))}}}"
        if key not in snippet.placeholders:
            return ""
        seen.add(key)
        return snippet.placeholders[key]

    text = MANGLED_RE.sub(put_back, answer)
    missing = [value for key, value in snippet.placeholders.items() if key not in seen]
    if missing:
        text = " ".join([text.rstrip(), *missing]) if text.strip() else " ".join(missing)
    return _particles_agree(text, snippet, target)


def _particles_agree(text: str, snippet: Snippet, target: Language) -> str:
    """Korean particles after a glossary term agree with it (``glossary.particles_agree``)."""
    if not target.is_korean:
        return text
    terms = [
        value
        for key, value in snippet.placeholders.items()
        if int(key[2:-1]) > glossaries.PLACEHOLDER_BASE
    ]
    return glossaries.particles_agree(text, terms) if terms else text


class StreamedAnswer:
    """An answer arriving in pieces, shown as it settles: :meth:`add` returns what may be shown
    now beyond what was shown before, :meth:`end` the rest (``restore_snippet`` of the whole).

    Held back until the answer goes on: the word being made (a Korean particle after a glossary
    term may still change; in Chinese and Japanese, which have no spaces, the last character)
    and a placeholder half written (``{v``). What was shown is never taken back: should the
    whole answer not begin with it (it always does: placeholders only grow into their text),
    the rest is what follows their common beginning."""

    def __init__(self, snippet: Snippet, target: Language) -> None:
        self._snippet = snippet
        self._target = target
        self._raw = ""
        self.shown = ""

    def add(self, piece: str) -> str:
        self._raw += piece
        head = self._raw
        brace = head.rfind("{")
        if brace != -1 and "}" not in head[brace:]:
            head = head[:brace]
        cut = max(head.rfind(" "), head.rfind("\n")) if self._target.spaced else len(head) - 1
        if cut <= 0:
            return ""
        settled = _put_back(head[:cut], self._snippet, self._target)
        return self._show(settled)

    def end(self, whole: str) -> str:
        """The rest of ``whole`` (the model's whole answer, as cached)."""
        return self._show(restore_snippet(whole, self._snippet, self._target), final=True)

    def _show(self, text: str, final: bool = False) -> str:
        if text.startswith(self.shown):
            new = text[len(self.shown) :]
        elif final:
            common = 0
            for a, b in zip(text, self.shown, strict=False):
                if a != b:
                    break
                common += 1
            new = text[common:]
        else:
            return ""
        self.shown += new
        return new


def _put_back(answer: str, snippet: Snippet, target: Language) -> str:
    """``restore_snippet`` of an answer's beginning: placeholders it holds put back; those it
    does not hold yet are not appended (they may come)."""
    text = MANGLED_RE.sub(
        lambda m: snippet.placeholders.get(f"{{v{int(m.group(1) or m.group(2))}}}", ""), answer
    )
    return _particles_agree(text, snippet, target)
