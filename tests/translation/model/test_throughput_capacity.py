"""The fake vLLM's capacity model (issue 6): engine steps, batch slots, a KV budget with
preemption, truthful /metrics, and the ideal-time bound the bench compares against.

The engine's own accounting (``/fake/stats``: steps, modelled busy time, exact peaks) is model
time, not wall time, so these assertions are exact and never timed.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.fakes.fake_vllm import CapacityModel, estimate_tokens, parse_config
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess
from translation.model.metrics import parse_load

MODEL = "google/translategemma-27b-it"


@pytest.fixture
def fake_vllm(tmp_path: Path) -> Iterator[FakeVLLMFactory]:
    with FakeVLLMFactory(tmp_path) as factory:
        yield factory


def chat(
    server: FakeVLLMProcess, text: str, max_tokens: int = 900, priority: int | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": max_tokens,
        "messages": [
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "source_lang_code": "en",
                        "target_lang_code": "de",
                        "text": text,
                    }
                ],
            }
        ],
    }
    if priority is not None:
        body["priority"] = priority
    response = httpx.post(f"{server.base_url}/chat/completions", json=body, timeout=60)
    response.raise_for_status()
    return dict(response.json())


async def chat_all(
    server: FakeVLLMProcess, texts: list[str], max_tokens: int = 900
) -> list[dict[str, Any]]:
    calls = (asyncio.to_thread(chat, server, t, max_tokens) for t in texts)
    return list(await asyncio.gather(*calls))


def stats(server: FakeVLLMProcess) -> dict[str, Any]:
    return dict(httpx.get(f"{server.root_url}/fake/stats", timeout=5).json())


def text_of(words: int, seed: int = 0) -> str:
    vocabulary = "citation graph paper model embedding attention document result".split()
    return " ".join(vocabulary[(seed + i) % len(vocabulary)] for i in range(words)) + "."


# --- pure: the model's arithmetic ------------------------------------------------------------


def test_step_time_grows_with_the_batch_and_the_prompt_tokens_it_prefills() -> None:
    model = CapacityModel(max_num_seqs=32, kv_tokens=40960, token_ms=20.0, batch_slowdown=0.05)
    assert model.step_s(1, 0) == pytest.approx(0.020)
    assert model.step_s(21, 0) == pytest.approx(0.020 * 2.0)  # 1 + 0.05 * 20
    assert model.step_s(1, 100) == pytest.approx(0.020 + 100 * 0.3 / 1000)
    fast = dataclasses.replace(model, time_scale=0.1)
    assert fast.step_s(5, 40) == pytest.approx(0.1 * model.step_s(5, 40))


def test_the_ideal_time_is_bound_by_the_slots_the_longest_answer_or_the_cache() -> None:
    model = CapacityModel(
        max_num_seqs=4, kv_tokens=100_000, token_ms=10.0, batch_slowdown=0.1,
        prefill_ms_per_token=0.0,
    )  # fmt: skip
    # 8 answers of 100 tokens on 4 slots: 200 steps at a full batch.
    eight = [(50, 100)] * 8
    assert model.ideal_s(eight) == pytest.approx(0.010 * (0.9 * 200 + 0.1 * 800))
    # One long answer dominates: its 500 tokens come one step at a time.
    lopsided = [(50, 500), (50, 10), (50, 10)]
    assert model.ideal_s(lopsided) == pytest.approx(0.010 * (0.9 * 500 + 0.1 * 520))
    # A small cache: 4 x (100 * 50 + 100 * 101 / 2) token-steps over 300 tokens of KV, more
    # steps than the 100 the longest answer needs.
    small = CapacityModel(
        max_num_seqs=4, kv_tokens=300, token_ms=10.0, batch_slowdown=0.1,
        prefill_ms_per_token=0.0,
    )  # fmt: skip
    four = [(50, 100)] * 4
    kv_steps = 4 * (100 * 50 + 100 * 101 / 2) / 300
    assert kv_steps > 100
    assert small.ideal_s(four) == pytest.approx(0.010 * (0.9 * kv_steps + 0.1 * 400))
    assert model.ideal_s([]) == 0.0


def test_flags_start_the_fake_with_the_same_model() -> None:
    model = CapacityModel(
        max_num_seqs=8, kv_tokens=5000, token_ms=7.5, batch_slowdown=0.02,
        prefill_ms_per_token=0.1, block_size=32, max_batched_tokens=1024, time_scale=0.25,
    )  # fmt: skip
    config = parse_config(["serve", MODEL, *model.flags()])
    assert config.capacity == model
    assert parse_config(["serve", MODEL]).capacity is None  # off by default


# --- the engine as a real process ------------------------------------------------------------


def test_a_lone_request_takes_one_step_per_answer_token(fake_vllm: FakeVLLMFactory) -> None:
    model = CapacityModel(max_num_seqs=4, kv_tokens=16384, token_ms=20.0, time_scale=0.02)
    server = fake_vllm.start(*model.flags())
    text = text_of(40)
    answer = chat(server, text)
    usage = answer["usage"]
    assert answer["choices"][0]["message"]["content"] == pseudo_translate(text, "de")
    assert usage["completion_tokens"] == estimate_tokens(pseudo_translate(text, "de"))

    engine = stats(server)
    tokens = usage["completion_tokens"]
    assert engine["steps"] == tokens
    expected = model.step_s(1, usage["prompt_tokens"]) + (tokens - 1) * model.step_s(1, 0)
    assert engine["busy_s"] == pytest.approx(expected)
    assert engine["generation_tokens_total"] == tokens
    assert engine["prompt_tokens_total"] == usage["prompt_tokens"]
    assert engine["first_request_at"] >= engine["listening_at"]
    logged = server.requests(status=200)
    assert [(e["prompt_tokens"], e["completion_tokens"]) for e in logged] == [
        (usage["prompt_tokens"], tokens)
    ]
    # The first token comes with the step that prefilled it, before the answer's last one.
    (entry,) = logged
    first_step = model.step_s(1, usage["prompt_tokens"])
    assert entry["first_token_at"] >= entry["arrived_at"] + first_step * 0.9
    assert entry["first_token_at"] <= entry["time"] - (tokens - 1) * model.step_s(1, 0) * 0.9


def test_the_stats_say_where_the_modelled_time_went(fake_vllm: FakeVLLMFactory) -> None:
    """busy_s = prefill + every token at the full-batch rate + what partial batches lost; the
    tail counts from the last arrival; the engine's wall time sets a lag against busy_s."""
    model = CapacityModel(max_num_seqs=4, kv_tokens=16384, token_ms=20.0, time_scale=0.02)
    server = fake_vllm.start(*model.flags())
    first = chat(server, text_of(40))["usage"]
    second = chat(server, text_of(20, 1))["usage"]  # one after the other: two lone batches

    engine = stats(server)
    full_token_s = model.step_s(4, 0) / 4
    generated = first["completion_tokens"] + second["completion_tokens"]
    prompts = first["prompt_tokens"] + second["prompt_tokens"]
    prefill = model.time_scale * model.prefill_ms_per_token * prompts / 1000
    assert engine["prefill_s"] == pytest.approx(prefill)
    lone_loss = model.step_s(1, 0) - full_token_s  # a batch of 1 instead of 4, every step
    assert engine["loss_underfed_s"] == pytest.approx(generated * lone_loss)
    assert engine["loss_blocked_s"] == 0
    assert engine["busy_s"] == pytest.approx(
        prefill + generated * full_token_s + engine["loss_underfed_s"] + engine["loss_blocked_s"]
    )
    assert engine["tail_steps"] == second["completion_tokens"]
    assert engine["tail_loss_s"] == pytest.approx(second["completion_tokens"] * lone_loss)
    span = engine["last_step_end_at"] - engine["first_step_at"]
    assert engine["idle_wall_s"] > 0  # between the two requests
    assert span - engine["idle_wall_s"] >= engine["busy_s"] * 0.999  # steps never run early


