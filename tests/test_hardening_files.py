"""Issue 12, findings 5 and 7: exactly one download; files and disk.

Full disks are real here: the file a store is about to write is made a symlink to ``/dev/full``,
whose writes fail with ENOSPC in the kernel. The only thing the tests reach into is the name of
that file (the job id or the ``.part`` name, from ``uuid4``), so they know where to put the link.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from common.settings import Settings
from tests.helpers.server import RunningServer, make_paper, plugin_body, run_app
from zotero_server import files, job
from zotero_server.file_names import OutputKind
from zotero_server.files import MAX_FILE_NAME_BYTES, OutputStore, UploadStore
from zotero_server.http_errors import DiskFullError

BIG = 24 * 1024 * 1024  # more than loopback buffers hold: a GET of it stays in flight

needs_dev_full = pytest.mark.skipif(
    not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)"
)


@pytest.fixture
def srv(settings: Settings) -> Iterator[RunningServer]:
    with run_app(settings) as running:
        yield running


# --- exactly one download ------------------------------------------------------------------


def test_a_file_in_flight_is_409_for_everyone_else_then_410(srv: RunningServer) -> None:
    (name,) = srv.services.outputs.save("big", [(OutputKind.MONO, b"%PDF-" + bytes(BIG))])
    url = f"/translatedFile/{name}"
    with srv.client() as first, first.stream("GET", url) as sending:
        assert sending.status_code == 200
        chunks = sending.iter_bytes()
        received = len(next(chunks))
        with srv.client() as others:
            for method in ("GET", "GET", "HEAD"):
                busy = others.request(method, url)
                assert busy.status_code == 409, (method, busy.status_code)
            assert others.get(url).json()["errorType"] == "DownloadInProgress"
        received += sum(len(chunk) for chunk in chunks)
    assert received == BIG + 5
    with srv.client() as client:
        assert client.get(url).status_code == 410


def test_fifty_overlapping_gets_deliver_the_file_once(srv: RunningServer) -> None:
    (name,) = srv.services.outputs.save("p", [(OutputKind.MONO, b"%PDF-" + bytes(BIG // 4))])
    start = threading.Barrier(50)
    statuses: list[int] = []
    complete: list[bool] = []

    def fetch() -> None:
        with httpx.Client(base_url=srv.url, timeout=60) as client:
            start.wait()
            got = client.get(f"/translatedFile/{name}")
        statuses.append(got.status_code)
        complete.append(got.status_code == 200 and len(got.content) == BIG // 4 + 5)

    threads = [threading.Thread(target=fetch) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert statuses.count(200) == 1 and complete.count(True) == 1, sorted(statuses)
    assert set(statuses) <= {200, 409, 410}


def test_head_range_and_preview_never_claim_or_delete(srv: RunningServer) -> None:
    (name,) = srv.services.outputs.save("p", [(OutputKind.MONO, b"%PDF-" + b"x" * 5000)])
    url = f"/translatedFile/{name}"
    with srv.client() as client:
        for _ in range(2):
            assert client.head(url).status_code == 200
            whole_range = client.get(url, headers={"Range": "bytes=0-"})
            assert whole_range.status_code == 206 and len(whole_range.content) == 5005
            preview = client.get(url, params={"preview": "true"})
            assert preview.status_code == 200 and len(preview.content) == 5005
        assert srv.services.outputs.names() == [name]
        assert client.get(url).status_code == 200
        assert client.get(url).status_code == 410


# --- a full disk ---------------------------------------------------------------------------


def fixed_uuids(*hexes: str) -> SimpleNamespace:
    """A stand-in for a module's ``uuid``: ``uuid4()`` gives these ids in turn."""
    ids = iter(hexes)
    return SimpleNamespace(uuid4=lambda: uuid.UUID(hex=next(ids)))


def assert_disk_full(response: httpx.Response) -> None:
    assert response.status_code == 507, response.text
    body = response.json()
    assert body["errorType"] == "DiskFull" and "disk full in ZT_DATA_DIR" in body["message"]


