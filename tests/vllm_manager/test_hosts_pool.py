"""Issue 25: one server, several GPU hosts. Real pieces throughout: one fake vLLM per host (its
request log says what each was asked), one fake nvidia-smi per host, the real manager per host,
the real server on loopback, real papers from the corpus.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from common.settings import ConcurrencyMode, HostConfig, Settings
from tests.conftest import CorpusCut
from tests.helpers.gpu import FakeSmi, comfyui_argv, running
from tests.helpers.jupyter import run_jupyter
from tests.helpers.manager import MODEL, Rig
from tests.helpers.paths import REPO_ROOT
from tests.helpers.server import RunningServer, plugin_body, run_app, wait_until
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess, read_request_log

pytestmark = [pytest.mark.corpus, pytest.mark.slow]

LATENCY_MS = "60"
REPO = REPO_ROOT
COMFY_MIB = 20480


@pytest.fixture
def factory(tmp_path: Path) -> Iterator[FakeVLLMFactory]:
    with FakeVLLMFactory(tmp_path) as made:
        yield made


PAPER_02 = "02_naacl2018_s2_literature_graph_2col_short.pdf"


def paper(corpus_dir: Path, pages: int | None = None) -> bytes:
    """The short NAACL paper (8 pages, about 130 paragraphs), or its first ``pages`` pages."""
    doc = pymupdf.open(corpus_dir / PAPER_02)
    if pages is not None:
        doc.select(list(range(pages)))
    data: bytes = doc.tobytes()
    doc.close()
    return data


def pages_of(corpus_cut: CorpusCut, pages: Sequence[int]) -> bytes:
    """Pages of the short NAACL paper: a route needs enough paragraphs to spread, not 8 pages
    (pages 1-3 hold 55 paragraphs, pages 2-4 hold 68)."""
    return corpus_cut(PAPER_02, pages).read_bytes()


def pool_settings(settings: Settings, *hosts: dict[str, Any]) -> Settings:
    return settings.model_copy(
        update={
            "hosts": [HostConfig(**host) for host in hosts],
            "llm_model": MODEL,
            "concurrency_mode": ConcurrencyMode.FIXED,
            "concurrency": 2,
            "gpu_poll_s": 0.2,
            "gpu_wait_s": 10.0,
            "vllm_ready_timeout_s": 30.0,
            "vllm_idle_shutdown_s": 0.0,
        }
    )


def smi_host(name: str, llm: FakeVLLMProcess, smi: FakeSmi, token: str) -> dict[str, Any]:
    """A host whose vLLM is already up and whose GPU the pool reads (manager ``local``)."""
    return {
        "name": name,
        "llm_base_url": llm.base_url,
        "manager": "local",
        "nvidia_smi": smi.path,
        "vllm_match_keywords": token,
        "gpu_watch_keywords": token,
        "vllm_command": "false",
    }


def start_async(srv: RunningServer, pdf: bytes, name: str) -> str:
    with srv.client() as client:
        response = client.post("/translate", json=plugin_body(pdf, name, asyncJob="true"))
    assert response.status_code == 200, response.text
    task_id: str = response.json()["taskId"]
    return task_id


def follow(
    srv: RunningServer, task_id: str, timeout: float = 240.0
) -> tuple[dict[str, Any], list[str]]:
    """Poll the task until it ends: its last form and every message seen on the way."""
    messages: list[str] = []
    deadline = time.monotonic() + timeout
    with srv.client() as client:
        while time.monotonic() < deadline:
            tasks = client.get("/api/tasks").json()["tasks"]
            task = next(t for t in tasks if t["taskId"] == task_id)
            messages.append(task["message"])
            if task["finished"]:
                return task, messages
            time.sleep(0.1)
    raise AssertionError(f"task {task_id} not finished after {timeout} s: {messages[-3:]}")


def answered(*servers: FakeVLLMProcess) -> Counter[str]:
    """Paragraph texts answered (paid for), over every host."""
    return Counter(e["text"] for s in servers for e in s.requests(status=200))


def health(srv: RunningServer) -> dict[str, Any]:
    with srv.client() as client:
        body: dict[str, Any] = client.get("/health").json()
    return body


def test_a_paper_uses_every_ready_host_at_once_and_each_is_seen(
    settings: Settings, factory: FakeVLLMFactory, corpus_cut: CorpusCut
) -> None:
    a = factory.start("--fake-latency-ms", LATENCY_MS)
    b = factory.start("--fake-latency-ms", LATENCY_MS)
    configured = pool_settings(
        settings,
        {"name": "a", "llm_base_url": a.base_url, "manager": "none"},
        {"name": "b", "llm_base_url": b.base_url, "manager": "none"},
    )
    with run_app(configured) as srv:
        pdf = pages_of(corpus_cut, [0, 1, 2])
        task, messages = follow(srv, start_async(srv, pdf, "short.pdf"))
        assert task["status"] != "failed", task
        rows = {row["name"]: row for row in health(srv)["hosts"]}
        with srv.client() as client:
            metrics = client.get("/metrics").text

    on_a, on_b = len(a.requests(status=200)), len(b.requests(status=200))
    assert on_a > 10 and on_b > 10  # both cards worked on the one paper
    assert max(answered(a, b).values()) == 1  # nothing paid twice
    # The task said where its requests went.
    assert any("(a " in m and ", b " in m for m in messages), messages[-5:]
    assert rows["a"]["state"] == rows["b"]["state"] == "ready"
    assert (rows["a"]["answered"], rows["b"]["answered"]) == (on_a, on_b)
    assert rows["a"]["limit"] == 2 and rows["a"]["in_flight"] == 0
    assert f'zotero_translate_host_answered_total{{host="a"}} {float(on_a)}' in metrics
    assert 'zotero_translate_host_state{host="b",state="ready"} 1.0' in metrics


def test_a_host_made_busy_mid_paper_takes_no_more_and_the_paper_completes_on_the_other(
    settings: Settings, factory: FakeVLLMFactory, corpus_cut: CorpusCut, tmp_path: Path
) -> None:
    a = factory.start("--fake-latency-ms", LATENCY_MS)
    b = factory.start("--fake-latency-ms", LATENCY_MS)
    smi_a, smi_b = FakeSmi(tmp_path / "smi-a"), FakeSmi(tmp_path / "smi-b")
    configured = pool_settings(
        settings,
        smi_host("a", a, smi_a, "zt-hosts-nothing-a"),
        smi_host("b", b, smi_b, "zt-hosts-nothing-b"),
    )
    with run_app(configured) as srv, running(comfyui_argv(tmp_path)) as comfy:
        task_id = start_async(srv, pages_of(corpus_cut, [1, 2, 3]), "short.pdf")
        wait_until(lambda: len(b.requests(status=200)) >= 4, what="b answers")
        hold(smi_b, comfy)  # ComfyUI starts on b's card
        wait_until(
            lambda: {r["name"]: r for r in health(srv)["hosts"]}["b"]["state"] == "draining",
            what="b drained",
        )
        on_b_when_drained = len(b.requests(status=200))
        task, _ = follow(srv, task_id)
        row_b = {r["name"]: r for r in health(srv)["hosts"]}["b"]

    assert task["status"] != "failed", task
    assert len(b.requests(status=200)) <= on_b_when_drained + 2  # at most its requests in flight
    assert len(a.requests(status=200)) > len(b.requests(status=200))
    assert max(answered(a, b).values()) == 1
    assert row_b["takes_requests"] is False
    assert "ComfyUI" in row_b["holder"]


def hold(smi: FakeSmi, proc: subprocess.Popen[bytes]) -> None:
    smi.set(processes=[{"pid": proc.pid, "used_gpu_memory": COMFY_MIB}])


def test_a_dead_host_mid_paper_its_unanswered_requests_go_to_the_other(
    settings: Settings, factory: FakeVLLMFactory, corpus_cut: CorpusCut
) -> None:
    a = factory.start("--fake-latency-ms", LATENCY_MS)
    # 51 requests, the first page's 12 sent ahead while the rest is read: b dies well into
    # the job's own requests (about half of them go to it), with some of them in flight.
    b = factory.start("--fake-latency-ms", LATENCY_MS, "--fake-die-after", "16")
    configured = pool_settings(
        settings,
        {"name": "a", "llm_base_url": a.base_url, "manager": "none"},
        {"name": "b", "llm_base_url": b.base_url, "manager": "none"},
    )
    with run_app(configured) as srv:
        task, _ = follow(srv, start_async(srv, pages_of(corpus_cut, [0, 1, 2]), "short.pdf"))
        row_b = {r["name"]: r for r in health(srv)["hosts"]}["b"]
    assert task["status"] != "failed", task
    assert not b.alive()
    assert max(answered(a, b).values()) == 1
    assert row_b["state"] == "down" and row_b["lost"] >= 1


def launch_host(rig: Rig, name: str, **extra: Any) -> dict[str, Any]:
    """A host whose vLLM the pool may start (the rig's fake, a launch logged per start)."""
    return {
        "name": name,
        "llm_base_url": f"{rig.base_url}/v1",
        "manager": "local",
        "vllm_command": rig.vllm_command("--fake-latency-ms", LATENCY_MS),
        "nvidia_smi": rig.smi.path,
        "vllm_match_keywords": rig.token,
        "gpu_watch_keywords": rig.token,
        **extra,
    }


@pytest.fixture
def rig_b(tmp_path: Path) -> Iterator[Rig]:
    made = Rig(tmp_path / "host-b")
    yield made
    made.reap()


def test_a_three_page_paper_starts_no_second_host(
    settings: Settings, factory: FakeVLLMFactory, corpus_dir: Path, rig_b: Rig
) -> None:
    a = factory.start("--fake-latency-ms", LATENCY_MS)
    configured = pool_settings(
        settings,
        {"name": "a", "llm_base_url": a.base_url, "manager": "none"},
        launch_host(rig_b, "b"),  # free, startable, minutes away (start_s 180 by default)
    )
    with run_app(configured) as srv:
        task, _ = follow(srv, start_async(srv, paper(corpus_dir, pages=3), "three.pdf"))
        row_b = {r["name"]: r for r in health(srv)["hosts"]}["b"]
    assert task["status"] != "failed", task
    assert len(a.requests(status=200)) > 10
    assert rig_b.launch_count() == 0
    assert row_b["state"] == "stopped" and row_b["bring_ups"] == 0


def test_a_freed_host_joins_the_running_paper(
    settings: Settings, factory: FakeVLLMFactory, corpus_dir: Path, rig_b: Rig
) -> None:
    a = factory.start("--fake-latency-ms", "150")
    configured = pool_settings(
        settings,
        {"name": "a", "llm_base_url": a.base_url, "manager": "none"},
        launch_host(rig_b, "b", start_s=0.5),
    )
    with running(comfyui_argv(rig_b.tmp)) as comfy:
        hold(rig_b.smi, comfy)  # b's card is taken when the paper starts
        with run_app(configured) as srv:
            task_id = start_async(srv, paper(corpus_dir), "short.pdf")
            wait_until(lambda: len(a.requests(status=200)) >= 6, what="a answers")
            assert rig_b.launch_count() == 0  # never started over the tenant
            rig_b.smi.set()  # ComfyUI leaves
            wait_until(lambda: rig_b.launch_count() == 1, what="b started")
            task, _ = follow(srv, task_id)
    on_b = [e for e in read_request_log(rig_b.request_log) if e["status"] == 200]
    assert task["status"] != "failed", task
    assert on_b, "the freed host took none of the running paper"
    texts = Counter(e["text"] for e in a.requests(status=200)) + Counter(e["text"] for e in on_b)
    assert max(texts.values()) == 1


def test_the_status_command_lists_every_host(
    settings: Settings, factory: FakeVLLMFactory, tmp_path: Path
) -> None:
    a = factory.start()
    config = tmp_path / "zt.toml"
    config.write_text(
        f'data_dir = "{settings.data_dir}"\n'
        f'llm_model = "{MODEL}"\n'
        "[[hosts]]\n"
        'name = "desk"\n'
        f'llm_base_url = "{a.base_url}"\n'
        "[[hosts]]\n"
        'name = "attic"\n'
        'llm_base_url = "http://127.0.0.1:9/v1"\n'
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZT_")}
    done = subprocess.run(
        [sys.executable, "-m", "zotero_server.cli", "--config", str(config), "status"],
        capture_output=True,
        text=True,
        env={**env, "PYTHONPATH": str(REPO)},
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    lines = {line.split()[0]: line for line in done.stdout.splitlines() if line.startswith("  ")}
    assert "ready" in lines["desk"] and a.root_url in lines["desk"]
    assert "down" in lines["attic"]


def test_translate_on_the_command_line_brings_up_a_remote_host_over_jupyter_and_uses_both(
    factory: FakeVLLMFactory, corpus_dir: Path, rig_b: Rig, tmp_path: Path
) -> None:
    a = factory.start("--fake-latency-ms", "150")
    hosts = [
        {"name": "a", "llm_base_url": a.base_url, "manager": "none"},
        launch_host(
            rig_b,
            "b",
            manager="remote",
            vllm_workdir=str(rig_b.tmp / "remote-home" / "vllm"),
            start_s=0.5,
        ),
    ]
    hosts[1]["nvidia_smi"] = str(rig_b.smi.path)
    pdf = tmp_path / "short.pdf"
    pdf.write_bytes(paper(corpus_dir))
    with run_jupyter(tmp_path / "jupyter") as jupyter:
        hosts[1].update(jupyter_url=jupyter.url, jupyter_token=jupyter.token)
        env = {k: v for k, v in os.environ.items() if not k.startswith("ZT_")}
        env.update(
            PYTHONPATH=str(REPO),
            ZT_HOSTS=json.dumps(hosts),
            ZT_DATA_DIR=str(tmp_path / "data"),
            ZT_LLM_MODEL=MODEL,
            ZT_CONCURRENCY_MODE="fixed",
            ZT_CONCURRENCY="2",
            ZT_GPU_POLL_S="0.2",
            ZT_VLLM_IDLE_SHUTDOWN_S="0",
        )
        done = subprocess.run(
            [sys.executable, "-m", "zotero_server.cli", "translate", str(pdf), "--no-dual"],
            capture_output=True,
            text=True,
            env=env,
            cwd=REPO,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "short-mono.pdf").exists()
    on_b = [e for e in read_request_log(rig_b.request_log) if e["status"] == 200]
    assert rig_b.launch_count() == 1  # through the Jupyter terminal
    assert on_b and len(a.requests(status=200)) > 0
    texts = Counter(e["text"] for e in a.requests(status=200)) + Counter(e["text"] for e in on_b)
    assert max(texts.values()) == 1


def test_a_patient_paper_waits_for_any_host_and_runs_on_the_first_one_freed(
    settings: Settings, corpus_dir: Path, rig_b: Rig, tmp_path: Path
) -> None:
    rig_a = Rig(tmp_path / "host-a")
    configured = pool_settings(settings, launch_host(rig_a, "a"), launch_host(rig_b, "b"))
    try:
        with (
            running(comfyui_argv(rig_a.tmp)) as comfy_a,
            running(comfyui_argv(rig_b.tmp)) as comfy_b,
        ):
            hold(rig_a.smi, comfy_a)
            hold(rig_b.smi, comfy_b)
            with run_app(configured) as srv:
                task_id = start_async(srv, paper(corpus_dir, pages=2), "two.pdf")
                with srv.client() as client:

                    def waiting() -> bool:
                        tasks = client.get("/api/tasks").json()["tasks"]
                        return any(t["stage"] == "waiting_gpu" for t in tasks)

                    wait_until(waiting, what="the paper waits for a GPU")
                rig_b.smi.set()  # b's ComfyUI leaves; a's stays
                task, _ = follow(srv, task_id)
    finally:
        rig_a.reap()
    assert task["status"] != "failed", task
    assert (rig_a.launch_count(), rig_b.launch_count()) == (0, 1)
    assert [e for e in read_request_log(rig_b.request_log) if e["status"] == 200]


def test_a_host_that_fails_to_come_up_is_passed_over_for_the_next(
    settings: Settings, corpus_dir: Path, rig_b: Rig, tmp_path: Path
) -> None:
    rig_a = Rig(tmp_path / "host-a")
    broken = rig_a.vllm_command("--fake-crash-during-load")
    configured = pool_settings(
        settings,
        launch_host(rig_a, "a", weight=2.0, vllm_command=broken),  # tried first: the heavier
        launch_host(rig_b, "b"),
    )
    try:
        with run_app(configured) as srv:
            task, _ = follow(srv, start_async(srv, paper(corpus_dir, pages=2), "two.pdf"))
            row_a = {r["name"]: r for r in health(srv)["hosts"]}["a"]
    finally:
        rig_a.reap()
    assert task["status"] != "failed", task
    assert (rig_a.launch_count(), rig_b.launch_count()) == (1, 1)
    assert "exited" in row_a["last_error"], row_a


def test_a_lone_hosts_entry_is_the_one_host(
    settings: Settings, factory: FakeVLLMFactory, corpus_dir: Path
) -> None:
    a = factory.start()
    configured = pool_settings(settings, {"name": "only", "llm_base_url": a.base_url})
    assert configured.llm_base_url != a.base_url  # the top-level URL points nowhere
    with run_app(configured) as srv:
        task, _ = follow(srv, start_async(srv, paper(corpus_dir, pages=1), "one.pdf"))
    assert task["status"] != "failed", task
    assert a.requests(status=200)
