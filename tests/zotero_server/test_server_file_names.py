"""Output file names: every output of an accepted file name can be downloaded by its name,
and every name fits a file system's 255 bytes.

Security bar: ``test_a_240_byte_korean_name_is_translated_and_every_output_downloads``
(item 5).

A name of up to 240 bytes is accepted, but ``<stem>-crop-compare.pdf`` of a 236-byte stem is
253 bytes: it was written, announced, and then refused by every download as "too long". The
output stem is now shortened (by bytes, on a character boundary, with a short hash), and the
sync answer's ``fileList`` and the task objects announce the shortened names.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import PARAGRAPHS, RunningServer, plugin_body

# The fixtures ``fake_llm`` and ``srv`` (pytest finds them by these imports).
from tests.helpers.server import fake_llm_fixture as fake_llm_fixture
from tests.helpers.server import srv_fixture as srv_fixture
from zotero_server.file_names import MAX_NAME_BYTES, OutputKind
from zotero_server.files import MAX_FILE_NAME_BYTES, OutputStore

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
    """Origin: hardening, issue 20 item 5 (long file names)."""
    assert len(KOREAN_NAME.encode()) == 240
    body = plugin_body(small_paper(pages=2, paragraphs=PARAGRAPHS), KOREAN_NAME, **EVERY_OUTPUT)
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


@pytest.mark.parametrize("stem", ["n" * 236, "論文" * 39 + "x", "é" * 118])
def test_every_output_name_fits_255_bytes(tmp_path: Path, stem: str) -> None:
    """A 236-byte stem made the second ``-single-compare.pdf`` 257 bytes long: ENAMETOOLONG
    after the translation was paid for.

    Origin: hardening, issue 12 finding 7 (files and disk)."""
    store = OutputStore(tmp_path / "out", 60.0)
    store.prepare()
    kinds = [OutputKind.COMPARE, OutputKind.SINGLE_COMPARE, OutputKind.CROP_COMPARE]
    saved = [
        name
        for _ in range(12)  # -2 ... -12: the suffix grows a digit
        for name in store.save(stem, [(kind, b"%PDF-") for kind in kinds])
    ]
    assert len(set(saved)) == 36
    assert all(len(name.encode()) <= MAX_FILE_NAME_BYTES for name in saved)
    assert sorted(saved) == sorted(store.names())
    assert saved[0].startswith(stem[:50]) and saved[-1].endswith("-12-crop-compare.pdf")
