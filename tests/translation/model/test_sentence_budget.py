"""The sentence budget (issue 22 item 6): a paragraph over ``ZT_REQUEST_MAX_TOKENS`` reaches the
model as runs of whole sentences, never cut inside one, and comes back as one translation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from common.language import Language
from common.settings import load_settings
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.vllm import FakeVLLMFactory
from translation.model.llm import LLMClient
from translation.model.prompts import estimate_tokens
from translation.model.sentence_budget import budget_pieces, join_answers

SENTENCES = [
    "Transformers replaced recurrence with attention {v1}.",
    "The encoder maps an input sequence to representations, as in Fig. 2 of Vaswani et al. 2017.",
    "The decoder generates the output one token at a time.",
    "Results on translation benchmarks improved by {v2} points.",
    "We release the code and the models.",
]
PAPER = " ".join(SENTENCES)


@pytest.fixture
def fake_vllm(tmp_path: Path) -> Iterator[FakeVLLMFactory]:
    with FakeVLLMFactory(tmp_path) as factory:
        yield factory


def test_a_paragraph_within_the_budget_is_one_request() -> None:
    assert budget_pieces(PAPER, 1000) == [PAPER]


def test_a_paragraph_over_the_budget_is_cut_at_sentence_ends_only() -> None:
    pieces = budget_pieces(PAPER, 30)
    assert len(pieces) >= 3
    assert " ".join(pieces) == PAPER
    for piece in pieces:
        assert estimate_tokens(piece) <= 30
        # Each piece is a run of whole sentences ("Fig. 2" and "et al." are no sentence ends).
        assert any(piece.startswith(s) for s in SENTENCES) and piece.endswith(".")


def test_a_sentence_over_the_budget_goes_whole() -> None:
    long = "This sentence " + "goes on and on " * 30 + "without end."
    assert budget_pieces(f"Short one. {long} Another one.", 20) == [
        "Short one.",
        long,
        "Another one.",
    ]


def test_answers_are_joined_with_a_space_but_not_in_chinese_or_japanese() -> None:
    assert join_answers(["Eins.", "Zwei."], Language.parse("de")) == "Eins. Zwei."
    assert join_answers(["一。", "二。"], Language.parse("zh-Hans")) == "一。二。"


async def test_the_client_sends_an_over_budget_paragraph_as_whole_sentences(
    fake_vllm: FakeVLLMFactory, tmp_path: Path
) -> None:
    server = fake_vllm.start()
    settings = load_settings(
        data_dir=tmp_path, llm_base_url=server.base_url, llm_api_key="k", request_max_tokens=64
    )
    async with LLMClient.from_settings(settings) as client:
        answer = await client.translate(PAPER, Language.parse("en"), Language.parse("ko"))
    assert answer == pseudo_translate(PAPER, "ko")
    sent = server.texts()
    assert len(sent) >= 2 and len(server.requests()) == len(sent)  # none rejected, none split
    assert " ".join(sent) == PAPER
    assert all(estimate_tokens(text) <= 64 for text in sent)
    assert all(any(text.startswith(s) for s in SENTENCES) for text in sent)
