"""Secrets masked wherever they could leave the process (common/redact.py): command lines
read from /proc, the GPU API's ``/status``, ``/health``, the page's events, the access log and
404 bodies, including the shapes a first pass missed.

Security bar: ``test_tokens_are_masked_in_the_access_log_and_404_bodies`` (item 9, tokens in
percent-encoded query keys and failed paths) and ``test_mask_secrets_second_pass`` (item 9,
secret shapes of command lines).

The access log showed ``?%74oken=<token>`` and ``/T/<token>/...`` in clear, and the 404 body
echoed the path it did not find. Command lines leaked ``-H "Authorization: Bearer …"``, JSON
given as an option, ``--apikey:x`` and a secret value that starts with ``-``.
"""

from __future__ import annotations

import logging
import os
import sys
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from common.redact import MASK, mask_argv, mask_secrets
from common.settings import Settings
from tests.helpers.gpu import FakeSmi, running, serve_in_thread
from tests.helpers.server import RunningServer, read_sse, run_app
from vllm_manager.gpu_api import create_gpu_app
from vllm_manager.gpu_model import GPUProcess, GPUStatus
from vllm_manager.procscan import read_cmdline
from vllm_manager.report import gpu_summary
from vllm_manager.snapshot import ManagerSnapshot, VLLMInfo
from vllm_manager.state import VLLMState

TOKEN = "s3cret-tok"


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_tokens_are_masked_in_the_access_log_and_404_bodies(settings: Settings) -> None:
    """Origin: hardening, issue 20 item 9 (secret shapes a first pass missed)."""
    guarded = settings.model_copy(update={"api_token": SecretStr(TOKEN)})
    access = logging.getLogger("uvicorn.access")
    records = _Records()
    with run_app(guarded) as srv:
        level = access.level
        access.setLevel(logging.INFO)  # the test server runs at "warning"
        access.addHandler(records)
        try:
            with srv.client() as client:
                assert client.get(f"/api/history?%74oken={TOKEN}").status_code == 200
                assert client.get(f"/api/history?%54OKEN=%73{TOKEN[1:]}").status_code == 401
                not_found = [
                    client.get(f"/T/{TOKEN}/api/tasks"),
                    client.get(f"/nowhere/{TOKEN}"),
                    client.get(f"/nowhere/%73{TOKEN[1:]}/x"),
                    client.get(f"/api/tasks/{TOKEN}", params={"token": TOKEN}),
                    client.get(f"/translatedFile/{TOKEN}.pdf", params={"token": TOKEN}),
                ]
        finally:
            access.removeHandler(records)
            access.setLevel(level)
    for response in not_found:
        assert response.status_code == 404
        assert "not found" in response.json()["message"] or "no such" in response.text
        assert TOKEN not in response.text, response.text
    logged = "\n".join(records.lines)
    assert logged.count("/api/history") == 2 and "/nowhere/" in logged, logged
    assert f"%74oken={MASK}" in logged and f"/T/{MASK}/api/tasks" in logged, logged
    assert TOKEN not in logged and TOKEN[1:] not in logged, logged


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            'curl -H "Authorization: Bearer sk-abc123" http://h/v1',
            f'curl -H "Authorization: Bearer {MASK}" http://h/v1',
        ),
        ("curl -H X-Api-Key:sk-abc123 http://h", f"curl -H X-Api-Key:{MASK} http://h"),
        (
            """app --config '{"api_key": "sk-abc123", "n": 1}'""",
            f"""app --config '{{"api_key": "{MASK}", "n": 1}}'""",
        ),
        ('app --config {"hf_token":"hf_abc123"}', f'app --config {{"hf_token":"{MASK}"}}'),
        ("app --apikey:sk-abc123 --port 1", f"app --apikey:{MASK} --port 1"),
        ("app --api-key -sk-abc123 --port 1", f"app --api-key {MASK} --port 1"),
        ("app --use-auth -v --port 1", "app --use-auth -v --port 1"),  # flags stay
    ],
)
def test_mask_secrets_second_pass(command: str, expected: str) -> None:
    """Origin: hardening, issue 20 item 9 (secret shapes a first pass missed)."""
    assert mask_secrets(command) == expected
    assert mask_secrets(expected) == expected  # idempotent


