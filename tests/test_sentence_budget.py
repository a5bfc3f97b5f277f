"""The sentence budget (issue 22 item 6): a paragraph over ``ZT_REQUEST_MAX_TOKENS`` reaches the
model as runs of whole sentences, never cut inside one, and comes back as one translation. The
pieces are requests of their own, sent at once: over several GPU hosts (issue 25 item 8) one
long paragraph's pieces are answered by several hosts, and while several are ready the budget
is the pool's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from common.errors import LLMError
from common.language import Language
from common.settings import Settings, load_settings
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess
from translation.model.dispatch import Dispatcher, Lane
from translation.model.limiter import FixedLimiter
from translation.model.llm import LLMClient
from translation.model.prompts import estimate_tokens
from translation.model.sentence_budget import (
    POOL_FLOOR_TOKENS,
    budget_pieces,
    even_pieces,
    join_answers,
    pool_budget,
)
from translation.pipeline import Translator
from translation.request import TranslationRequest

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


def test_the_pool_budget_is_the_budget_on_one_host_and_shrinks_to_a_floor_on_several() -> None:
    assert pool_budget(1000, 1) == 1000
    assert pool_budget(1000, 2) == 500
    assert pool_budget(1000, 3) == 333
    assert pool_budget(1000, 8) == POOL_FLOOR_TOKENS
    assert pool_budget(200, 3) == 200  # never above the budget asked for


def test_even_pieces_are_as_many_as_the_budget_makes_with_the_longest_shorter() -> None:
    greedy, even = budget_pieces(PAPER, 50), even_pieces(PAPER, 50)
    assert len(even) == len(greedy) == 2
    assert " ".join(even) == PAPER
    assert max(map(estimate_tokens, even)) < max(map(estimate_tokens, greedy))
    assert all(any(piece.startswith(s) for s in SENTENCES) for piece in even)
    assert even_pieces(PAPER, 1000) == [PAPER]


# A paragraph of about 400 estimated tokens: two pieces on three hosts, whole on one.
LONG = " ".join([s.replace(" {v1}", "").replace(" {v2}", "") for s in SENTENCES] * 5)
GERMAN = Language.parse("de")


def _pdf(text: str) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    assert page.insert_textbox(pymupdf.Rect(72, 72, 520, 760), text, fontsize=10) >= 0
    data: bytes = doc.tobytes()
    doc.close()
    return data


def _settings(
    tmp_path: Path, server: FakeVLLMProcess, budget: int = 1000, split: bool = True
) -> Settings:
    return load_settings(
        data_dir=tmp_path,
        llm_base_url=server.base_url,
        llm_api_key="k",
        request_max_tokens=budget,
        pool_split=split,
    )


async def _translate(translator: Translator, pool: Dispatcher | None, text: str) -> str:
    """The translated page's text, on one line."""
    request = TranslationRequest(pdf=_pdf(text), source_lang=Language("en"), target_lang=GERMAN)
    try:
        result = await translator.translate(request)
    finally:
        await translator.aclose()
        if pool is not None:
            await pool.aclose()
    assert result.mono is not None
    with pymupdf.open(stream=result.mono) as out:
        return " ".join(out[0].get_text().split())


def _pool(
    tmp_path: Path, servers: list[FakeVLLMProcess], budget: int = 1000, split: bool = True
) -> tuple[Translator, Dispatcher]:
    settings = _settings(tmp_path, servers[0], budget, split)
    lanes = [
        Lane(f"h{n}", LLMClient.from_settings(_settings(tmp_path, s)), FixedLimiter(4), ready=True)
        for n, s in enumerate(servers)
    ]

    async def ready(_: object) -> None:
        return None

    pool = Dispatcher(lanes)
    return Translator.from_settings(settings, ready, router=pool), pool


async def test_one_host_sends_an_over_budget_paragraph_as_whole_sentences(
    fake_vllm: FakeVLLMFactory, tmp_path: Path
) -> None:
    server = fake_vllm.start()

    async def ready(_: object) -> None:
        return None

    translator = Translator.from_settings(_settings(tmp_path, server, 64), ready)
    page = await _translate(translator, None, PAPER)
    sent = server.texts()
    pieces = budget_pieces(PAPER, 64)
    assert sorted(sent) == sorted(pieces) and len(sent) >= 2  # all at once: in any order
    assert len(server.requests()) == len(sent)  # none rejected, none split by the client
    assert all(estimate_tokens(text) <= 64 for text in sent)
    assert page == join_answers([pseudo_translate(p, "de") for p in pieces], GERMAN)


async def test_a_long_paragraphs_pieces_are_answered_by_several_hosts_in_order(
    fake_vllm: FakeVLLMFactory, tmp_path: Path
) -> None:
    servers = [fake_vllm.start(), fake_vllm.start()]
    page = await _translate(*_pool(tmp_path, servers, 64), PAPER)
    pieces = budget_pieces(PAPER, 64)
    served = [server.texts() for server in servers]
    assert all(served), f"one host answered every piece: {served}"
    assert sorted(served[0] + served[1]) == sorted(pieces)
    assert page == join_answers([pseudo_translate(p, "de") for p in pieces], GERMAN)


async def test_three_ready_hosts_cut_a_paragraph_one_host_sends_whole(
    fake_vllm: FakeVLLMFactory, tmp_path: Path
) -> None:
    assert 333 < estimate_tokens(LONG) <= 1000
    one = fake_vllm.start()
    await _translate(*_pool(tmp_path / "one", [one]), LONG)
    assert one.texts() == [LONG]
    three = [fake_vllm.start() for _ in range(3)]
    page = await _translate(*_pool(tmp_path / "three", three), LONG)
    pieces = even_pieces(LONG, pool_budget(1000, 3))
    assert len(pieces) == 2
    assert sorted(t for s in three for t in s.texts()) == sorted(pieces)
    assert page == join_answers([pseudo_translate(p, "de") for p in pieces], GERMAN)


async def test_a_pool_keeps_paragraphs_whole_where_the_user_asks(
    fake_vllm: FakeVLLMFactory, tmp_path: Path
) -> None:
    three = [fake_vllm.start() for _ in range(3)]
    await _translate(*_pool(tmp_path, three, split=False), LONG)
    assert [t for s in three for t in s.texts()] == [LONG]


async def test_a_piece_answered_is_not_paid_again_when_the_paper_is_sent_again(
    fake_vllm: FakeVLLMFactory, tmp_path: Path
) -> None:
    # The second host rejects its first request: the paper fails with a piece answered.
    servers = [
        fake_vllm.start(),
        fake_vllm.start("--fake-fail-first", "1", "--fake-fail-status", "401"),
    ]
    translator, pool = _pool(tmp_path, servers, 64)
    request = TranslationRequest(pdf=_pdf(PAPER), source_lang=Language("en"), target_lang=GERMAN)
    try:
        with pytest.raises(LLMError, match="API key"):
            await translator.translate(request)
        answered_first = [t for s in servers for t in s.texts()]
        assert answered_first, "no piece was answered before the failure"
        await translator.translate(request)
    finally:
        await translator.aclose()
        await pool.aclose()
    pieces = budget_pieces(PAPER, 64)
    answered = [t for s in servers for t in s.texts()]
    assert sorted(answered) == sorted(pieces)  # each piece paid for once over both runs