async def test_the_batch_slots_bind_and_the_rest_wait(fake_vllm: FakeVLLMFactory) -> None:
    model = CapacityModel(max_num_seqs=3, kv_tokens=32768, token_ms=20.0, time_scale=0.05)
    server = fake_vllm.start(*model.flags())
    texts = [text_of(60, seed) for seed in range(12)]
    work = asyncio.create_task(chat_all(server, texts))

    seen_full = False
    async with httpx.AsyncClient(timeout=5) as http:
        while not work.done():
            load = parse_load((await http.get(f"{server.root_url}/metrics")).text)
            assert load is not None and load.running is not None and load.waiting is not None
            assert load.running <= 3
            if load.running == 3 and load.waiting > 0:
                seen_full = True
            await asyncio.sleep(0.01)
    answers = await work
    assert [a["choices"][0]["message"]["content"] for a in answers] == [
        pseudo_translate(t, "de") for t in texts
    ]
    assert seen_full, "/metrics never showed a full batch with requests waiting"
    engine = stats(server)
    assert engine["peak_running"] == 3 and engine["peak_waiting"] >= 1
    assert engine["preemptions"] == 0


async def test_under_priority_scheduling_a_selection_passes_the_papers_waiting_requests(
    fake_vllm: FakeVLLMFactory,
) -> None:
    """One batch slot, held by a paper's long paragraph; three more of its paragraphs wait
    (priority 1), then a reader's selection comes (priority 0): the slot goes to it first."""
    # 20 ms steps (real time: the engine sleeps between them, a busy CPU keeps up): the
    # blocker's ~130 answer tokens hold the slot about 3 s.
    model = CapacityModel(max_num_seqs=1, kv_tokens=32768, token_ms=20.0, time_scale=1.0)
    server = fake_vllm.start(*model.flags(), "--scheduling-policy", "priority")
    blocker = asyncio.create_task(asyncio.to_thread(chat, server, text_of(60), 900, 1))
    waiting = []
    async with httpx.AsyncClient(timeout=5) as http:

        async def until(running: int, waiting: int) -> None:
            async with asyncio.timeout(10):
                while True:
                    load = parse_load((await http.get(f"{server.root_url}/metrics")).text)
                    assert load is not None
                    if (load.running, load.waiting) == (running, waiting):
                        return
                    await asyncio.sleep(0.01)

        await until(running=1, waiting=0)  # the blocker holds the slot before any other comes
        for seed in range(1, 4):
            waiting.append(
                asyncio.create_task(asyncio.to_thread(chat, server, text_of(20, seed), 900, 1))
            )
            await until(running=1, waiting=seed)  # in vLLM's queue before the next is sent
    selection = await asyncio.to_thread(chat, server, "A selected sentence.", 900, 0)
    await asyncio.gather(blocker, *waiting)

    assert selection["choices"][0]["message"]["content"] == pseudo_translate(
        "A selected sentence.", "de"
    )
    log = {e["text"]: e for e in server.requests()}
    chosen = log["A selected sentence."]
    paper = [log[text_of(20, seed)] for seed in range(1, 4)]
    assert all(e["arrived_at"] < chosen["arrived_at"] for e in paper)  # it came last
    assert all(chosen["first_token_at"] < e["first_token_at"] for e in paper)  # served first
    assert log[text_of(60)]["first_token_at"] < chosen["first_token_at"]  # nothing preempted
    assert stats(server)["preemptions"] == 0


