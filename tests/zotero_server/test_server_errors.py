"""Every way a request can be wrong, and what the plugin then shows: status + error JSON.

Bad input is refused before a job exists (400/413/409), nothing outside the output directory
can ever be downloaded, an unreachable LLM is a 502 and a busy GPU a 503 with Retry-After.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from common.settings import Settings
from tests.helpers.gpu import comfyui_argv, gpu, running
from tests.helpers.manager import Rig
from tests.helpers.net import free_port
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import (
    PARAGRAPHS,
    RunningServer,
    plugin_body,
    raw_request,
    run_app,
    wait_until,
)
from zotero_server.file_names import OutputKind


def assert_error(response: httpx.Response, status: int, *words: str) -> dict[str, Any]:
    """The plugin's error shape, with a short message naming the problem."""
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert body["status"] == "error" and body["ok"] is False
    assert body["errorType"]
    assert 0 < len(body["message"]) <= 300
    for word in words:
        assert word.lower() in body["message"].lower(), body["message"]
    return body


@pytest.fixture
def srv(settings: Settings) -> Iterator[RunningServer]:
    # No LLM at all: everything here must fail before one is needed, or because it is missing.
    dead = settings.model_copy(
        update={"llm_base_url": f"http://127.0.0.1:{free_port()}/v1", "max_upload_mb": 1.0}
    )
    with run_app(dead) as running:
        yield running


def post(srv: RunningServer, body: object, path: str = "/translate") -> httpx.Response:
    with srv.client() as client:
        return client.post(
            path, content=json.dumps(body), headers={"content-type": "application/json"}
        )


