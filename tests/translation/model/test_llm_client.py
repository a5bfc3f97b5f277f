"""LLMClient with the real openai client against the fake vLLM as a real process."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from common.errors import LLMError, LLMUnavailableError, UnsupportedLanguageError
from common.language import Language
from common.settings import load_settings
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.net import free_port
from tests.helpers.vllm import DEFAULT_MODEL, FakeVLLMFactory, FakeVLLMProcess
from translation.model import prompts
from translation.model.llm import LLMClient, readiness_probe

EN, KO = Language.parse("en"), Language.parse("ko")

PAPER = (
    "Transformers replaced recurrence with attention {v1}. The encoder maps an input sequence "
    "to representations. The decoder generates the output one token at a time. Results on "
    "translation benchmarks improved by {v2} points. We release the code and the models."
)


@pytest.fixture
def fake_vllm(tmp_path: Path) -> Iterator[FakeVLLMFactory]:
    with FakeVLLMFactory(tmp_path) as factory:
        yield factory


def make_client(server: FakeVLLMProcess | None = None, **overrides: Any) -> LLMClient:
    options: dict[str, Any] = {
        "base_url": server.base_url if server else f"http://127.0.0.1:{free_port()}/v1",
        "model": server.model if server else DEFAULT_MODEL,
        "api_key": server.api_key if server else None,
        "prompt_format": "translategemma",
        "timeout_s": 10.0,
        "deadline_s": 10.0,
        "max_attempts": 4,
        "backoff_s": 0.01,
        "backoff_max_s": 0.05,
    }
    options.update(overrides)
    return LLMClient(**options)


def posts(server: FakeVLLMProcess, path: str = "/v1/chat/completions") -> int:
    """POSTs the fake received on ``path`` (its access log counts rejected ones too). The log
    line is written just after the answer, so a count read at once can miss the last one:
    wait (two seconds at most) until it stops changing."""
    needle = f'"POST {path} HTTP/1.1"'
    deadline = time.monotonic() + 2.0
    count, steady_since = server.output().count(needle), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = server.output().count(needle)
        if now != count:
            count, steady_since = now, time.monotonic()
        elif count and time.monotonic() - steady_since >= 0.3:
            break
    return count


async def test_translates_with_the_translategemma_content_part(
    fake_vllm: FakeVLLMFactory,
) -> None:
    server = fake_vllm.start()
    async with make_client(server) as client:
        answer = await client.translate(
            "Attention is all you need {v1}.", Language.parse("en-US"), Language.parse("zh-CN")
        )
    assert answer == pseudo_translate("Attention is all you need {v1}.", "zh-Hans")
    (entry,) = server.requests()
    assert (entry["source_lang"], entry["target_lang"]) == ("en", "zh-Hans")
    assert entry["temperature"] == 0
    expected_max = 2 * prompts.estimate_tokens("Attention is all you need {v1}.") + 64
    assert entry["max_tokens"] == expected_max


async def test_unsupported_language_fails_before_any_request(
    fake_vllm: FakeVLLMFactory,
) -> None:
    server = fake_vllm.start()
    async with make_client(server) as client:
        with pytest.raises(UnsupportedLanguageError):
            await client.translate("Hello.", Language.parse("en"), Language.parse("tlh"))
    assert posts(server) == 0


async def test_blank_text_needs_no_request(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start()
    async with make_client(server) as client:
        assert await client.translate("  \n ", EN, KO) == ""
    assert posts(server) == 0


async def test_server_errors_are_retried_until_success(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-fail-first", "2")
    async with make_client(server) as client:
        assert await client.translate("Retry me.", EN, KO) == pseudo_translate("Retry me.", "ko")
    assert [e["status"] for e in server.requests()] == [500, 500, 200]


async def test_rate_limits_are_retried(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-fail-first", "1", "--fake-fail-status", "429")
    async with make_client(server) as client:
        assert await client.translate("Slow down.", EN, KO) == pseudo_translate("Slow down.", "ko")
    assert [e["status"] for e in server.requests()] == [429, 200]


async def test_persistent_500_gives_up_after_max_attempts_with_llm_error(
    fake_vllm: FakeVLLMFactory,
) -> None:
    server = fake_vllm.start("--fake-fail-every", "1")
    async with make_client(server, max_attempts=3) as client:
        with pytest.raises(LLMError) as info:
            await client.translate("Never works.", EN, KO)
    assert not isinstance(info.value, LLMUnavailableError)
    assert "HTTP 500" in str(info.value) and "3 attempts" in str(info.value)
    assert len(server.requests()) == 3


async def test_persistent_503_means_unavailable(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-fail-every", "1", "--fake-fail-status", "503")
    async with make_client(server, max_attempts=2) as client:
        with pytest.raises(LLMUnavailableError):
            await client.translate("Engine dead.", EN, KO)
    assert len(server.requests()) == 2


async def test_refused_connections_fail_within_the_deadline() -> None:
    """Nothing listens: many quick attempts, but never past deadline_s (no infinite retry)."""
    deadline_s = 1.0
    client = make_client(deadline_s=deadline_s, max_attempts=1000, backoff_s=0.05)
    started = time.monotonic()
    async with client:
        with pytest.raises(LLMUnavailableError) as info:
            await client.translate("Anyone there?", EN, KO)
    elapsed = time.monotonic() - started
    assert elapsed < deadline_s + 2.0  # without the deadline: 1000 attempts, ~50 s
    assert "not answering" in str(info.value) and "cannot connect" in str(info.value)


async def test_a_hanging_server_times_out_as_unavailable(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-latency-ms", "3000")
    async with make_client(server, timeout_s=0.3, max_attempts=2) as client:
        with pytest.raises(LLMUnavailableError) as info:
            await client.translate("Too slow.", EN, KO)
    assert "timed out" in str(info.value)


async def test_too_long_paragraph_is_split_at_sentences(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start(max_model_len=200)
    async with make_client(server) as client:
        answer = await client.translate(PAPER, EN, KO)
    assert answer == pseudo_translate(PAPER, "ko")
    pieces = server.texts()
    assert len(pieces) >= 2
    assert posts(server) > len(pieces)  # the whole paragraph was rejected first
    assert " ".join(pieces) == PAPER  # whole sentences, in order, nothing lost or repeated
    for placeholder in ("{v1}", "{v2}"):
        assert sum(piece.count(placeholder) for piece in pieces) == 1


async def test_a_single_sentence_too_long_for_the_context_is_a_clear_error(
    fake_vllm: FakeVLLMFactory,
) -> None:
    server = fake_vllm.start(max_model_len=200)
    sentence = "This sentence " + "goes on and on " * 60 + "without end."
    async with make_client(server) as client:
        with pytest.raises(LLMError) as info:
            await client.translate(sentence, EN, KO)
    message = str(info.value)
    assert "single sentence" in message
    assert "maximum context length is 200 tokens" in message
    assert "--max-model-len" in message
    assert server.texts() == []


async def test_max_tokens_shrinks_to_the_room_the_server_reports(
    fake_vllm: FakeVLLMFactory,
) -> None:
    """The prompt fits, only 2x+64 answer tokens do not: no split, one answer."""
    text = "Short enough to fit in the context window of this model."
    server = fake_vllm.start(max_model_len=180)
    async with make_client(server) as client:
        assert await client.translate(text, EN, KO) == pseudo_translate(text, "ko")
    (entry,) = server.requests()
    assert entry["text"] == text
    assert entry["max_tokens"] < 2 * prompts.estimate_tokens(text) + 64
    assert posts(server) == 2  # the first ask was rejected with vLLM's context error


async def test_think_blocks_are_stripped(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-think")
    async with make_client(server) as client:
        answer = await client.translate("Think first.", EN, KO)
    assert answer == pseudo_translate("Think first.", "ko")
    assert "think" not in answer


async def test_an_empty_answer_is_retried_once(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-empty-first", "1")
    async with make_client(server) as client:
        assert await client.translate("Say something.", EN, KO) == pseudo_translate(
            "Say something.", "ko"
        )
    assert len(server.requests()) == 2


async def test_two_empty_answers_are_an_error(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-empty-first", "5", "--fake-think")
    async with make_client(server) as client:
        with pytest.raises(LLMError, match="empty answer"):
            await client.translate("Say something.", EN, KO)
    assert len(server.requests()) == 2


async def test_a_runaway_answer_is_split_then_fails_clearly(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-runaway")
    async with make_client(server) as client:
        with pytest.raises(LLMError, match="cut off"):
            await client.translate("One sentence. Another sentence.", EN, KO)
    assert server.texts() == [
        "One sentence. Another sentence.",
        "One sentence.",
    ]


async def test_a_bad_api_key_fails_at_once_with_what_to_fix(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start(api_key="right-key")
    async with make_client(server, api_key="wrong-key") as client:
        with pytest.raises(LLMError) as info:
            await client.translate("Let me in.", EN, KO)
    assert not isinstance(info.value, LLMUnavailableError)
    assert "API key" in str(info.value) and "ZT_LLM_API_KEY" in str(info.value)
    assert posts(server) == 1


async def test_the_right_api_key_is_sent(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start(api_key="right-key")
    async with make_client(server) as client:
        assert await client.translate("Let me in.", EN, KO) == pseudo_translate("Let me in.", "ko")


async def test_a_model_the_server_does_not_serve_fails_at_once(
    fake_vllm: FakeVLLMFactory,
) -> None:
    server = fake_vllm.start()
    async with make_client(server, model="google/translategemma-4b-it") as client:
        with pytest.raises(LLMError) as info:
            await client.translate("Who are you?", EN, KO)
    message = str(info.value)
    assert "'google/translategemma-4b-it'" in message
    assert "does not exist" in message and "ZT_LLM_MODEL" in message
    assert posts(server) == 1


async def test_old_vllm_without_content_keys_falls_back_to_completions(
    fake_vllm: FakeVLLMFactory,
) -> None:
    """vLLM before PR #41599 drops source/target codes: render the prompt ourselves."""
    server = fake_vllm.start("--fake-drop-lang-codes")
    async with make_client(server) as client:
        first = await client.translate(
            "First paragraph.", Language.parse("en"), Language.parse("ja")
        )
        second = await client.translate(
            "Second paragraph.", Language.parse("en"), Language.parse("ja")
        )
    assert first == pseudo_translate("First paragraph.", "ja")
    assert second == pseudo_translate("Second paragraph.", "ja")
    assert posts(server) == 1  # the rejected one; afterwards straight to /v1/completions
    assert [e["endpoint"] for e in server.requests()] == ["/v1/completions"] * 2