async def test_a_full_cache_preempts_the_newest_and_recomputes_it(
    fake_vllm: FakeVLLMFactory,
) -> None:
    # 1,024 tokens of KV: three prompts of ~270 tokens fit on arrival, not their answers too.
    # They reach the engine together: one sent late on a busy machine found the cache free.
    model = CapacityModel(max_num_seqs=16, kv_tokens=1024, token_ms=20.0, time_scale=0.02)
    texts = [text_of(90, seed) for seed in range(4)]
    server = fake_vllm.start(*model.flags(), "--fake-gather", str(len(texts)), max_model_len=768)
    answers = await chat_all(server, texts, max_tokens=400)

    # Preemption slows requests down, never fails or changes them.
    assert [a["choices"][0]["message"]["content"] for a in answers] == [
        pseudo_translate(t, "de") for t in texts
    ]
    engine = stats(server)
    assert engine["preemptions"] > 0
    load = parse_load(httpx.get(f"{server.root_url}/metrics", timeout=5).text)
    assert load is not None
    assert load.preemptions_total == engine["preemptions"]
    assert load.kv_capacity_tokens == 1024
    # Recomputing re-runs steps: more steps than the longest answer alone would need.
    assert engine["steps"] > max(a["usage"]["completion_tokens"] for a in answers)


def test_the_log_reports_the_modelled_kv_cache_and_concurrency(
    fake_vllm: FakeVLLMFactory,
) -> None:
    model = CapacityModel(max_num_seqs=256, kv_tokens=16384, token_ms=20.0)
    server = fake_vllm.start(*model.flags(), max_model_len=2048)
    log = server.output()
    assert "GPU KV cache size: 16,384 tokens" in log
    assert "Maximum concurrency for 2,048 tokens per request: 8.00x" in log


def test_a_cache_too_small_for_one_request_fails_to_start_like_vllm(
    fake_vllm: FakeVLLMFactory,
) -> None:
    server = fake_vllm.start("--fake-token-ms", "20", "--fake-kv-tokens", "1024", wait=False)
    assert server.process.wait(timeout=20) == 1
    assert "To serve at least one request with the model's max seq len (4096)" in server.output()


def test_without_metrics_the_endpoint_is_404_and_the_rest_works(
    fake_vllm: FakeVLLMFactory,
) -> None:
    server = fake_vllm.start("--fake-no-metrics")
    assert httpx.get(f"{server.root_url}/metrics", timeout=5).status_code == 404
    assert stats(server)["first_request_at"] is None
    started = time.time()
    chat(server, "A short paragraph.")
    assert stats(server)["first_request_at"] >= started
