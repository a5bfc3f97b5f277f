"""Issue 20, item 5: every output of an accepted file name can be downloaded by its name.

Security bar: ``test_a_240_byte_korean_name_is_translated_and_every_output_downloads``
(item 5).

A name of up to 240 bytes is accepted, but ``<stem>-crop-compare.pdf`` of a 236-byte stem is
253 bytes: it was written, announced, and then refused by every download as "too long". The
output stem is now shortened (by bytes, on a character boundary, with a short hash), and the
sync answer's ``fileList`` and the task objects announce the shortened names.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

from tests.helpers.server import RunningServer, make_paper, plugin_body

# The fixtures ``fake_llm`` and ``srv`` (pytest finds them by these imports).
from tests.helpers.server import fake_llm_fixture as fake_llm_fixture
from tests.helpers.server import srv_fixture as srv_fixture
from zotero_server.file_names import MAX_NAME_BYTES

#: 78 Hangul syllables and "ab": a 236-byte stem, 240 bytes with ".pdf".
KOREAN_NAME = "".join(chr(0xAC00 + 37 * i) for i in range(78)) + "ab.pdf"
EVERY_OUTPUT = {
    "mono": "true",
    "dual": "true",
    "mono_cut": "true",
    "dual_cut": "true",
    "compare": "true",
    "crop_compare": "true",
}


def _download_all(srv: RunningServer, names: list[str]) -> None:
    assert names
    with srv.client() as client:
        for name in names:
            url = "/translatedFile/" + quote(name, safe="")
            head = client.head(url)
            assert head.status_code == 200, (name, head.status_code)
            got = client.get(url)
            assert got.status_code == 200, (name, got.text[:200])
            assert got.content.startswith(b"%PDF")
            assert len(name.encode()) <= MAX_NAME_BYTES, name


def _wait_task(srv: RunningServer, body: dict[str, Any]) -> dict[str, Any]:
    with srv.client(headers={"X-PDF2zh-Protocol": "accepted"}) as client:
        answer = client.post("/translate", json={**body, "asyncJob": True})
        assert answer.status_code == 200, answer.text
        task_id = answer.json()["taskId"]
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            (task,) = [
                t for t in client.get("/api/tasks").json()["tasks"] if t["taskId"] == task_id
            ]
            if task["finished"]:
                return dict(task)
            time.sleep(0.05)
    raise AssertionError("the task did not finish")


def test_a_240_byte_korean_name_is_translated_and_every_output_downloads(
    srv: RunningServer,
) -> None:
    assert len(KOREAN_NAME.encode()) == 240
    body = plugin_body(make_paper(pages=2), KOREAN_NAME, **EVERY_OUTPUT)
    with srv.client() as client:
        answer = client.post("/translate", json=body)
    assert answer.status_code == 200, answer.text
    names = answer.json()["fileList"]
    assert len(names) == 6
    # Shortened by whole characters: the start of the name is still the user's.
    assert all(name.startswith(KOREAN_NAME[:40]) for name in names)
    _download_all(srv, names)

    task = _wait_task(srv, body)
    assert task["status"] == "完成", task
    assert len(task["fileList"]) == 6
    _download_all(srv, task["fileList"])