def test_an_authorization_header_argument_is_masked_in_an_argv() -> None:
    """Origin: hardening, issue 20 item 9 (secret shapes a first pass missed)."""
    argv = ["curl", "-H", "Authorization: Bearer sk-abc123", "-H", "Accept: */*", "http://h"]
    assert mask_argv(argv) == [
        "curl", "-H", f"Authorization: Bearer {MASK}", "-H", "Accept: */*", "http://h"
    ]  # fmt: skip


SECRETS = ("Sk-APIKEY-1", "hf_TOKEN_2", "PaSsWoRd3", "urlpass4", "envtoken5")


def secret_argv(marker: str) -> list[str]:
    """A GPU service's command line carrying every kind of secret the issue names."""
    return [
        sys.executable,
        "-c",
        "import time; time.sleep(60)",
        marker,
        f"--api-key={SECRETS[0]}",
        "--hf-token",
        SECRETS[1],
        "--db-password",
        SECRETS[2],
        f"--url=https://user:{SECRETS[3]}@example.org/v1",
        f"HF_TOKEN={SECRETS[4]}",
        "--port",
        "8000",
    ]


def assert_masked(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} leaked: {text}"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("vllm serve m --api-key=abc --port 1", f"vllm serve m --api-key={MASK} --port 1"),
        ("vllm serve m --api-key abc --port 1", f"vllm serve m --api-key {MASK} --port 1"),
        ("app -token abc -v", f"app -token {MASK} -v"),
        ("app --hf_token=abc", f"app --hf_token={MASK}"),
        ("app --AUTHORIZATION x", f"app --AUTHORIZATION {MASK}"),
        ("app --use-auth --port 1", "app --use-auth --port 1"),  # a flag: nothing to mask
        ("app --client-secret=", f"app --client-secret={MASK}"),
        ("env OPENAI_API_KEY=abc app", f"env OPENAI_API_KEY={MASK} app"),
        ("app --base https://u:p@h:1/v1", f"app --base https://{MASK}@h:1/v1"),
        ("app http://h/x?token=abc&n=1", f"app http://h/x?token={MASK}&n=1"),
        ("app -p 8000 --model key-value-net", "app -p 8000 --model key-value-net"),
    ],
)
def test_mask_secrets(command: str, expected: str) -> None:
    """Origin: hardening, issue 12 finding 1 (secrets on command lines)."""
    assert mask_secrets(command) == expected
    assert mask_secrets(expected) == expected  # idempotent


def test_the_command_line_read_from_proc_is_masked() -> None:
    """Origin: hardening, issue 12 finding 1 (secrets on command lines)."""
    marker = f"zt-secret-test-{uuid.uuid4().hex[:8]}"
    with running(secret_argv(marker)) as proc:
        command = read_cmdline(proc.pid).command
    assert marker in command and "--port 8000" in command
    assert f"--api-key={MASK}" in command and f"--hf-token {MASK}" in command
    assert_masked(command)


def test_gpu_api_status_masks_every_process_command(settings: Settings, tmp_path: Path) -> None:
    """Origin: hardening, issue 12 finding 1 (secrets on command lines)."""
    marker = f"zt-secret-test-{uuid.uuid4().hex[:8]}"
    fake = FakeSmi(tmp_path / "smi")
    api_settings = settings.model_copy(
        update={
            "nvidia_smi": fake.path,
            "gpu_watch_keywords": marker,
            "gpu_api_token": SecretStr("t0ken"),
        }
    )
    with running(secret_argv(marker)), serve_in_thread(create_gpu_app(api_settings)) as url:
        answer = httpx.get(url + "/status", headers={"Authorization": "Bearer t0ken"}, timeout=10)
    assert answer.status_code == 200
    commands = [p["command"] for p in answer.json()["processes"]]
    assert any(marker in command for command in commands), commands
    assert_masked(answer.text)


