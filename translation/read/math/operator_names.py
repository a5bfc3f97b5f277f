"""Operator names: the words mathematics typesets upright as names of functions and limits
(``arccos``, ``lim sup``, ``det``). A piece of text made of nothing else (a table cell listing
operators, a formula's lone ``max``) is notation, never sent to the model."""

from __future__ import annotations

from collections.abc import Sequence

#: The operator names of LaTeX (``\arccos`` ... ``\tanh``, ``\limsup``, ``\liminf``) and a few
#: that papers declare often (``\argmax``, ``\softmax``, ``\diag``, ``\tr``).
OPERATOR_NAMES = frozenset(
    "arccos arcsin arctan arg argmax argmin cos cosh cot coth csc deg det diag dim exp gcd "
    "hom inf ker lg lim liminf limsup ln log max min Pr sec sin sinh softmax sup tan tanh tr "
    "Tr var Var cov Cov erf sgn sign".split()
)

#: A line of operator names alone has at most this many words.
_NAMES_MOST = 4


def only_operator_names(words: Sequence[str]) -> bool:
    """Whether ``words`` are one to four operator names, as set (``lim sup`` counts as two)."""
    return 0 < len(words) <= _NAMES_MOST and all(w in OPERATOR_NAMES for w in words)
