"""The engine's HTTP: LLM answers on their own pool, apart from health checks and polls."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from common.language import Language
from common.settings import ConcurrencyMode, Settings
from tests.helpers.manager import Rig
from tests.helpers.pdfgen import make_paper
from tests.helpers.vllm import FakeVLLMFactory
from translation.request import TranslationRequest
from zotero_server.engine import shared_http, start_engine

#: More answers in flight than httpx's default pool (100 connections, the shared client's cap).
IN_FLIGHT = 110
HEALTH_GUARD_S = 30.0  # a health check answers in milliseconds, even on a busy machine
KOREAN = Language.parse("ko")


@pytest.mark.slow
async def test_a_health_check_answers_while_more_answers_than_the_shared_pool_holds_are_out(
    settings: Settings, fake_vllm_factory: FakeVLLMFactory
) -> None:
    """The engine as `serve` builds it, one paper with more paragraphs in flight than the
    shared client may open connections: the answers go through the LLM client's own pool, so
    they all reach vLLM at once (through the shared pool no more than 100 could), and the
    manager's health check is not queued behind them (a busy vLLM must not look unreachable)."""
    # Every answer but the first is held until the health check is done: the answers are out
    # however slowly this machine sends them (a fixed latency had to outlast a busy CPU).
    fake = fake_vllm_factory.start(
        "--fake-hold-after", "1", "--max-num-seqs", "256", "--disable-uvicorn-access-log"
    )
    configured = settings.model_copy(
        update={
            "llm_base_url": fake.base_url,
            "concurrency_mode": ConcurrencyMode.FIXED,
            "concurrency": 256,
        }
    )
    pdf, _ = make_paper(pages=14, appendix=False)
    order: list[str] = []
    async with shared_http(configured) as http:
        engine = await start_engine(configured, http)
        request = TranslationRequest(
            pdf=pdf, source_lang=configured.source_lang, target_lang=KOREAN
        )
        paper = asyncio.create_task(engine.translator.translate(request))
        paper.add_done_callback(lambda _: order.append("paper"))
        peak = 0.0
        for _ in range(600):
            peak = max(peak, _running((await http.get(f"{fake.root_url}/metrics")).text))
            if peak >= IN_FLIGHT or paper.done():
                break
            await asyncio.sleep(0.02)
        # Queued behind the held answers, the health check would wait for ever: bounded here.
        health = await asyncio.wait_for(http.get(f"{fake.root_url}/health"), HEALTH_GUARD_S)
        order.append(f"health {health.status_code}")
        (await http.post(f"{fake.root_url}/fake/release")).raise_for_status()
        result = await paper
        await engine.aclose()
    assert peak >= IN_FLIGHT, f"at most {peak:g} answers reached vLLM at once"
    assert order == ["health 200", "paper"]
    assert result.llm_calls >= IN_FLIGHT


def _running(metrics: str) -> float:
    for line in metrics.splitlines():
        if line.startswith("vllm:num_requests_running"):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def test_the_engine_keeps_a_batch_slot_free_when_its_launch_command_names_the_batch(
    tmp_path: Path,
) -> None:
    """`make run`'s defaults: our manager starts vLLM with a command naming --max-num-seqs
    (32 by default) and ZT_CONCURRENCY_MAX is above it (64). The engine hands the command's
    batch to the limiter, so a paper never holds every slot of the vLLM it launched, not even
    before the limit has seen the batch bind: a reader's selection finds one free.
    Origin: issue 37, a selection 2 s into a paper waited 1.5 s under the embedded defaults."""
    rig = Rig(tmp_path)
    # A modelled card (4 slots) slow enough for the limiter to look several times per paper.
    command = rig.vllm_command("--max-num-seqs", "4", "--fake-token-ms", "15")
    configured = rig.settings(
        vllm_command=command,
        concurrency_mode=ConcurrencyMode.ADAPTIVE,
        concurrency_min=2,
        concurrency_max=64,
        concurrency_reserve=1,
    )
    pdf, _ = make_paper(pages=3, appendix=False)
    try:
        async with shared_http(configured) as http:
            engine = await start_engine(configured, http)
            try:
                assert engine.manager.launch_batch == 4
                request = TranslationRequest(
                    pdf=pdf, source_lang=configured.source_lang, target_lang=KOREAN
                )
                result = await asyncio.wait_for(engine.translator.translate(request), 120)
                stats = (await http.get(f"{rig.base_url}/fake/stats")).json()
            finally:
                await engine.aclose()
    finally:
        rig.reap()
    assert result.llm_calls > 12  # enough requests for the limit to have grown
    assert rig.launch_count() == 1
    assert stats["peak_running"] == 3