async def test_a_papers_paragraphs_carry_their_priority_a_selection_none(
    fake_vllm: FakeVLLMFactory,
) -> None:
    """A vLLM that schedules by priority gets the paper's priority on its paragraphs only, so a
    reader's selection (priority 0) is taken into its batch before the paragraphs waiting."""
    server = fake_vllm.start("--scheduling-policy", "priority")
    async with make_client(server, paper_priority=3) as client:
        paragraph = await client.translate("A paragraph of the paper.", EN, KO, paper=True)
        selection = await client.translate("A selected sentence.", EN, KO)
    assert paragraph == pseudo_translate("A paragraph of the paper.", "ko")
    assert selection == pseudo_translate("A selected sentence.", "ko")
    assert [(e["text"], e["priority"], e["status"]) for e in server.requests()] == [
        ("A paragraph of the paper.", 3, 200),
        ("A selected sentence.", 0, 200),
    ]


async def test_a_vllm_without_priority_scheduling_refuses_it_once(
    fake_vllm: FakeVLLMFactory, caplog: pytest.LogCaptureFixture
) -> None:
    """vLLM's default first-come-first-served policy refuses any priority but 0 with a 400: the
    paragraph is sent again without it, and no later request carries it (one refusal in all)."""
    server = fake_vllm.start("--scheduling-policy", "fcfs")  # vLLM's default
    async with make_client(server, paper_priority=1) as client:
        answers = [
            await client.translate(f"Paragraph number {n}.", EN, KO, paper=True) for n in range(3)
        ]
    assert answers == [pseudo_translate(f"Paragraph number {n}.", "ko") for n in range(3)]
    assert [(e["priority"], e["status"]) for e in server.requests()] == [
        (1, 400),
        (0, 200),
        (0, 200),
        (0, 200),
    ]
    assert posts(server) == 4
    assert not client.stats.errors  # nothing given up
    assert "--scheduling-policy priority" in caplog.text