@pytest.fixture
def srv_with_busy_gpu(settings: Settings, tmp_path: Path) -> Iterator[RunningServer]:
    """The server, its manager reporting a GPU held by a process with secrets on its command
    line (the snapshot is built by the real ``gpu_summary``, as a launching manager does)."""
    status = GPUStatus(
        is_idle=False,
        memory_used_mib=20000,
        memory_total_mib=32000,
        utilization_pct=90,
        temperature_c=60,
        processes=[
            GPUProcess(pid=4242, command=" ".join(secret_argv("train.py")), memory_mib=20000)
        ],
        checked_at=datetime.now(UTC),
    )

    with run_app(settings) as srv:
        manager = srv.services.manager

        async def snapshot() -> ManagerSnapshot:
            return ManagerSnapshot(
                manager="local",
                state=VLLMState.WAITING_GPU,
                server_pid=os.getpid(),
                last_error=f"vLLM exited: vllm serve --api-key {SECRETS[0]}",
                active_work=0,
                idle_for_s=0.0,
                idle_shutdown_s=0.0,
                vllm=VLLMInfo(
                    url=f"http://u:{SECRETS[3]}@h/v1", model="m", healthy=False, detail=""
                ),
                gpu=gpu_summary(status, "", settings, None),
            )

        manager.snapshot = snapshot  # type: ignore[method-assign]
        yield srv


def test_health_carries_no_command_lines(srv_with_busy_gpu: RunningServer) -> None:
    """Origin: hardening, issue 12 finding 1 (secrets on command lines)."""
    with srv_with_busy_gpu.client() as client:
        health = client.get("/health")
    assert health.status_code == 200
    gpu = health.json()["gpu"]
    assert gpu["decision"] == "busy" and gpu["holders"] == [{"pid": 4242, "memory_mib": 20000}]
    assert "train.py" not in health.text and "--port" not in health.text
    assert_masked(health.text)


def test_server_events_and_gpu_message_are_masked(srv_with_busy_gpu: RunningServer) -> None:
    """Origin: hardening, issue 12 finding 1 (secrets on command lines)."""
    with (
        srv_with_busy_gpu.client(timeout=30) as client,
        client.stream("GET", "/events") as stream,
    ):
        events = read_sse(stream, lambda e: e["event"] == "server")
    server = events[-1]["data"]
    gpu = server["gpu"]
    assert "train.py" in gpu["message"] and "train.py" in gpu["holders"][0]["command"]
    assert f"--api-key={MASK}" in gpu["holders"][0]["command"]
    assert_masked(str(events))


def test_the_access_log_shows_no_tokens(settings: Settings) -> None:
    """Finding 6: a real uvicorn server's access log, captured.

    Origin: hardening, issue 12 finding 6 (the access log)."""
    guarded = settings.model_copy(update={"api_token": SecretStr("s3cret-tok")})
    access = logging.getLogger("uvicorn.access")
    records = _Records()
    with run_app(guarded) as srv:
        level = access.level
        access.setLevel(logging.INFO)  # the test server runs at "warning"
        access.addHandler(records)
        try:
            with srv.client() as client:
                assert client.get("/t/s3cret-tok/api/tasks").status_code == 200
                assert client.get("/api/history", params={"token": "s3cret-tok"}).is_success
                client.get("/t/s3cret-tok//health")
        finally:
            access.removeHandler(records)
            access.setLevel(level)
    logged = "\n".join(records.lines)
    assert "/api/tasks" in logged and "/api/history" in logged and "/health" in logged, logged
    assert "/t/***/api/tasks" in logged and "token=***" in logged
    assert "s3cret-tok" not in logged
