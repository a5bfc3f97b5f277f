"""Table cells of notation: acronyms, model and metric names and their settings ("TAPASBASE
2p", "SEQ", "BLEU", "ROUGE-L", "F1"). Such a cell is printed as it is, never sent: a model has
nothing to translate in it and may spell a name out or transliterate it. Pure."""

from __future__ import annotations

import re

from translation.read.math.formulas import PLACEHOLDER_RE
from translation.read.words.vocabulary import Vocabulary

#: A name in capitals: letters, digits and joiners, two characters or more, no lower case.
_CAPS_RE = re.compile(r"^[A-Z][A-Z0-9]*(?:[-+/.][A-Z0-9]+)*$")
#: A number with a short unit or setting ("2p", "16k", "0.5", "10%").
_SETTING_RE = re.compile(r"^\d+(?:\.\d+)?[a-zA-Z%]{0,2}$")
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
        and not PLACEHOLDER_RE.fullmatch(t)
        for t in tokens
    ):
        return False
    lowered = seen.lowered if seen is not None else frozenset()
    return not any(run.lower() in lowered for name in names for run in _LETTERS_RE.findall(name))


#: A citation: "Li et al. (2016)", "(Li et al., 2016)", "(Sadvilkar and Neumann, 2020)",
#: "Wacker et al. [34]", "[12]".
_CITATION_RE = re.compile(
    r"\(?(?:[A-Z][\w'’-]+(?:\s+et\s+al\.|\s+and\s+[A-Z][\w'’-]+)?(?:,\s*|\s+)"
    r"(?:\(\d{4}[a-z]?\)|\d{4}[a-z]?|\[\d+(?:[,–-]\s*\d+)*\]))\)?"
    r"|\[\d+(?:[,–-]\s*\d+)*\]"
)
#: A resource's name: two capitals or more, or a capital inside ("SciERC", "ChemProt",
#: "NCBI-disease", "BC5CDR"), as a sentence's words are not.
_NAME_RE = re.compile(r"^(?=(?:.*[A-Z]){2})[A-Za-z0-9]+(?:[-/][A-Za-z0-9]+)*$")


def only_citation(text: str) -> bool:
    """Whether a cell (its text, tags removed) is citations alone, or a resource's name with
    its citation ("Li et al. (2016)", "BC5CDR (Li et al., 2016)", "GENIA (Kim et al., 2003) -
    LAS"): names and references, printed as they are."""
    rest, found = _CITATION_RE.subn(" ", text)
    if not found:
        return False
    words = [t for t in rest.split() if t not in ("-", "–", "—", ",", ";")]
    return all(_NAME_RE.match(w) for w in words)
