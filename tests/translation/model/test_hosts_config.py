"""Issue 25: several GPU hosts, the parts without servers: the ``[[hosts]]`` settings, each
host's own settings, the bring-up policy and the dispatcher's choice of host."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from common.errors import ConfigError
from common.hosts import DEFAULT_HOST, plan_hosts
from common.settings import ManagerKind, load_settings
from translation.model.dispatch import Dispatcher, Lane
from translation.model.limiter import FixedLimiter
from translation.model.llm import LLMClient
from vllm_manager.pool import Host, HostState, bring_up_order, should_bring_up

TOML = """
manager = "local"
concurrency = 6
gpu_api_token = "top-token"

[[hosts]]
name = "desk-5090"
llm_base_url = "http://10.0.0.2:8000/v1/"
weight = 2

[[hosts]]
name = "box-3090"
llm_base_url = "http://10.0.0.3:8000/v1"
manager = "remote"
jupyter_url = "http://10.0.0.3:8888"
jupyter_token = "jt"
gpu_api_url = "http://10.0.0.3:8001"
vllm_command = "vllm serve /m/tg-12b"
concurrency = 3
"""


def test_hosts_tables_in_the_toml_file_give_each_host_its_own_settings(tmp_path: Path) -> None:
    config = tmp_path / "zt.toml"
    config.write_text(TOML)
    settings = load_settings(config, data_dir=tmp_path / "data")
    desk, box = plan_hosts(settings)

    assert (desk.name, desk.weight) == ("desk-5090", 2.0)
    assert desk.settings.llm_base_url == "http://10.0.0.2:8000/v1"
    assert desk.settings.manager is ManagerKind.LOCAL  # the top-level setting
    assert desk.settings.concurrency == 6
    assert box.settings.manager is ManagerKind.REMOTE
    assert box.settings.jupyter_url == "http://10.0.0.3:8888"
    assert box.settings.gpu_api_url == "http://10.0.0.3:8001"
    assert box.settings.vllm_command == "vllm serve /m/tg-12b"
    assert box.settings.concurrency == 3
    token = box.settings.gpu_api_token
    assert token is not None and token.get_secret_value() == "top-token"
    # Two hosts never share a start lease or a pid file.
    assert desk.settings.manager_dir != box.settings.manager_dir
    assert desk.settings.manager_dir == tmp_path / "data" / "vllm" / "desk-5090"


def test_the_environment_form_is_a_json_list(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    hosts = [
        {"name": "a", "llm_base_url": "http://a:8000/v1", "manager": "none"},
        {"name": "b", "llm_base_url": "http://b:8000/v1", "weight": 0.5},
    ]
    monkeypatch.setenv("ZT_HOSTS", json.dumps(hosts))
    plans = plan_hosts(load_settings(data_dir=tmp_path))
    assert [(p.name, p.settings.llm_base_url, p.weight) for p in plans] == [
        ("a", "http://a:8000/v1", 1.0),
        ("b", "http://b:8000/v1", 0.5),
    ]


def test_one_host_configured_the_old_way_is_the_settings_themselves(tmp_path: Path) -> None:
    settings = load_settings(data_dir=tmp_path, llm_base_url="http://gpu:8000/v1")
    (only,) = plan_hosts(settings)
    assert only.name == DEFAULT_HOST
    assert only.settings is settings  # same lease folder, same everything


@pytest.mark.parametrize(
    ("hosts", "word"),
    [
        ([{"name": "a", "llm_base_url": "http://a/v1"}] * 2, "unique"),
        ([{"name": "a"}], "llm_base_url"),
        ([{"name": "a b", "llm_base_url": "http://a/v1"}], "name"),
        ([{"name": "a", "llm_base_url": "http://a/v1", "weight": 0}], "weight"),
        ([{"name": "a", "llm_base_url": "http://a/v1", "gpu": 1}], "gpu"),
    ],
)
def test_bad_hosts_are_refused_with_the_setting_named(
    monkeypatch: pytest.MonkeyPatch, hosts: list[dict[str, object]], word: str
) -> None:
    monkeypatch.setenv("ZT_HOSTS", json.dumps(hosts))
    with pytest.raises(ConfigError, match="ZT_HOSTS") as caught:
        load_settings()
    assert word in str(caught.value)


def test_a_host_is_brought_up_only_while_the_queue_outlasts_its_bring_up() -> None:
    assert not should_bring_up(queued=0, drain_s=0.0, bring_up_s=0.0)
    assert not should_bring_up(queued=30, drain_s=4.0, bring_up_s=20.0)  # a 3-page paper
    assert should_bring_up(queued=600, drain_s=150.0, bring_up_s=20.0)
    assert not should_bring_up(queued=600, drain_s=150.0, bring_up_s=180.0)


def test_the_cheapest_host_comes_up_first_then_the_heavier() -> None:
    def host(name: str, state: HostState, weight: float = 1.0) -> Host:
        return Host(name, manager=None, weight=weight, state=state)  # type: ignore[arg-type]

    hosts = [
        host("stopped-big", HostState.STOPPED, 3.0),
        host("busy", HostState.BUSY),
        host("asleep", HostState.ASLEEP),
        host("asleep-big", HostState.ASLEEP, 2.0),
        host("ready", HostState.READY),
    ]
    assert [h.name for h in bring_up_order(hosts)] == ["asleep-big", "asleep", "stopped-big"]


def _lane(name: str, limit: int, weight: float = 1.0) -> Lane:
    llm = LLMClient(
        base_url=f"http://{name}.invalid/v1",
        model="m",
        api_key=None,
        prompt_format="chat",
        timeout_s=1,
        deadline_s=1,
        max_attempts=1,
    )
    return Lane(name, llm, FixedLimiter(limit), weight=weight, ready=True)


async def test_requests_fill_the_host_with_the_shortest_queue_and_only_ready_ones() -> None:
    a, b, c = _lane("a", 2), _lane("b", 4, weight=2.0), _lane("c", 8)
    c.ready = False
    dispatcher = Dispatcher([a, b, c])
    assert dispatcher.limit == 6  # only the ready hosts count
    where: list[str] = []
    release = asyncio.Event()

    async def one() -> None:
        async with dispatcher.route("job") as lane:
            where.append(lane.name)
            await release.wait()

    tasks = [asyncio.create_task(one()) for _ in range(8)]
    await asyncio.sleep(0.05)
    assert sorted(where) == ["a", "a", "b", "b", "b", "b"]  # each host up to its own limit
    assert where[0] == "b"  # equally empty: the heavier first
    assert dispatcher.waiting() == 2
    # Each host's limit sees them as its own demand (an adaptive limit grows only on demand).
    assert a.limiter.pending() == b.limiter.pending() == 2
    dispatcher.set_ready("c", True)  # a host joins: the waiting requests go there at once
    await asyncio.sleep(0.05)
    assert where[-2:] == ["c", "c"]
    release.set()
    await asyncio.gather(*tasks)
    assert (a.answered, b.answered, c.answered) == (2, 4, 2)
    await dispatcher.aclose()


async def test_a_slow_host_takes_only_what_it_finishes_before_the_fast_one() -> None:
    fast, slow = _lane("fast", 2, weight=2.0), _lane("slow", 3)
    dispatcher = Dispatcher([fast, slow])
    where: dict[int, str] = {}
    done = {size: asyncio.Event() for size in (2000, 1800, 1500, 900, 800, 300)}

    async def one(size: int) -> None:
        async with dispatcher.route("job", size=size) as lane:
            where[size] = lane.name
            await done[size].wait()

    # A paper sends its longest paragraphs first.
    tasks = [asyncio.create_task(one(size)) for size in (2000, 1800, 1500, 900, 800)]
    await asyncio.sleep(0.05)
    # The slow host (half the speed) takes what it finishes within the fast one's 2000: not
    # the 1500, which waits for the fast host although the slow one has room.
    assert where == {2000: "fast", 1800: "fast", 900: "slow", 800: "slow"}
    assert dispatcher.waiting() == 1
    tasks.append(asyncio.create_task(one(300)))  # a short one fits the room kept free
    await asyncio.sleep(0.05)
    assert where[300] == "slow"
    done[2000].set()
    await asyncio.sleep(0.05)
    assert where[1500] == "fast"
    for event in done.values():
        event.set()
    await asyncio.gather(*tasks)
    assert (fast.answered, slow.answered) == (3, 3)
    assert (fast.sizes, slow.sizes, fast.in_flight, slow.in_flight) == ([], [], 0, 0)
    await dispatcher.aclose()