@needs_dev_full
def test_a_full_disk_during_the_upload_is_507_and_leaves_nothing(
    srv: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    job_id = uuid.uuid4().hex
    monkeypatch.setattr(job, "uuid", fixed_uuids(job_id))
    uploads = srv.services.settings.data_dir / "uploads"
    (uploads / f"{job_id}.pdf").symlink_to("/dev/full")
    with srv.client() as client:
        assert_disk_full(client.post("/crop", json=plugin_body(make_paper(), "paper.pdf")))
    assert list(uploads.iterdir()) == []


@needs_dev_full
def test_a_full_disk_while_writing_outputs_is_507_and_leaves_nothing(
    srv: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    part = uuid.uuid4().hex
    monkeypatch.setattr(files, "uuid", fixed_uuids(part))
    outputs = srv.services.outputs.directory
    (outputs / f".{part}.part").symlink_to("/dev/full")
    with srv.client() as client:
        answer = client.post("/crop", json=plugin_body(make_paper(), "paper.pdf"))
    assert_disk_full(answer)
    assert list(outputs.iterdir()) == []
    assert list((srv.services.settings.data_dir / "uploads").iterdir()) == []


@needs_dev_full
def test_a_job_stores_all_its_outputs_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = OutputStore(tmp_path / "out", 60.0)
    store.prepare()
    first, second = uuid.uuid4().hex, uuid.uuid4().hex
    monkeypatch.setattr(files, "uuid", fixed_uuids(first, second))
    (store.directory / f".{second}.part").symlink_to("/dev/full")
    with pytest.raises(DiskFullError, match="disk full in ZT_DATA_DIR"):
        store.save("paper", [(OutputKind.MONO, b"%PDF-mono"), (OutputKind.DUAL, b"%PDF-dual")])
    assert list(store.directory.iterdir()) == []


@needs_dev_full
def test_an_upload_that_does_not_fit_leaves_no_empty_file(tmp_path: Path) -> None:
    uploads = UploadStore(tmp_path / "uploads")
    uploads.prepare()
    job_id = uuid.uuid4().hex
    (uploads._dir / f"{job_id}.pdf").symlink_to("/dev/full")
    with pytest.raises(DiskFullError):
        uploads.save(job_id, b"%PDF-" + bytes(100_000))
    assert uploads.names() == []


# --- the sweeper ---------------------------------------------------------------------------


def test_the_sweeper_skips_bad_entries_and_sweeps_stale_parts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = OutputStore(tmp_path / "out", 60.0)
    store.prepare()
    directory = store.directory
    (directory / "x.pdf").mkdir()
    (directory / "x.pdf" / "inside").write_bytes(b"kept")
    old = [store.save(f"old{i}", [(OutputKind.MONO, b"%PDF-")])[0] for i in range(5)]
    (directory / ".stale.part").write_bytes(b"half")
    (directory / ".writing.part").write_bytes(b"half")  # being written now: kept
    past = time.time() - 3600
    for name in [*old, "x.pdf", ".stale.part"]:
        os.utime(directory / name, (past, past))
    with caplog.at_level(logging.WARNING, logger="zotero_server.files"):
        assert sorted(store.sweep()) == sorted(old)
        assert store.sweep() == []
    assert sorted(p.name for p in directory.iterdir()) == [".writing.part", "x.pdf"]
    warnings = [r.getMessage() for r in caplog.records if "x.pdf" in r.getMessage()]
    assert len(warnings) == 1 and "not a regular file" in warnings[0]  # once, not every sweep


# --- names and units -----------------------------------------------------------------------


@pytest.mark.parametrize("stem", ["n" * 236, "論文" * 39 + "x", "é" * 118])
def test_every_output_name_fits_255_bytes(tmp_path: Path, stem: str) -> None:
    """A 236-byte stem made the second ``-single-compare.pdf`` 257 bytes long: ENAMETOOLONG
    after the translation was paid for."""
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


def test_the_upload_limit_is_reported_in_mib(settings: Settings) -> None:
    """ZT_MAX_UPLOAD_MB is enforced in MiB (1,048,576 bytes): the message says so too."""
    limited = settings.model_copy(update={"max_upload_mb": 1.0})
    big = make_paper() + b"%" + b"x" * 1_100_000  # 1.05 MiB: over, however it is counted
    with run_app(limited) as srv, srv.client() as client:
        answer = client.post("/crop", json=plugin_body(big, "big.pdf"))
    assert answer.status_code == 413
    message = answer.json()["message"]
    assert "1.0 MiB" in message and "ZT_MAX_UPLOAD_MB" in message, message
    assert limited.upload_limit_bytes == 1_048_576