async def test_readiness_probe_asks_one_token_the_way_translations_are_sent(
    fake_vllm: FakeVLLMFactory, tmp_path: Path
) -> None:
    """The vLLM manager confirms a wake with this probe: an old vLLM (no content keys) gets the
    rendered prompt as translations do, and a failing server is named, never raised."""
    server = fake_vllm.start("--fake-drop-lang-codes")
    settings = load_settings(data_dir=tmp_path, llm_base_url=server.base_url, target_lang="ja")
    assert await readiness_probe(settings)() is None
    assert posts(server) == 1  # the content part, rejected; then the rendered prompt
    (entry,) = server.requests()
    assert entry["endpoint"] == "/v1/completions" and entry["max_tokens"] == 1
    assert entry["target_lang"] == "ja"

    failing = fake_vllm.start("--fake-fail-first", "5", "--fake-fail-status", "503")
    settings = load_settings(data_dir=tmp_path, llm_base_url=failing.base_url)
    problem = await readiness_probe(settings)()
    assert problem is not None and problem.startswith("probe answered 503")
    assert posts(failing) == 1, "a probe is never retried"
    down = load_settings(data_dir=tmp_path, llm_base_url=f"http://127.0.0.1:{free_port()}/v1")
    assert (await readiness_probe(down)() or "").startswith("probe failed: cannot connect")


