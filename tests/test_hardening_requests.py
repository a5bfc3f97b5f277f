"""Issue 12, finding 4: bounded work per request and per queue.

Bodies are the plugin's flat object (millions of keys or nesting are refused before parsing),
uploads read at once are bounded (``ZT_MAX_UPLOADS``), jobs waiting are bounded
(``ZT_MAX_QUEUED``), both answered 503 with ``Retry-After``, and a graceful stop leaves no upload
of a job that will never run.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from common.errors import InputError, RequestShapeError
from common.language import Language
from common.settings import Settings
from tests.helpers.server import (
    RunningServer,
    fake_llm_fixture,
    make_paper,
    plugin_body,
    run_app,
    srv_fixture,
    wait_until,
)
from tests.helpers.vllm import FakeVLLMFactory
from zotero_server import file_content
from zotero_server.file_content import decode_file_content
from zotero_server.protocol import Operation, parse_request
from zotero_server.request_body import parse_body

__all__ = ["fake_llm_fixture", "srv_fixture"]


def encoded(body: dict[str, Any]) -> bytes:
    return json.dumps(body).encode()


# --- the body's shape -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {},  # zotero-pdf2zh 4.x: ~40 string settings
        {"asyncJob": True, "clientProtocol": "async"},  # today's plugin: a JSON boolean
        {"fileName": "", "filePath": "C:\\Users\\me\\Zotero\\storage\\AB12\\paper.pdf",
         "skip_last_pages": "0", "threadNum": 4},  # v2.x: snake case, a path, a number
    ],
)  # fmt: skip
def test_every_plugin_generation_body_is_accepted(fields: dict[str, Any]) -> None:
    body = parse_body(encoded(plugin_body(make_paper(), "paper.pdf", **fields)))
    request = parse_request(
        Operation.TRANSLATE,
        body,
        {},
        default_source=Language.parse("en"),
        default_target=Language.parse("ko"),
        max_bytes=10**7,
    )
    assert request.file_name == "paper.pdf" and request.pdf.startswith(b"%PDF")


def test_the_pdf_is_cut_out_of_the_body_and_decoded_in_steps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(file_content, "_CHUNK", 12)  # many steps, padding in the last one
    pdf = make_paper()
    body = parse_body(encoded(plugin_body(pdf, "paper.pdf")))
    assert not isinstance(body["fileContent"], str)  # never parsed as a JSON string
    assert decode_file_content(body["fileContent"], 10**7) == pdf
    # Line breaks arrive JSON-escaped: the JSON parser takes that value, with the same result.
    wrapped = plugin_body(pdf, "paper.pdf")["fileContent"]
    wrapped = "\n".join(wrapped[i : i + 76] for i in range(0, len(wrapped), 76))
    body = parse_body(encoded({"fileName": "paper.pdf", "fileContent": wrapped}))
    assert decode_file_content(body["fileContent"], 10**7) == pdf
    with pytest.raises(InputError, match="not valid base64"):
        decode_file_content(b"QUJD" * 10 + b"!!" + b"QUJD", 10**7)


def test_a_body_of_many_keys_is_refused_before_it_is_parsed() -> None:
    raw = b"{" + b",".join(b'"k%d":"v"' % i for i in range(100_000)) + b"}"
    with pytest.raises(RequestShapeError, match="flat JSON object"):
        parse_body(raw)


@pytest.mark.parametrize(
    "raw",
    [
        b"[" * 100_000 + b"]" * 100_000,
        encoded({"fileName": "paper.pdf", "options": {"mono": "true"}}),
        encoded({"fileName": "paper.pdf", "pages": ["1", "2"]}),
        encoded({f"k{i}": "v" for i in range(500)}),
        b'"just a string"',
    ],
)
def test_anything_but_a_flat_object_is_a_400(raw: bytes) -> None:
    with pytest.raises(InputError):
        parse_body(raw)


def test_the_server_answers_a_body_of_many_keys_with_a_400(srv: RunningServer) -> None:
    raw = b"{" + b",".join(b'"k%d":"v"' % i for i in range(300_000)) + b"}"
    with srv.client() as client:
        answer = client.post(
            "/translate", content=raw, headers={"content-type": "application/json"}
        )
        assert answer.status_code == 400
        assert answer.json()["errorType"] == "BadRequestBody"
        assert client.get("/health").status_code == 200


# --- admission --------------------------------------------------------------------------------


def test_uploads_beyond_max_uploads_get_a_503_with_retry_after(
    settings: Settings, fake_llm: Any
) -> None:
    configured = settings.model_copy(update={"llm_base_url": fake_llm.base_url, "max_uploads": 1})
    with run_app(configured) as srv:
        # One upload that is still arriving holds the only place.
        slow = socket.create_connection(("127.0.0.1", srv.port), timeout=10)
        try:
            slow.sendall(
                b"POST /translate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n"
                b'{"fileName": "slow.pdf", "fileContent": "'
            )
            wait_until(lambda: srv.services.uploading == 1, what="the slow upload to begin")
            with srv.client() as client:
                body = plugin_body(make_paper(), "paper.pdf", asyncJob="true")
                busy = client.post("/translate", json=body)
                assert busy.status_code == 503
                assert busy.json()["errorType"] == "ServerBusy"
                assert int(busy.headers["retry-after"]) > 0
        finally:
            slow.close()
        wait_until(lambda: srv.services.uploading == 0, what="the slow upload to be dropped")
        with srv.client() as client:
            assert client.post("/translate", json=body).status_code == 200


def test_a_full_queue_is_a_503_and_a_stop_keeps_only_the_uploads_of_jobs_to_resume(
    settings: Settings, tmp_path: Path
) -> None:
    with FakeVLLMFactory(tmp_path) as factory:
        slow = factory.start("--fake-latency-ms", "30000")  # every answer takes 30 s
        configured = settings.model_copy(
            update={"llm_base_url": slow.base_url, "max_jobs": 1, "max_queued": 1}
        )
        uploads = configured.data_dir / "uploads"
        with run_app(configured) as srv, srv.client() as client:
            registry = srv.services.registry

            def post(name: str) -> Any:
                body = plugin_body(make_paper(), name, asyncJob="true")
                return client.post("/translate", json=body)

            first = post("running.pdf")
            assert first.status_code == 200
            wait_until(lambda: registry.counts()["running"] == 1, what="the first job to run")
            second = post("queued.pdf")
            assert second.status_code == 200
            assert registry.counts()["queued"] == 1
            full = post("refused.pdf")
            assert full.status_code == 503, full.text
            assert full.json()["errorType"] == "ServerBusy"
            assert "ZT_MAX_QUEUED" in full.json()["message"]
            assert int(full.headers["retry-after"]) > 0
            assert len(list(uploads.iterdir())) == 2  # the refused upload was never kept
        # Graceful stop: both async jobs stay unfinished and run again at the next start, so
        # their uploads stay, and nothing else does.
        kept = sorted(p.name for p in uploads.iterdir())
        assert kept == sorted(f"{r.json()['taskId']}.pdf" for r in (first, second))
