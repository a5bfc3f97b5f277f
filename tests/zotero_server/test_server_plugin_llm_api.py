"""The plugin with an LLM API entry switched on: ``llm_api`` is an object in the body.

zotero-pdf2zh 3.x-4.1.x add ``llm_api: {service, model, apiKey, apiUrl, extraData}`` to every
``POST /translate`` once the user activates an LLM entry (``getActiveLLMApiConfig``). The body is
otherwise flat strings. Our one model serves every request, so the object is accepted, bounded
and dropped: the paper is translated as usual and the API key reaches no log and no file.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import (
    API_KEY,
    LLM_API,
    PARAGRAPHS,
    RunningServer,
    hangul_count,
    pdf_text,
    plugin_body,
)

# The fixtures ``fake_llm`` and ``srv`` (pytest finds them by these imports).
from tests.helpers.server import fake_llm_fixture as fake_llm_fixture
from tests.helpers.server import srv_fixture as srv_fixture


def _files_hold_key(data_dir: Path) -> list[str]:
    return [
        str(path)
        for path in data_dir.rglob("*")
        if path.is_file() and API_KEY.encode() in path.read_bytes()
    ]


def _assert_translated(pdf: bytes) -> None:
    assert pdf.startswith(b"%PDF")
    assert hangul_count(pdf_text(pdf)) > 20


def _sync_head_then_get(srv: RunningServer, body: dict[str, Any]) -> bytes:
    """Plugin 3.x-4.1.2: sync answer, HEAD then GET each listed name as is."""
    with srv.client() as client:
        answer = client.post("/translate", json=body)
        assert answer.status_code == 200, answer.text
        payload = answer.json()
        assert payload["status"] == "success", payload
        name = payload["fileList"][0]
        assert client.head(f"/translatedFile/{name}").status_code == 200
        got = client.get(f"/translatedFile/{name}")
        assert got.status_code == 200
        return got.content


def _sync_encoded_get(srv: RunningServer, body: dict[str, Any]) -> bytes:
    """Plugin 4.1.3/4.1.4: sync answer, GET with ``encodeURIComponent``, no HEAD."""
    with srv.client() as client:
        answer = client.post("/translate", json=body)
        assert answer.status_code == 200, answer.text
        name = answer.json()["fileList"][0]
        got = client.get("/translatedFile/" + quote(name, safe="-_.!~*'()"))
        assert got.status_code == 200
        return got.content


def _async_poll(srv: RunningServer, body: dict[str, Any]) -> bytes:
    """Plugin 4.1.5+: ``asyncJob`` + header, poll ``/api/tasks``, then GET."""
    body = {**body, "asyncJob": True}
    with srv.client(headers={"X-PDF2zh-Protocol": "accepted"}) as client:
        answer = client.post("/translate", json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["status"] == "accepted"
        task_id = answer.json()["taskId"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            tasks = client.get("/api/tasks").json()["tasks"]
            (task,) = [t for t in tasks if t["taskId"] == task_id]
            if task["finished"]:
                break
            time.sleep(0.05)
        assert task["status"] == "完成", task
        assert API_KEY not in str(task)
        got = client.get("/translatedFile/" + quote(task["fileList"][0], safe=""))
        assert got.status_code == 200
        return got.content


@pytest.mark.parametrize(
    "flow", [_sync_head_then_get, _sync_encoded_get, _async_poll], ids=["v3", "v4.1.3", "v4.1.5+"]
)
def test_every_generation_with_an_active_llm_entry_is_translated(
    srv: RunningServer, flow: Any, caplog: pytest.LogCaptureFixture
) -> None:
    body = plugin_body(
        small_paper(paragraphs=PARAGRAPHS), "paper.pdf", dual="false", llm_api=LLM_API
    )
    with caplog.at_level(logging.DEBUG):
        pdf = flow(srv, body)
    _assert_translated(pdf)
    assert not [r for r in caplog.records if API_KEY in r.getMessage()]
    assert _files_hold_key(srv.services.settings.data_dir) == []


def test_an_llm_api_entry_with_no_extra_data_or_empty_values(srv: RunningServer) -> None:
    entry = {"service": "ollama", "model": "", "apiKey": "", "apiUrl": "", "extraData": {}}
    body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", dual="false", llm_api=entry)
    _assert_translated(_sync_head_then_get(srv, body))


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"a": {"b": {"c": {"d": {"e": "deep"}}}}}, "nested more than"),
        ({"extraData": {f"k{i}": str(i) for i in range(300)}}, "more than 200 values"),
        (["service", "model"], "must be an object"),
    ],
    ids=["too-deep", "too-many", "a-list"],
)
def test_an_llm_api_value_out_of_bounds_is_refused_clearly(
    srv: RunningServer, value: Any, message: str
) -> None:
    body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", llm_api=value)
    with srv.client() as client:
        answer = client.post("/translate", json=body)
    assert answer.status_code == 400
    assert answer.json()["status"] == "error"
    assert message in answer.json()["message"]
    assert "llm_api" in answer.json()["message"]


def test_other_nested_fields_are_still_refused(srv: RunningServer) -> None:
    body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", targetLang={"code": "ko"})
    with srv.client() as client:
        answer = client.post("/translate", json=body)
    assert answer.status_code == 400
    assert "'targetLang' must be a string" in answer.json()["message"]
