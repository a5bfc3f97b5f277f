"""Equations among OCR'd lines: a scanned display equation reads as letters, digits and
operators ("L(θ) = −Σ log p(y | x; θ) (1)", "f(x) = ax + b"), which the reading rules would
take for a line of prose. Told by its text alone (pure): operators and math symbols, and few
words of prose."""

from __future__ import annotations

import re

# Relations, operators and brackets a formula is made of (not "-" alone: a hyphenated word).
_OPERATORS = frozenset("=+−×÷·*/^_<>≤≥≠≈∼∝∈∉⊂⊆∪∩→←↦∀∃∑Σ∏Π∫√∂∇∞|‖()[]{}")
_RELATIONS = frozenset("=<>≤≥≠≈∼∝∈⊂⊆→↦")
# Greek letters and the math blocks (arrows, operators, letterlike symbols).
_MATH_CHAR_RE = re.compile(r"[\u0370-\u03ff\u2100-\u214f\u2190-\u22ff\u27c0-\u27ff\u2900-\u2aff]")
# A word of prose: three letters or more (a variable name is one or two) or a short function
# word, maybe hyphenated at the line's end, punctuation after.
_WORD_RE = re.compile(
    r"^[\"'(]?(?:[A-Za-z]{3,}|(?i:an|as|at|be|by|if|in|is|it|of|on|or|to|we))-?[)\"'.,;:]?$"
)
# Function names a formula writes out: not prose.
_FUNCTIONS = frozenset(
    "log exp sin cos tan tanh sinh cosh max min arg argmax argmin lim sup inf det diag "
    "softmax sigmoid relu mod gcd var cov".split()
)
#: At most this many words of prose, and this share of the tokens.
_MAX_WORDS, _WORD_SHARE = 2, 0.25


def is_equation(text: str) -> bool:
    """Whether an OCR'd line is an equation: a relation ("=", "≤", "∈"...) or two math
    symbols, two or more operators and math symbols in all, and at most two words of prose
    making up no more than a quarter of its tokens (an equation number "(1)" counts for
    nothing)."""
    tokens = text.split()
    if not tokens:
        return False
    math = sum(c in _OPERATORS for c in text) + len(_MATH_CHAR_RE.findall(text))
    symbols = len(_MATH_CHAR_RE.findall(text))
    if math < 2 or not (any(c in _RELATIONS for c in text) or symbols >= 2):
        return False
    words = [
        t for t in tokens if _WORD_RE.match(t) and t.strip("\"'().,;:").lower() not in _FUNCTIONS
    ]
    return len(words) <= _MAX_WORDS and len(words) <= _WORD_SHARE * len(tokens)
