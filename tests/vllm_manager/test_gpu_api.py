"""The GPU status API over real HTTP (uvicorn on a loopback port), and ApiSource against it."""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from common.errors import ConfigError
from common.settings import Settings
from tests.helpers.gpu import GPU_UUID, FakeSmi, comfyui_argv, gpu, running, serve_in_thread
from tests.helpers.net import free_port
from vllm_manager.gpu import ApiSource, ProbeSource, make_status_source
from vllm_manager.gpu_api import NO_TOKEN_MESSAGE, create_gpu_app, serve_gpu_api

TOKEN = "s3cret-token"
# A server that hangs makes the client give up after this; every test answer comes well before.
CLIENT_TIMEOUT_S = 10.0


@pytest.fixture
def fake(tmp_path: Path) -> FakeSmi:
    return FakeSmi(tmp_path / "smi")


@pytest.fixture
def api_settings(settings: Settings, fake: FakeSmi) -> Settings:
    return settings.model_copy(
        update={
            "nvidia_smi": fake.path,
            "smi_timeout_s": 5.0,
            "gpu_watch_keywords": f"zt-api-test-{uuid.uuid4().hex[:12]}",
            "gpu_api_token": SecretStr(TOKEN),
        }
    )


@pytest.fixture
def api(api_settings: Settings) -> Iterator[str]:
    with serve_in_thread(create_gpu_app(api_settings)) as url:
        yield url


def get(url: str, path: str, token: str | None = TOKEN) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    return httpx.get(url + path, headers=headers, timeout=CLIENT_TIMEOUT_S)


def test_healthz_needs_no_token(api: str) -> None:
    response = get(api, "/healthz", token=None)
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_status_contract(api: str, fake: FakeSmi, tmp_path: Path) -> None:
    with running(comfyui_argv(tmp_path)) as comfy:
        fake.set(processes=[{"pid": comfy.pid, "used_gpu_memory": 20480}])
        response = get(api, "/status")
    assert response.status_code == 200
    body = response.json()
    # The GPU status API's contract (docs/architecture.md §4), field by field.
    assert body["is_idle"] is False
    assert (body["memory_used_mib"], body["memory_total_mib"]) == (20780, 32607)
    assert (body["utilization_pct"], body["temperature_c"]) == (0, 38)
    assert body["processes"] == [
        {
            "pid": comfy.pid,
            "command": " ".join(comfyui_argv(tmp_path)),
            "memory_mib": 20480,
            "on_gpu": True,
            "gpu_uuid": GPU_UUID,
            "sleeping": False,  # issue 11: a vLLM asleep is listed with sleeping: true
        }
    ]
    assert body["memory_free_mib"] == 32607 - 20780
    assert [(g["index"], g["uuid"], g["name"]) for g in body["gpus"]] == [
        (0, GPU_UUID, "NVIDIA GeForce RTX 5090")
    ]
    assert body["checked_at"]
    assert response.headers["cache-control"] == "no-store"


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        ({}, "missing Bearer token"),
        ({"Authorization": "Bearer wrong-token"}, "invalid token"),
        ({"Authorization": f"Bearer {TOKEN}x"}, "invalid token"),
        ({"Authorization": f"Basic {TOKEN}"}, "missing Bearer token"),
        ({"Authorization": "Bearer"}, "missing Bearer token"),
    ],
)
@pytest.mark.parametrize("path", ["/status", "/metrics"])
def test_bad_or_missing_token(api: str, path: str, headers: dict[str, str], reason: str) -> None:
    response = httpx.get(api + path, headers=headers, timeout=CLIENT_TIMEOUT_S)
    assert response.status_code == 401
    assert response.json() == {"errorType": "Unauthorized", "reason": reason}
    assert response.headers["www-authenticate"] == "Bearer"


def test_bearer_scheme_is_case_insensitive(api: str) -> None:
    response = httpx.get(
        api + "/status", headers={"Authorization": f"bearer {TOKEN}"}, timeout=CLIENT_TIMEOUT_S
    )
    assert response.status_code == 200


def test_gpu_unreadable_is_503_with_reason(api: str, fake: FakeSmi) -> None:
    fake.set(mode="missing")
    response = get(api, "/status")
    assert response.status_code == 503
    body = response.json()
    assert body["errorType"] == "GPUReadError"
    assert "couldn't communicate with the NVIDIA driver" in body["reason"]
    assert response.headers["retry-after"] == "5"


def test_hanging_nvidia_smi_is_503_not_a_hang(api_settings: Settings, fake: FakeSmi) -> None:
    fake.set(mode="hang")
    app = create_gpu_app(api_settings.model_copy(update={"smi_timeout_s": 0.3}))
    with serve_in_thread(app) as url:
        response = get(url, "/status")  # the client would time out if the server hung
    assert response.status_code == 503
    assert response.json()["reason"] == "nvidia-smi did not answer within 0.3 s"


def test_garbage_is_503(api: str, fake: FakeSmi) -> None:
    fake.set(mode="garbage")
    response = get(api, "/status")
    assert response.status_code == 503
    assert response.json()["reason"].startswith("unexpected nvidia-smi output")