async def test_chat_format_for_a_general_model(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start(model="Qwen/Qwen3-8B")
    async with make_client(server, prompt_format="chat") as client:
        answer = await client.translate("Keep {v1} as is.", EN, KO)
    assert answer == pseudo_translate("Keep {v1} as is.", "ko")
    (entry,) = server.requests()
    assert entry["target_lang"] == "ko" and entry["temperature"] == 0


async def test_from_settings_and_a_shared_http_client(
    fake_vllm: FakeVLLMFactory, tmp_path: Path
) -> None:
    server = fake_vllm.start(api_key="k")
    configured = load_settings(
        data_dir=tmp_path, llm_base_url=server.base_url, llm_api_key="k", target_lang="de"
    )
    async with httpx.AsyncClient() as http:
        client = LLMClient.from_settings(configured, http_client=http)
        answer = await client.translate(
            "Hello world.", Language.parse("en"), configured.target_lang
        )
        await client.aclose()
        assert not http.is_closed  # the caller's client stays usable
    assert answer == pseudo_translate("Hello world.", "de")


async def test_cache_key_normalizes_language_codes() -> None:
    async with make_client() as client:
        assert client.cache_key(
            "x", Language.parse("en-US"), Language.parse("zh-CN")
        ) == client.cache_key("x", Language.parse("en"), Language.parse("zh-Hans"))
        key = client.cache_key("x", EN, KO)
    assert key.prompt == prompts.prompt_version("translategemma")
    assert key.model == DEFAULT_MODEL
