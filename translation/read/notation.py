"""Table cells of notation: acronyms, model and metric names and their settings ("TAPASBASE
2p", "SEQ", "BLEU", "ROUGE-L", "F1"). Such a cell is printed as it is, never sent: a model has
nothing to translate in it and may spell a name out or transliterate it. Pure."""

from __future__ import annotations

import re

from translation.read.vocabulary import Vocabulary

#: A name in capitals: letters, digits and joiners, two characters or more, no lower case.
_CAPS_RE = re.compile(r"^[A-Z][A-Z0-9]*(?:[-+/.][A-Z0-9]+)*$")
#: A number with a short unit or setting ("2p", "16k", "0.5", "10%").
_SETTING_RE = re.compile(r"^\d+(?:\.\d+)?[a-zA-Z%]{0,2}$")
_PLACEHOLDER_RE = re.compile(r"^\{v\d+\}$")
_LETTERS_RE = re.compile(r"[^\W\d_]+")
_EDGES = "()[],;:*†‡"


def only_notation(text: str, seen: Vocabulary | None) -> bool:
    """Whether ``text`` (a cell's, placeholders in it) is notation only: names in capitals,
    numbers with a short unit and placeholders, one capitals name at least, and no capitals
    name that the document (``seen``) also prints as a word in lower case ("ALL" is "all")."""
    tokens = [t.strip(_EDGES) for t in text.split()]
    tokens = [t for t in tokens if t]
    names = [t for t in tokens if len(t) >= 2 and _CAPS_RE.match(t)]
    if not names or any(
        not (_CAPS_RE.match(t) and len(t) >= 2)
        and not _SETTING_RE.match(t)
        and not _PLACEHOLDER_RE.match(t)
        for t in tokens
    ):
        return False
    lowered = seen.lowered if seen is not None else frozenset()
    return not any(run.lower() in lowered for name in names for run in _LETTERS_RE.findall(name))
