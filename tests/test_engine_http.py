"""The engine's shared HTTP client: health checks get through while answers fill the pool."""

from __future__ import annotations

import asyncio

from common.language import Language
from common.settings import Settings
from tests.helpers.vllm import FakeVLLMFactory
from translation.model.llm import LLMClient
from zotero_server.engine import shared_http

#: More answers in flight than httpx's default pool of 100 connections holds.
IN_FLIGHT = 110
KOREAN = Language.parse("ko")


async def test_a_health_check_answers_while_more_answers_than_a_default_pool_are_in_flight(
    settings: Settings, fake_vllm_factory: FakeVLLMFactory
) -> None:
    """Three 32-slot cards keep ~100 answers in flight on the one client; a cap there would
    queue the manager's health check (and each limiter's /metrics poll) behind them, so a busy
    vLLM would look unreachable. The check must come back while every answer is still out."""
    fake = fake_vllm_factory.start("--fake-latency-ms", "4000", "--max-num-seqs", "256")
    configured = settings.model_copy(update={"llm_base_url": fake.base_url})
    order: list[str] = []
    async with shared_http(configured) as http:
        client = LLMClient.from_settings(configured, http)

        async def answer(i: int) -> None:
            await client.translate(f"Sentence number {i}.", configured.source_lang, KOREAN)
            order.append("answer")

        answers = [asyncio.create_task(answer(i)) for i in range(IN_FLIGHT)]
        # Every answer has reached the server (it counts them as running) before the check.
        for _ in range(400):
            metrics = await http.get(f"{fake.root_url}/metrics")
            if _running(metrics.text) >= IN_FLIGHT:
                break
            await asyncio.sleep(0.02)
        health = await http.get(f"{fake.root_url}/health")
        order.append(f"health {health.status_code}")
        await asyncio.gather(*answers)
        await client.aclose()
    assert order[0] == "health 200" and order.count("answer") == IN_FLIGHT


def _running(metrics: str) -> float:
    for line in metrics.splitlines():
        if line.startswith("vllm:num_requests_running"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0
