"""Issue 25, item 8: the host running a paper's longest answer takes less new work while that
answer would outlast the rest of the pool's (``translation.model.horizon``), and the dispatcher
sends the work elsewhere (two fake vLLMs with the capacity model, their rates learned from
their own /metrics by real adaptive limiters)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from common.language import Language
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess
from translation.model.adaptive_limiter import AdaptiveLimiter
from translation.model.concurrency_control import ControlConfig
from translation.model.dispatch import Dispatcher, Lane
from translation.model.horizon import CHARS_PER_TOKEN, HostWork, held
from translation.model.llm import LLMClient

# --- the rule ---------------------------------------------------------------------------------


def test_the_host_whose_longest_answer_outlasts_the_pool_is_held() -> None:
    # a: 500 tokens left at 50 tokens/s = 10 s; the pool: 700 tokens at 150 tokens/s = 4.7 s.
    hosts = {
        "a": HostWork(50.0, [(2000, 0.0)]),
        "b": HostWork(50.0, [(400, 0.0), (400, 0.0)]),
    }
    assert held(hosts, queued=[200]) == {"a"}


def test_no_host_is_held_while_the_queue_outlasts_every_answer() -> None:
    hosts = {"a": HostWork(50.0, [(2000, 0.0)]), "b": HostWork(50.0, [(400, 0.0)])}
    assert held(hosts, queued=[1000] * 40) == set()


def test_what_an_answer_made_already_counts_for_nothing() -> None:
    # a's 2,000 characters (500 tokens) started 9 s ago at 50 tokens/s: 50 are left (1 s);
    # b's 800 fresh ones take 4 s, past the pool's 300 tokens at 100 tokens/s.
    assert 2000 / CHARS_PER_TOKEN - 50.0 * 9.0 == 50.0
    hosts = {"a": HostWork(50.0, [(2000, 9.0)]), "b": HostWork(50.0, [(800, 0.0)])}
    assert held(hosts, queued=[200]) == {"b"}


def test_only_the_latest_of_several_late_hosts_is_held() -> None:
    hosts = {
        "a": HostWork(50.0, [(2400, 0.0)]),
        "b": HostWork(50.0, [(2000, 0.0)]),
        "c": HostWork(50.0, [(100, 0.0)] * 20),
    }
    assert held(hosts, queued=[100]) == {"a"}


def test_without_learned_rates_or_a_second_host_nothing_is_held() -> None:
    late = HostWork(50.0, [(4000, 0.0)])
    assert held({"a": late}, queued=[100]) == set()
    assert held({"a": late, "b": HostWork(None, [(100, 0.0)])}, queued=[100]) == set()
    assert held({"a": late, "b": HostWork(50.0, [])}, queued=[]) == set()


# --- the dispatcher, over two fake vLLMs -------------------------------------------------------


@pytest.fixture
def fake_vllm(tmp_path: Path) -> Iterator[FakeVLLMFactory]:
    with FakeVLLMFactory(tmp_path) as factory:
        yield factory


# A modelled 32-slot card at a fifth of its time (4.4 ms per engine step): a 4,000-character
# paragraph's answer takes some 1,000 steps, seconds of the test.
CARD = ("--fake-token-ms", "22", "--fake-time-scale", "0.2", "--disable-uvicorn-access-log")
SOURCE, TARGET = Language.parse("en"), Language.parse("de")


def _lane(name: str, server: FakeVLLMProcess) -> Lane:
    llm = LLMClient(
        base_url=server.base_url,
        model=server.model,
        api_key=None,
        prompt_format="translategemma",
        timeout_s=60,
        deadline_s=60,
        max_attempts=1,
    )
    control = ControlConfig(minimum=4, maximum=4, initial=4, poll_s=0.05, settle_s=0.01)
    limiter = AdaptiveLimiter(control, metrics_url=f"{server.root_url}/metrics")
    return Lane(name, llm, limiter, ready=True)


def _rate(lane: Lane) -> float:
    assert isinstance(lane.limiter, AdaptiveLimiter)
    return lane.limiter.token_rate or 0.0


def _text(characters: int) -> str:
    words = "The model reads the whole paragraph before it answers a single word. "
    return (words * (characters // len(words) + 1))[:characters]


async def test_new_work_goes_around_the_host_running_the_longest_answer(
    fake_vllm: FakeVLLMFactory,
) -> None:
    a, b = _lane("a", fake_vllm.start(*CARD)), _lane("b", fake_vllm.start(*CARD))
    dispatcher = Dispatcher([a, b])
    where: dict[int, str] = {}

    async def one(size: int) -> None:
        async with dispatcher.route("job", size=size) as lane:
            where[size] = lane.name
            await lane.llm.translate(_text(size), SOURCE, TARGET)

    # The paper's longest paragraph goes first, to a; a shorter one to b (the shorter queue).
    running = [asyncio.create_task(one(4000))]
    while "a" not in where.values():
        await asyncio.sleep(0.01)
    running.append(asyncio.create_task(one(1600)))
    # Both limiters learn their card's token rate from its /metrics while the answers run.
    while not (_rate(a) and _rate(b)):
        await asyncio.sleep(0.01)
    assert where == {4000: "a", 1600: "b"}
    assert a.in_flight == b.in_flight == 1  # a has room: by load alone it would go there

    await one(200)
    # a's answer outlasts all the rest of the work at the rate its card makes it: the short
    # one went to b, whose answers end sooner.
    assert where[200] == "b"
    await asyncio.gather(*running)
    await dispatcher.aclose()
