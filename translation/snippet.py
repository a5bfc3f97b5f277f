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
    if target.is_korean:
        terms = [
            value
            for key, value in snippet.placeholders.items()
            if int(key[2:-1]) > glossaries.PLACEHOLDER_BASE
        ]
        if terms:
            text = glossaries.particles_agree(text, terms)
    return text
