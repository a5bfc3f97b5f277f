"""FixedLimiter: never more than its limit in flight, and it frees slots on errors."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.pseudo import pseudo_translate
from tests.helpers.vllm import FakeVLLMFactory, translate_all
from translation.model.limiter import FixedLimiter, Limiter


async def test_fifty_tasks_never_exceed_the_limit() -> None:
    limiter = FixedLimiter(5)
    observed: list[int] = []

    async def work() -> None:
        async with limiter.slot():
            observed.append(limiter.in_flight)
            for _ in range(3):
                await asyncio.sleep(0)  # let the others run while holding the slot
                observed.append(limiter.in_flight)

    await asyncio.gather(*(work() for _ in range(50)))
    assert max(observed) == 5
    assert limiter.peak_in_flight == 5
    assert limiter.in_flight == 0
    assert len(observed) == 200


async def test_a_failing_body_releases_its_slot() -> None:
    limiter = FixedLimiter(1)
    with pytest.raises(RuntimeError):
        async with limiter.slot():
            raise RuntimeError("request failed")
    assert limiter.in_flight == 0
    async with asyncio.timeout(5):  # the slot is free again, not leaked
        async with limiter.slot():
            assert limiter.in_flight == 1


async def test_a_cancelled_waiter_does_not_take_a_slot() -> None:
    limiter = FixedLimiter(1)
    entered = asyncio.Event()
    release = asyncio.Event()

    async def holder() -> None:
        async with limiter.slot():
            entered.set()
            await release.wait()

    async def waiter() -> None:
        async with limiter.slot():
            raise AssertionError("a cancelled waiter must not run")

    held = asyncio.create_task(holder())
    await entered.wait()
    waiting = asyncio.create_task(waiter())
    await asyncio.sleep(0)
    waiting.cancel()
    release.set()
    await held
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert limiter.in_flight == 0 and limiter.peak_in_flight == 1


def test_limit_must_be_positive_and_the_protocol_is_met() -> None:
    with pytest.raises(ValueError):
        FixedLimiter(0)
    limiter = FixedLimiter(3)
    assert isinstance(limiter, Limiter)
    assert limiter.limit == 3


@pytest.fixture
def fake_vllm(tmp_path: Path) -> Iterator[FakeVLLMFactory]:
    with FakeVLLMFactory(tmp_path) as factory:
        yield factory


async def test_limited_translations_through_the_real_client(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-latency-ms", "20")
    limiter = FixedLimiter(3)
    texts = [f"Paragraph number {i} of the paper." for i in range(20)]
    answers = await translate_all(server, limiter, texts, target="ko", timeout_s=10)
    assert answers == [pseudo_translate(t, "ko") for t in texts]
    assert limiter.peak_in_flight == 3
    assert sorted(server.texts()) == sorted(texts)