@pytest.mark.parametrize(
    ("corpus_file", "status", "word"),
    [
        ("15_malformed_not_a_pdf_header_eof.pdf", 400, "PDF"),
        ("14_malformed_truncated_naacl2018_s2_literature_graph.pdf", 400, "page"),
        ("11_encrypted_userpw_1234_kdd2022_doclaynet_p3.pdf", 400, "password"),
        ("10_scanned_imageonly_naacl2018_s2_literature_graph.pdf", 400, "text"),
    ],
)
def test_bad_pdfs_from_the_corpus_are_400(
    srv: RunningServer, corpus_dir: Path, corpus_file: str, status: int, word: str
) -> None:
    pdf = (corpus_dir / corpus_file).read_bytes()
    # A scan is read by OCR unless the plugin turns it off (issue 14): then it has no text.
    fields = {"ocr": "false", "autoOcr": "false"} if corpus_file.startswith("10_") else {}
    assert_error(post(srv, plugin_body(pdf, "paper.pdf", **fields)), status, word)
    assert srv.services.registry.all_jobs() == []  # refused before any job existed
    assert srv.services.uploads.names() == []


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"fileContent": "data:application/pdf;base64,@@@not base64@@@"}, ["base64"]),
        ({"fileContent": base64.b64encode(b"hello, world").decode()}, ["PDF"]),
        ({"fileContent": ""}, ["fileContent"]),
        ({"fileName": "../../etc/passwd.pdf"}, ["file name"]),
        ({"fileName": "paper.docx"}, [".pdf"]),
        ({"fileName": ""}, ["fileName"]),
        ({"fileName": "x-mono.pdf"}, ["original"]),
        ({"targetLang": "xx-YY"}, ["language"]),
        ({"skipLastPages": "lots"}, ["skipLastPages"]),
        ({"skipLastPages": "1"}, ["skipLastPages"]),  # the paper has one page
        ({"mono": "false", "dual": "false"}, ["nothing"]),
    ],
)
def test_bad_requests_are_400_with_a_clear_message(
    srv: RunningServer, fields: dict[str, str], words: list[str]
) -> None:
    assert_error(
        post(srv, plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", **fields)),
        400,
        *words,
    )


def test_not_json_is_400(srv: RunningServer) -> None:
    with srv.client() as client:
        assert_error(client.post("/translate", content=b"{not json"), 400, "JSON")
        assert_error(client.post("/translate", json=["a", "list"]), 400, "JSON object")


def test_too_large_is_413(srv: RunningServer) -> None:
    """ZT_MAX_UPLOAD_MB is 1 here: a 1.5 MB PDF is refused, however it is sent."""
    big = small_paper(paragraphs=PARAGRAPHS) + b"%" + b"x" * 1_500_000
    assert_error(post(srv, plugin_body(big, "big.pdf")), 413, "MB")
    # A huge body is refused from its Content-Length, before it is read.
    status, headers, body = raw_request(
        srv.port, "POST", "/translate", {"Content-Length": str(50_000_000)}
    )
    assert status == 413 and json.loads(body)["errorType"] == "TooLarge"


def test_compare_on_a_compared_file_is_409(srv: RunningServer) -> None:
    body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper-compare.pdf")
    assert_error(post(srv, body, "/compare"), 409, "already")
    body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper-crop-compare.pdf")
    assert_error(post(srv, body, "/crop-compare"), 409, "already")


def test_llm_down_is_502_sync_and_a_failed_task_async(srv: RunningServer) -> None:
    body = assert_error(
        post(srv, plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf")),
        502,
        "not answering",
    )
    assert body["errorType"] == "LLMUnavailable"
    with srv.client() as client:
        accepted = client.post(
            "/translate",
            json=plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", asyncJob="true"),
        ).json()
        assert accepted["status"] == "accepted"
        job = srv.services.registry.get(accepted["taskId"])
        assert job is not None
        wait_until(lambda: job.finished, what="the job to fail")
        task = [t for t in client.get("/api/tasks").json()["tasks"] if t["taskId"] == job.id][0]
        assert task["status"] == "失败" and task["finished"]
        assert "not answering" in task["message"]
        assert task["result"]["status"] == "error"
        history = client.get("/api/history").json()["history"]
        assert [t["status"] for t in history if t["taskId"] == job.id] == ["failed"]
    assert srv.services.uploads.names() == []


def test_busy_gpu_is_503_with_retry_after(tmp_path: Path) -> None:
    """ComfyUI holds the GPU past ZT_GPU_WAIT_S: 503, Retry-After, and who holds it."""
    rig = Rig(tmp_path)
    settings = rig.settings(gpu_wait_s=0.6, gpu_poll_s=0.2)
    try:
        with running(comfyui_argv(tmp_path)) as comfy, run_app(settings) as srv:
            rig.smi.set(
                gpus=[gpu(memory_used=20800)],
                processes=[{"pid": comfy.pid, "used_gpu_memory": 20480}],
            )
            response = post(srv, plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf"))
            assert_error(response, 503, "ComfyUI")
            assert int(response.headers["retry-after"]) >= 1
            assert rig.launch_count() == 0  # never started vLLM on a busy GPU
    finally:
        rig.reap()


# --- downloads: nothing outside the output directory ----------------------------------------


@pytest.fixture
def secret(settings: Settings) -> Path:
    """A file next to the outputs that must never be served."""
    path = settings.data_dir / "secret.pdf"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"%PDF TOP SECRET")
    return path


@pytest.mark.parametrize(
    "target",
    [
        "/translatedFile/..%2Fsecret.pdf",
        "/translatedFile/..%2F..%2Fdata%2Fsecret.pdf",
        "/translatedFile/%2e%2e%2fsecret.pdf",
        "/translatedFile/%2e%2e/secret.pdf",
        "/translatedFile/../secret.pdf",
        "/translatedFile/..%5Csecret.pdf",
        "/translatedFile/%252e%252e%252fsecret.pdf",
        "/translatedFile/%2Fetc%2Fpasswd",
        "/translatedFile//etc/passwd",
        "/translatedFile/sub%2F..%2F..%2Fsecret.pdf",
        "/translatedFile/secret.pdf%00.pdf",
    ],
)
def test_path_traversal_never_escapes(srv: RunningServer, secret: Path, target: str) -> None:
    srv.services.outputs.save("paper", [(OutputKind.MONO, b"%PDF mono")])
    for method in ("GET", "HEAD"):
        status, headers, body = raw_request(srv.port, method, target)
        assert status in (400, 404), (target, status)
        assert b"TOP SECRET" not in body
        if method == "GET":
            assert json.loads(body)["status"] == "error"
    assert secret.exists()
    assert srv.services.outputs.names() == ["paper-mono.pdf"]


def test_unknown_routes_keep_404_in_the_error_shape(srv: RunningServer) -> None:
    with srv.client() as client:
        assert_error(client.get("/no/such/page"), 404, "not found")
        assert_error(client.get("/translatedFile/never-made.pdf"), 404, "never-made.pdf")
        assert_error(client.get("/api/tasks/nope"), 404, "no such task")
        assert_error(client.get("/api/tasks/nope/events"), 404, "no such task")
        assert client.get("/translate").status_code == 405


# --- the optional API token -----------------------------------------------------------------


def test_api_token_guards_papers_but_not_health_or_page(settings: Settings) -> None:
    guarded = settings.model_copy(update={"api_token": SecretStr("s3cret")})
    with run_app(guarded) as srv:
        srv.services.outputs.save("paper", [(OutputKind.MONO, b"%PDF mono")])
        with srv.client() as client:
            assert client.get("/health").json()["status"] == "ok"
            assert client.get("/").status_code == 200
            assert client.get("/static/app.js").status_code == 200
            for method, path in [
                ("POST", "/translate"),
                ("GET", "/translatedFile/paper-mono.pdf"),
                ("HEAD", "/translatedFile/paper-mono.pdf"),
                ("GET", "/api/tasks"),
                ("GET", "/api/history"),
                ("GET", "/events"),
            ]:
                response = client.request(method, path, json={})
                assert response.status_code == 401, path
                assert response.headers["www-authenticate"] == "Bearer"
            wrong = client.get("/api/tasks", headers={"Authorization": "Bearer nope"})
            assert_error(wrong, 401, "token")
            ok = client.get("/api/tasks", headers={"Authorization": "Bearer s3cret"})
            assert ok.json() == {"status": "success", "tasks": []}
            # Where a browser cannot set headers (links, EventSource): ?token=
            # The plugin cannot send headers: a server URL http://host:8890/t/<token> works.
            assert client.get("/t/s3cret/api/tasks").json()["status"] == "success"
            assert client.head("/t/s3cret/translatedFile/paper-mono.pdf").status_code == 200
            got = client.get("/translatedFile/paper-mono.pdf", params={"token": "s3cret"})
            assert got.content == b"%PDF mono"
            assert client.get("/t/s3cret//health").json()["status"] == "ok"
            assert_error(client.get("/t/wrong/api/tasks"), 401, "token")
