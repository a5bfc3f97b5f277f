"""The fake vLLM's sleep mode (issue 11): the routes, their hazards, and the fake GPU memory.

Real processes on loopback: the fake vLLM, and the fake nvidia-smi reading /proc.
"""

from __future__ import annotations

import subprocess
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.helpers.gpu import FakeSmi
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess

TG_MESSAGE: list[dict[str, Any]] = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Hello", "source_lang_code": "en", "target_lang_code": "ko"}
        ],
    }
]


@pytest.fixture
def factory(tmp_path: Path) -> Iterator[FakeVLLMFactory]:
    with FakeVLLMFactory(tmp_path) as made:
        yield made


@pytest.fixture
def dev_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_SERVER_DEV_MODE", "1")


def post(server: FakeVLLMProcess, path: str, **kwargs: Any) -> httpx.Response:
    return httpx.post(f"{server.root_url}{path}", timeout=10, **kwargs)


def get(server: FakeVLLMProcess, path: str) -> httpx.Response:
    return httpx.get(f"{server.root_url}{path}", timeout=10)


def complete(server: FakeVLLMProcess) -> httpx.Response:
    body = {"model": server.model, "messages": TG_MESSAGE}
    return post(server, "/v1/chat/completions", json=body)


def stats(server: FakeVLLMProcess) -> dict[str, Any]:
    return dict(get(server, "/fake/stats").json())


def test_routes_need_both_the_flag_and_dev_mode(
    factory: FakeVLLMFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VLLM_SERVER_DEV_MODE", raising=False)
    flag_only = factory.start("--enable-sleep-mode")
    assert post(flag_only, "/sleep?level=1").status_code == 404
    assert get(flag_only, "/is_sleeping").status_code == 404
    monkeypatch.setenv("VLLM_SERVER_DEV_MODE", "1")
    env_only = factory.start()
    assert post(env_only, "/sleep?level=1").status_code == 404
    assert complete(env_only).status_code == 200


def test_sleep_and_wake_by_tags(factory: FakeVLLMFactory, dev_mode: None) -> None:
    server = factory.start("--enable-sleep-mode")
    assert get(server, "/is_sleeping").json() == {"is_sleeping": False}
    assert post(server, "/sleep?level=1").status_code == 200
    assert get(server, "/is_sleeping").json() == {"is_sleeping": True}
    assert get(server, "/health").status_code == 200, "vLLM stays healthy while asleep"
    assert post(server, "/wake_up?tags=weights").status_code == 200
    assert get(server, "/is_sleeping").json() == {"is_sleeping": True}, "KV cache still out"
    assert post(server, "/wake_up?tags=kv_cache").status_code == 200
    assert get(server, "/is_sleeping").json() == {"is_sleeping": False}
    assert post(server, "/reset_prefix_cache").status_code == 200
    assert complete(server).status_code == 200
    record = stats(server)
    assert (record["sleeps"], record["wakes"], record["prefix_cache_resets"]) == (1, 1, 1)
    assert record["completions_while_asleep"] == 0 and record["engine_dead"] is None


def test_a_completion_sent_while_asleep_kills_the_engine(
    factory: FakeVLLMFactory, dev_mode: None
) -> None:
    server = factory.start("--enable-sleep-mode")
    post(server, "/sleep?level=1")
    assert complete(server).status_code == 500
    assert get(server, "/health").status_code == 503
    post(server, "/wake_up")
    assert complete(server).status_code == 500, "a dead engine stays dead"
    assert stats(server)["completions_while_asleep"] == 1


def test_sleep_under_a_running_request_kills_the_engine(
    factory: FakeVLLMFactory, dev_mode: None
) -> None:
    server = factory.start("--enable-sleep-mode", "--fake-latency-ms", "1500")
    answers: list[int] = []
    worker = threading.Thread(target=lambda: answers.append(complete(server).status_code))
    worker.start()
    deadline = 100
    while stats(server)["running"] == 0 and deadline:
        deadline -= 1
        threading.Event().wait(0.05)
    assert post(server, "/sleep?level=1").status_code == 500
    worker.join()
    assert stats(server)["sleeps_under_load"] == 1
    assert get(server, "/health").status_code == 503


def test_fake_nvidia_smi_shows_the_residue_while_asleep(
    factory: FakeVLLMFactory, dev_mode: None, tmp_path: Path
) -> None:
    token = "zt" + uuid.uuid4().hex[:12]
    smi = FakeSmi(tmp_path / "smi")
    smi.set(discover=[{"cmdline_contains": token, "used_gpu_memory": 28000, "gpu": 0}])
    server = factory.start("--enable-sleep-mode", "--fake-engine-child", model=f"/m/{token}/tg")

    def used() -> tuple[int, int]:
        query = ["--query-compute-apps=pid,used_gpu_memory", "--format=csv,noheader,nounits"]
        apps = subprocess.run([str(smi.path), *query], capture_output=True, text=True, check=True)
        rows = [line.split(", ") for line in apps.stdout.splitlines()]
        gpu = ["--query-gpu=memory.used", "--format=csv,noheader,nounits"]
        total = subprocess.run([str(smi.path), *gpu], capture_output=True, text=True, check=True)
        mine = [int(m) for pid, m in rows if int(pid) == server.pid]
        return mine[0], int(total.stdout.strip())

    assert used() == (28000, 28300)
    post(server, "/sleep?level=1")
    assert used() == (1024, 1324)
    post(server, "/wake_up")
    assert used() == (28000, 28300)