def test_metrics(api: str, fake: FakeSmi) -> None:
    with running([sys.executable, "-c", "import time; time.sleep(60)"]) as proc:
        fake.set(
            gpus=[gpu(utilization_gpu=42, temperature_gpu=65)],
            processes=[{"pid": proc.pid, "used_gpu_memory": 1000}],
        )
        response = get(api, "/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    labels = f'{{gpu="0",uuid="{GPU_UUID}",name="NVIDIA GeForce RTX 5090"}}'
    lines = response.text.splitlines()
    for expected in [
        "zt_gpu_up 1",
        f"zt_gpu_memory_used_mib{labels} 1300",
        f"zt_gpu_memory_total_mib{labels} 32607",
        f"zt_gpu_utilization_pct{labels} 42",
        f"zt_gpu_temperature_c{labels} 65",
        f"zt_gpu_processes{labels} 1",
        f"zt_gpu_idle{labels} 0",
        "zt_gpu_host_idle 0",
        "# TYPE zt_gpu_memory_used_mib gauge",
    ]:
        assert expected in lines


def test_metrics_when_the_gpu_is_unreadable(api: str, fake: FakeSmi) -> None:
    fake.set(mode="missing")
    response = get(api, "/metrics")
    assert response.status_code == 200
    assert "zt_gpu_up 0" in response.text.splitlines()
    assert "zt_gpu_memory_used_mib" not in response.text


def test_dashboard_is_served_without_token(api: str) -> None:
    page = get(api, "/", token=None)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert 'src="static/gpu.js"' in page.text
    for asset, kind in (("gpu.js", "text/javascript"), ("gpu.css", "text/css")):
        response = get(api, f"/static/{asset}", token=None)
        assert response.status_code == 200
        assert response.headers["content-type"].startswith(kind)
    assert get(api, "/static/..%2Fpyproject.toml", token=None).status_code == 404


def test_refuses_to_start_without_a_token(settings: Settings) -> None:
    with pytest.raises(ConfigError) as info:
        create_gpu_app(settings)
    assert str(info.value) == NO_TOKEN_MESSAGE
    with pytest.raises(ConfigError, match="ZT_GPU_API_TOKEN is not set"):
        serve_gpu_api(settings, "127.0.0.1", free_port())


def test_no_auth_must_be_explicit(api_settings: Settings) -> None:
    app = create_gpu_app(api_settings.model_copy(update={"gpu_api_token": None}), no_auth=True)
    with serve_in_thread(app) as url:
        response = get(url, "/status", token=None)
    assert response.status_code == 200
    assert response.json()["is_idle"] is True


# --- ApiSource ------------------------------------------------------------------------------


async def test_api_source_reads_what_the_probe_sees(
    api: str, api_settings: Settings, fake: FakeSmi, tmp_path: Path
) -> None:
    with running(comfyui_argv(tmp_path)) as comfy:
        fake.set(processes=[{"pid": comfy.pid, "used_gpu_memory": 20480}])
        remote = await ApiSource(api, TOKEN).read()
        local = await ProbeSource(api_settings).read()
    assert remote.reason == ""
    assert remote.status is not None and local.status is not None
    assert remote.status.model_dump(exclude={"checked_at"}) == local.status.model_dump(
        exclude={"checked_at"}
    )
    assert [p.pid for p in remote.status.processes] == [comfy.pid]


async def test_api_source_with_a_borrowed_client(api: str) -> None:
    async with httpx.AsyncClient() as client:
        source = ApiSource(api + "/", SecretStr(TOKEN), http_client=client)
        first, second = await source.read(), await source.read()
        assert not client.is_closed  # borrowed, not closed
    assert first.status is not None and second.status is not None


async def test_api_source_when_the_api_is_down() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    status, reason = await ApiSource(url, TOKEN, timeout_s=5).read()
    assert status is None
    assert reason.startswith(f"GPU status API at {url} unreachable")


async def test_api_source_with_a_wrong_token(api: str) -> None:
    status, reason = await ApiSource(api, "wrong").read()
    assert status is None
    assert reason == f"GPU status API at {api} rejected the token (HTTP 401)"


async def test_api_source_without_a_token(api: str) -> None:
    status, reason = await ApiSource(api, None).read()
    assert status is None
    assert "rejected the token (HTTP 401)" in reason


async def test_api_source_when_the_gpu_is_unreadable(api: str, fake: FakeSmi) -> None:
    fake.set(mode="missing")
    status, reason = await ApiSource(api, TOKEN).read()
    assert status is None
    assert reason.startswith(f"GPU status API at {api} cannot read the GPU: nvidia-smi failed")


async def _slow(request: Request) -> Response:
    await asyncio.sleep(1.0)
    return PlainTextResponse("late")


def _not_the_api() -> Starlette:
    async def text(request: Request) -> Response:
        return PlainTextResponse("hello, I am a printer")

    async def wrong_json(request: Request) -> Response:
        return JSONResponse({"is_idle": "perhaps", "processes": 3})

    async def teapot(request: Request) -> Response:
        return PlainTextResponse("I'm a teapot", status_code=418)

    return Starlette(
        routes=[
            Route("/text/status", text),
            Route("/json/status", wrong_json),
            Route("/teapot/status", teapot),
            Route("/slow/status", _slow),
        ]
    )


@pytest.fixture
def other_server() -> Iterator[str]:
    with serve_in_thread(_not_the_api()) as url:
        yield url


@pytest.mark.parametrize(
    ("prefix", "expected"),
    [
        ("/text", "sent an unreadable status"),
        ("/json", "sent an unreadable status"),
        ("/teapot", "answered HTTP 418: I'm a teapot"),
        ("/slow", "did not answer within 0.3 s"),
    ],
)
async def test_api_source_with_garbage_answers(
    other_server: str, prefix: str, expected: str
) -> None:
    status, reason = await ApiSource(other_server + prefix, TOKEN, timeout_s=0.3).read()
    assert status is None
    assert expected in reason


async def test_make_status_source(api: str, api_settings: Settings) -> None:
    local = make_status_source(api_settings)
    assert isinstance(local, ProbeSource)
    remote = make_status_source(api_settings.model_copy(update={"gpu_api_url": api}))
    assert isinstance(remote, ApiSource)
    reading = await remote.read()  # it carries the configured token
    assert reading.status is not None, reading.reason
