"""Sentence budget: what one request may hold.

TranslateGemma reads about 2K tokens of input. A paragraph whose estimated size
(:func:`translation.model.prompts.estimate_tokens`) is over the budget (``ZT_REQUEST_MAX_TOKENS``,
well below that) is sent as several requests, each a run of whole sentences that fits it; it is
never cut inside a sentence (a single sentence over the budget goes whole). The answers are
joined back into the paragraph's translation.

With several GPU hosts ready the budget shrinks (:func:`pool_budget`): a host ends its share of
a paper on its longest answer, which it generates one token per engine step whatever the others
do, so one long paragraph can outlast the whole paper split over the pool. Each piece is still
whole sentences; what is lost is the context across the cut (the model sees each piece alone).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from common.language import Language
from translation.model import prompts

#: The pool budget never goes below this many estimated tokens: ordinary paragraphs (a long one
#: in a paper is 150-250) stay whole, and only the few longest of a paper are cut.
POOL_FLOOR_TOKENS = 300


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


def even_pieces(text: str, max_tokens: int) -> list[str]:
    """As many pieces as :func:`budget_pieces` makes, but as even as the sentences allow: the
    longest piece as short as it can be (a pool's tail is its longest request)."""
    pieces = budget_pieces(text, max_tokens)
    if len(pieces) == 1:
        return pieces
    low, high = 1, max_tokens  # the fewest pieces a bound allows falls as the bound grows
    while low < high:
        middle = (low + high) // 2
        if len(budget_pieces(text, middle)) <= len(pieces):
            high = middle
        else:
            low = middle + 1
    return budget_pieces(text, high)


def pool_budget(max_tokens: int, ready_hosts: int) -> int:
    """The budget of one request while ``ready_hosts`` hosts share the work: ``max_tokens`` on
    one host; on n it is ``max_tokens / n`` (a request keeps the share of the paper's time it
    has on one host, as n hosts make that time n times shorter), never below
    ``POOL_FLOOR_TOKENS`` (nor above ``max_tokens``)."""
    if ready_hosts <= 1:
        return max_tokens
    return min(max_tokens, max(POOL_FLOOR_TOKENS, max_tokens // ready_hosts))


def join_answers(answers: Sequence[str], target_lang: Language) -> str:
    """The translations of a paragraph's pieces, in order, as one text (no space between them
    for Chinese and Japanese)."""
    if not answers:
        return ""
    return functools.reduce(
        lambda left, right: prompts.join_pieces(left, right, target_lang), answers
    )
