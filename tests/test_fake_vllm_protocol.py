"""The fake vLLM, as a real process: the protocol and lifecycle facts other tests rely on."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from common.language import Language
from tests.fakes.pseudo import pseudo_translate
from tests.helpers.net import free_port
from tests.helpers.vllm import (
    DEFAULT_MODEL,
    FAKE_VLLM,
    FakeVLLMFactory,
    FakeVLLMProcess,
    read_request_log,
)


@pytest.fixture
def fake_vllm(tmp_path: Path) -> Iterator[FakeVLLMFactory]:
    with FakeVLLMFactory(tmp_path) as factory:
        yield factory


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeVLLMProcess]:
    """One default fake (TranslateGemma, 4096 context) shared by the read-only checks."""
    with FakeVLLMFactory(tmp_path_factory.mktemp("fake-vllm")) as factory:
        yield factory.start("--max-model-len", "512")


def tg_body(text: str, src: str = "en", tgt: str = "ko", **extra: Any) -> dict[str, Any]:
    part = {"type": "text", "source_lang_code": src, "target_lang_code": tgt, "text": text}
    return {"model": DEFAULT_MODEL, "messages": [{"role": "user", "content": [part]}], **extra}


def post(server: FakeVLLMProcess, path: str, body: dict[str, Any], **kw: Any) -> httpx.Response:
    return httpx.post(f"{server.base_url}{path}", json=body, timeout=10, **kw)


def error_message(response: httpx.Response) -> str:
    return str(response.json()["error"]["message"])


# --- protocol ------------------------------------------------------------------------------


def test_health_is_200_with_an_empty_body(server: FakeVLLMProcess) -> None:
    response = httpx.get(f"{server.root_url}/health")
    assert response.status_code == 200
    assert response.content == b""


def test_models_lists_the_served_name_with_max_model_len(server: FakeVLLMProcess) -> None:
    data = httpx.get(f"{server.base_url}/models").json()
    assert data["object"] == "list"
    assert [(m["id"], m["max_model_len"]) for m in data["data"]] == [(DEFAULT_MODEL, 512)]


def test_translategemma_chat_request_returns_the_pseudo_translation(
    server: FakeVLLMProcess,
) -> None:
    text = "Attention is all you need {v1}."
    response = post(server, "/chat/completions", tg_body(text, temperature=0, max_tokens=100))
    assert response.status_code == 200
    data = response.json()
    assert data["object"] == "chat.completion"
    assert data["choices"][0]["message"]["content"] == pseudo_translate(text, "ko")
    assert data["choices"][0]["finish_reason"] == "stop"
    assert data["usage"]["prompt_tokens"] > 0
    assert data["usage"]["total_tokens"] == (
        data["usage"]["prompt_tokens"] + data["usage"]["completion_tokens"]
    )
    assert text in server.texts()


@pytest.mark.parametrize(
    ("messages", "complaint"),
    [
        ([{"role": "system", "content": "You translate."}, {"role": "user", "content": "Hi"}],
         "roles"),
        ([{"role": "user", "content": "Hello world"}], "exactly one item"),
        ([{"role": "user", "content": [
            {"type": "text", "source_lang_code": "en", "target_lang_code": "ko", "text": "a"},
            {"type": "text", "source_lang_code": "en", "target_lang_code": "ko", "text": "b"},
        ]}], "exactly one item"),
        ([{"role": "user", "content": [{"type": "text", "text": "no codes"}]}], "undefined"),
    ],
)  # fmt: skip
def test_translategemma_template_is_strict(
    server: FakeVLLMProcess, messages: list[dict[str, Any]], complaint: str
) -> None:
    response = post(server, "/chat/completions", {"model": DEFAULT_MODEL, "messages": messages})
    assert response.status_code == 400
    assert "chat template" in error_message(response)
    assert complaint in error_message(response)


@pytest.mark.parametrize("code", ["zh-CN", "zh", "xx"])
def test_language_codes_outside_the_template_map_are_rejected(
    server: FakeVLLMProcess, code: str
) -> None:
    response = post(server, "/chat/completions", tg_body("Hello.", tgt=code))
    assert response.status_code == 400
    assert code in error_message(response)


def test_a_priority_is_refused_under_fcfs_and_ordered_under_priority_scheduling(
    fake_vllm: FakeVLLMFactory,
) -> None:
    """vLLM's default policy (fcfs) refuses any priority but 0, in its own words; with
    ``--scheduling-policy priority`` the same request is served; a priority must be an integer."""
    fcfs = fake_vllm.start("--scheduling-policy", "fcfs")  # vLLM's default
    assert post(fcfs, "/chat/completions", tg_body("Hello.", priority=0)).status_code == 200
    refused = post(fcfs, "/chat/completions", tg_body("Hello.", priority=2))
    assert refused.status_code == 400
    assert error_message(refused) == "Got priority 2 but Priority scheduling is not enabled."
    by_priority = fake_vllm.start("--scheduling-policy", "priority")
    served = post(by_priority, "/chat/completions", tg_body("Hello.", priority=2))
    assert served.status_code == 200
    assert by_priority.requests()[-1]["priority"] == 2
    not_a_number = post(by_priority, "/chat/completions", tg_body("Hello.", priority="high"))
    assert not_a_number.status_code == 400
    assert "priority" in error_message(not_a_number)


def test_unknown_model_is_404_with_vllms_message(server: FakeVLLMProcess) -> None:
    body = tg_body("Hello.")
    body["model"] = "gpt-4"
    response = post(server, "/chat/completions", body)
    assert response.status_code == 404
    assert error_message(response) == "The model `gpt-4` does not exist."


def test_context_length_errors_use_vllms_wording(server: FakeVLLMProcess) -> None:
    too_long = post(server, "/chat/completions", tg_body("word " * 600))
    assert too_long.status_code == 400
    assert error_message(too_long).startswith(
        "This model's maximum context length is 512 tokens. However, you requested"
    )
    fits_but_asks_too_much = post(server, "/chat/completions", tg_body("Hello.", max_tokens=500))
    assert fits_but_asks_too_much.status_code == 400
    message = error_message(fits_but_asks_too_much)
    assert "maximum context length is 512 tokens" in message
    assert "in the messages, 500 in the completion" in message


def test_max_tokens_truncates_with_finish_reason_length(server: FakeVLLMProcess) -> None:
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu"
    response = post(server, "/chat/completions", tg_body(text, tgt="de", max_tokens=3))
    choice = response.json()["choices"][0]
    assert choice["finish_reason"] == "length"
    assert len(choice["message"]["content"]) <= 12
    assert pseudo_translate(text, "de").startswith(choice["message"]["content"])
    assert response.json()["usage"]["completion_tokens"] == 3


def test_completions_accepts_a_rendered_translategemma_prompt(server: FakeVLLMProcess) -> None:
    from translation.model.prompts import render_translategemma

    prompt = render_translategemma(
        "Deep learning works.", Language.parse("en"), Language.parse("ja")
    )
    response = post(server, "/completions", {"model": DEFAULT_MODEL, "prompt": prompt})
    assert response.status_code == 200
    assert response.json()["choices"][0]["text"] == pseudo_translate("Deep learning works.", "ja")
    double_bos = post(server, "/completions", {"model": DEFAULT_MODEL, "prompt": "<bos>" + prompt})
    assert double_bos.status_code == 400
    assert "BOS" in error_message(double_bos)
    explicit = {"model": DEFAULT_MODEL, "prompt": "<bos>" + prompt, "add_special_tokens": False}
    assert post(server, "/completions", explicit).status_code == 200


def test_metrics_are_prometheus_text_with_vllm_names_and_labels(server: FakeVLLMProcess) -> None:
    post(server, "/chat/completions", tg_body("Count my tokens."))
    text = httpx.get(f"{server.root_url}/metrics").text
    labels = f'{{engine="0",model_name="{DEFAULT_MODEL}"}}'
    for name, kind in [
        ("vllm:num_requests_running", "gauge"),
        ("vllm:num_requests_waiting", "gauge"),
        ("vllm:kv_cache_usage_perc", "gauge"),
        ("vllm:num_preemptions_total", "counter"),
        ("vllm:prompt_tokens_total", "counter"),
        ("vllm:generation_tokens_total", "counter"),
    ]:
        assert f"# TYPE {name} {kind}\n" in text
        assert f"\n{name}{labels} " in text
    values = {
        line.split("{")[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line and not line.startswith("#") and "reason=" not in line
    }
    assert values["vllm:num_requests_running"] == 0.0
    assert values["vllm:prompt_tokens_total"] > 0
    assert values["vllm:generation_tokens_total"] > 0


def test_streaming_chat_sends_sse_chunks_and_done(server: FakeVLLMProcess) -> None:
    with httpx.stream(
        "POST", f"{server.base_url}/chat/completions", json=tg_body("One two three.", stream=True)
    ) as response:
        lines = [line for line in response.iter_lines() if line.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"
    import json

    pieces = [json.loads(line[6:])["choices"][0]["delta"]["content"] for line in lines[:-1]]
    assert "".join(pieces) == pseudo_translate("One two three.", "ko")


# --- flags and lifecycle --------------------------------------------------------------------


def test_refuses_connections_while_loading_then_serves(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-load-s", "1.0", wait=False)
    deadline = time.monotonic() + 10
    while "Waiting for init message" not in server.output():  # bound, now "loading"
        assert time.monotonic() < deadline
        time.sleep(0.02)
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", server.port), timeout=1).close()
    assert "Starting vLLM API server" not in server.output()
    server.wait_ready(timeout=10)
    assert f"Starting vLLM API server on http://127.0.0.1:{server.port}" in server.output()


def test_crash_during_load_prints_the_memory_error_and_exits_1(
    fake_vllm: FakeVLLMFactory,
) -> None:
    server = fake_vllm.start("--fake-crash-during-load", wait=False)
    assert server.process.wait(timeout=10) == 1
    output = server.output()
    assert "ValueError: Free memory on device" in output
    assert "less than desired GPU memory utilization" in output


def test_api_key_guards_v1_only(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start(api_key="sekret")
    assert httpx.get(f"{server.base_url}/models").status_code == 401
    assert post(server, "/chat/completions", tg_body("Hi.")).status_code == 401
    good = {"Authorization": "Bearer sekret"}
    assert httpx.get(f"{server.base_url}/models", headers=good).status_code == 200
    assert post(server, "/chat/completions", tg_body("Hi."), headers=good).status_code == 200
    assert httpx.get(f"{server.root_url}/health").status_code == 200
    assert httpx.get(f"{server.root_url}/metrics").status_code == 200


def test_chat_template_model_translates_into_the_language_the_system_prompt_names(
    fake_vllm: FakeVLLMFactory,
) -> None:
    server = fake_vllm.start(model="Qwen/Qwen3-8B")
    body = {
        "model": "Qwen/Qwen3-8B",
        "messages": [
            {"role": "system", "content": "Translate from English (en) to Japanese (ja)."},
            {"role": "user", "content": "Good morning."},
        ],
    }
    response = post(server, "/chat/completions", body)
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == pseudo_translate(
        "Good morning.", "ja"
    )


def test_injected_failures_health_503_and_request_log(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-fail-every", "2", "--fake-health-503", wait=False)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            health = httpx.get(f"{server.root_url}/health")
            break
        except httpx.ConnectError:
            time.sleep(0.05)
    assert health.status_code == 503
    statuses = [
        post(server, "/chat/completions", tg_body(f"Text {i}.")).status_code for i in range(4)
    ]
    assert statuses == [200, 500, 200, 500]
    log = server.requests()
    assert [entry["status"] for entry in log] == [200, 500, 200, 500]
    assert log[0]["text"] == "Text 0."
    assert (log[0]["source_lang"], log[0]["target_lang"]) == ("en", "ko")
    assert log[0]["model"] == DEFAULT_MODEL
    assert server.texts() == ["Text 0.", "Text 2."]


def test_die_after_n_answers_kills_the_process_and_its_engine_child(
    fake_vllm: FakeVLLMFactory,
) -> None:
    server = fake_vllm.start("--fake-die-after", "2", "--fake-engine-child")
    child = _engine_children(server.pid)
    assert len(child) == 1
    assert post(server, "/chat/completions", tg_body("One.")).status_code == 200
    assert post(server, "/chat/completions", tg_body("Two.")).status_code == 200
    assert server.process.wait(timeout=5) == -signal.SIGKILL
    with pytest.raises(httpx.ConnectError):
        post(server, "/chat/completions", tg_body("Three."))
    _wait_gone(child[0])
    assert [e["text"] for e in server.requests()] == ["One.", "Two."]


def test_sigterm_stops_gracefully_and_the_engine_child_goes_too(
    fake_vllm: FakeVLLMFactory,
) -> None:
    server = fake_vllm.start("--fake-engine-child")
    (child,) = _engine_children(server.pid)
    cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
    assert cmdline.startswith(b"VLLM::EngineCore")
    os.kill(server.pid, signal.SIGTERM)
    assert server.process.wait(timeout=5) == 0
    _wait_gone(child)
    assert "Application shutdown complete" in server.output()


def test_ignore_sigterm_keeps_serving(fake_vllm: FakeVLLMFactory) -> None:
    server = fake_vllm.start("--fake-ignore-sigterm")
    os.kill(server.pid, signal.SIGTERM)
    time.sleep(0.3)
    assert server.alive()
    assert httpx.get(f"{server.root_url}/health").status_code == 200


def test_executable_has_the_real_cli_shape_and_accepts_real_flags(tmp_path: Path) -> None:
    """``vllm serve MODEL`` with the production profile's flags, run from another directory."""
    port = free_port()
    log = tmp_path / "requests.jsonl"
    argv = [
        str(FAKE_VLLM), "serve", "/models/translategemma-27b-it-w4a16",
        "--served-model-name", "google/translategemma-27b-it",
        "--host", "127.0.0.1", "--port", str(port),
        "--max-model-len", "4096", "--max-num-seqs", "32", "--max-num-batched-tokens", "4096",
        "--gpu-memory-utilization", "0.90", "--kv-cache-dtype", "fp8",
        "--limit-mm-per-prompt", '{"image":0}', "--enforce-eager",
        "--chat-template-content-format", "openai", "--generation-config", "vllm",
        "--some-future-flag", "--fake-request-log", str(log),
    ]  # fmt: skip
    process = subprocess.Popen(
        argv, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 10
        while True:
            try:
                models = httpx.get(f"{url}/v1/models").json()
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.05)
        assert models["data"][0]["id"] == "google/translategemma-27b-it"
        assert models["data"][0]["max_model_len"] == 4096
        response = httpx.post(f"{url}/v1/chat/completions", json=tg_body("Hi."))
        assert response.status_code == 200
        assert [e["text"] for e in read_request_log(log)] == ["Hi."]
    finally:
        process.kill()
        process.wait()


def test_script_form_runs_under_a_plain_python3(tmp_path: Path) -> None:
    """``python3 tests/fakes/fake_vllm.py`` with no project venv: standard library only."""
    script = FAKE_VLLM.parent / "fake_vllm.py"
    result = subprocess.run(
        [sys.executable, "-I", "-S", str(script), "serve", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert "--fake-load-s" in result.stdout


def _engine_children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and cmdline.startswith(b"VLLM::EngineCore"):
            found.append(int(entry.name))
    return found


def _wait_gone(pid: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return
        if state == "Z":  # exited; its parent (gone) left it to init to reap
            return
        time.sleep(0.05)
    raise AssertionError(f"engine child {pid} still running")
