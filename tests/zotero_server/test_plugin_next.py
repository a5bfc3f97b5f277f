"""The zotero-pdf2zh plugin's next release (the branch after 4.1.7, fix/issue-309-safe-attachments)
against the real app and the fake vLLM.

That plugin is AGPL-3.0: its checks are restated here from its behaviour, not copied. It sends
``X-PDF2zh-Plugin-Version`` with ``X-PDF2zh-Protocol: accepted``; polls ``/api/tasks`` (then
``/api/history``) every second; fails a task reported finished whose file list stays empty for
20 s; and refuses a download unless ``%PDF-`` stands in its first 1 KiB and ``%%EOF`` in its last
64 KiB (``validatePDFBytes``), so an error page answered with 200 is never imported.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import PARAGRAPHS, RunningServer, plugin_body
from tests.helpers.server import fake_llm_fixture as fake_llm_fixture
from tests.helpers.server import srv_fixture as srv_fixture

HEADERS = {"X-PDF2zh-Protocol": "accepted", "X-PDF2zh-Plugin-Version": "4.1.8"}


def is_complete_pdf(data: bytes) -> bool:
    """The plugin's rule for a download it will import."""
    return b"%PDF-" in data[:1024] and b"%%EOF" in data[-65536:]


def finished_without_files(task: dict[str, Any]) -> bool:
    """The plugin's "marked finished but no files yet" (it gives up after 20 s of it)."""
    result = task.get("result")
    nested: dict[str, Any] = result if isinstance(result, dict) else {}
    status = str(task.get("status") or nested.get("status") or "")
    completed = task.get("finished") is True or status in ("完成", "success")
    failed = status in ("失败", "failed") or nested.get("status") == "error"
    files = nested.get("fileList", task.get("fileList")) or []
    return completed and not failed and not files


def test_next_plugin_version_files_and_downloads(srv: RunningServer) -> None:
    body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", asyncJob=True)
    with srv.client(headers=HEADERS) as client:
        answer = client.post("/translate", json=body)
        assert answer.status_code == 200 and answer.json()["status"] == "accepted"
        task_id = answer.json()["taskId"]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            tasks = client.get("/api/tasks").json()["tasks"]
            (task,) = [t for t in tasks if t["taskId"] == task_id]
            # Never "finished" before the files are named: the same update says both.
            assert not finished_without_files(task), task
            if task["finished"]:
                break
            time.sleep(0.05)
        assert task["status"] == "完成" and task["fileList"]
        assert task["config"]["pluginVersion"] == "4.1.8"
        for name in task["fileList"]:
            url = "/translatedFile/" + quote(name, safe="")
            assert client.head(url).status_code == 200
            got = client.get(url)
            assert got.status_code == 200 and got.headers["content-type"] == "application/pdf"
            assert is_complete_pdf(got.content), name
            # Fetched once: anything after is a JSON error with an error status, never a 200.
            again = client.get(url)
            assert again.status_code == 410  # gone: already downloaded
            assert again.headers["content-type"].startswith("application/json")
            assert again.json()["status"] == "error"


def test_file_requests_never_answer_200_with_anything_but_a_pdf(srv: RunningServer) -> None:
    with srv.client() as client:
        for url in ("/translatedFile/nothing.pdf", "/translatedFile/..%2Fx.pdf"):
            reply = client.get(url)
            assert reply.status_code >= 400, url
            assert reply.headers["content-type"].startswith("application/json"), url
            assert reply.json()["status"] == "error"
            assert not is_complete_pdf(reply.content)


def test_a_hostile_version_header_is_not_shown(srv: RunningServer) -> None:
    body = plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf", asyncJob=True)
    headers = {**HEADERS, "X-PDF2zh-Plugin-Version": "<img src=x onerror=alert(1)>"}
    with srv.client(headers=headers) as client:
        task_id = client.post("/translate", json=body).json()["taskId"]
        task = client.get(f"/api/tasks/{task_id}").json()["task"]
    assert "pluginVersion" not in task["config"]
