"""Sentence budget: what one request may hold.

TranslateGemma reads about 2K tokens of input. A paragraph whose estimated size
(:func:`translation.model.prompts.estimate_tokens`) is over the budget (``ZT_REQUEST_MAX_TOKENS``,
well below that) is sent as several requests, each a run of whole sentences that fits it; it is
never cut inside a sentence (a single sentence over the budget goes whole). The answers are
joined back into the paragraph's translation.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from common.language import Language
from translation.model import prompts


def budget_pieces(text: str, max_tokens: int) -> list[str]:
    """``text`` as the requests to send: itself when it fits ``max_tokens``, else runs of its
    sentences, each as long as fits (whitespace between the runs dropped)."""
    if prompts.estimate_tokens(text) <= max_tokens:
        return [text]
    pieces: list[str] = []
    start = fits = 0
    for cut in [*prompts.sentence_cuts(text), len(text)]:
        if fits > start and prompts.estimate_tokens(text[start:cut]) > max_tokens:
            pieces.append(text[start:fits].strip())
            start = fits
        fits = cut
    pieces.append(text[start:].strip())
    return [piece for piece in pieces if piece]


def join_answers(answers: Sequence[str], target_lang: Language) -> str:
    """The translations of a paragraph's pieces, in order, as one text (no space between them
    for Chinese and Japanese)."""
    if not answers:
        return ""
    return functools.reduce(
        lambda left, right: prompts.join_pieces(left, right, target_lang), answers
    )
