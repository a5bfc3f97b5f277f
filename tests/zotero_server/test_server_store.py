"""The output store and upload store on a real directory, and on a full disk.

Full disks are real here: the file a store is about to write is made a symlink to ``/dev/full``,
whose writes fail with ENOSPC in the kernel. The only thing the tests reach into is the name of
that file (the job id or the ``.part`` name, from ``uuid4``), so they know where to put the link.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from common.settings import Settings
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import PARAGRAPHS, RunningServer, plugin_body, run_app
from zotero_server import files, job
from zotero_server.file_names import OutputKind
from zotero_server.files import (
    OutputStore,
    UploadStore,
    content_disposition,
    sweep_interval,
)
from zotero_server.http_errors import DiskFullError, InvalidNameError, NotFoundError, status_for

MONO_DUAL = [(OutputKind.MONO, b"%PDF mono"), (OutputKind.DUAL, b"%PDF dual")]


@pytest.fixture
def store(tmp_path: Path) -> OutputStore:
    s = OutputStore(tmp_path / "outputs", ttl_s=60.0)
    s.prepare()
    return s


def test_outputs_are_named_like_pdf2zh(store: OutputStore) -> None:
    names = store.save("paper", MONO_DUAL)
    assert names == ["paper-mono.pdf", "paper-dual.pdf"]
    assert (store.directory / "paper-mono.pdf").read_bytes() == b"%PDF mono"


def test_same_stem_twice_never_overwrites(store: OutputStore) -> None:
    first = store.save("paper", MONO_DUAL)
    second = store.save("paper", [(OutputKind.MONO, b"other"), (OutputKind.DUAL, b"other d")])
    third = store.save("paper", [(OutputKind.DUAL, b"third")])
    assert second == ["paper-2-mono.pdf", "paper-2-dual.pdf"]
    assert third == ["paper-3-dual.pdf"]  # one job's files always share one stem
    assert (store.directory / first[0]).read_bytes() == b"%PDF mono"
    # Once downloaded (deleted), the plain name is free again.
    store.delete_when_idle("paper-mono.pdf")
    store.delete_when_idle("paper-dual.pdf")
    assert store.save("paper", MONO_DUAL) == ["paper-mono.pdf", "paper-dual.pdf"]


def test_resolve_accepts_bare_names_and_double_encoding(store: OutputStore) -> None:
    store.save("论文 1", MONO_DUAL)
    name, path = store.resolve("论文 1-mono.pdf")
    assert name == "论文 1-mono.pdf" and path.parent == store.directory
    # A client that encoded twice: one decoding is left for us.
    assert store.resolve("%E8%AE%BA%E6%96%87%201-mono.pdf")[0] == "论文 1-mono.pdf"


@pytest.mark.parametrize(
    "raw",
    [
        "../outputs/paper-mono.pdf",
        "/etc/passwd",
        "a\\b.pdf",
        "..",
        ".",
        "",
        "x\x00.pdf",
        "..%2Fsecret.pdf",
    ],
)
def test_resolve_refuses_anything_but_a_bare_name(store: OutputStore, raw: str) -> None:
    store.save("paper", MONO_DUAL)
    with pytest.raises(InvalidNameError) as info:
        store.resolve(raw)
    assert status_for(info.value) == 400


def test_resolve_unknown_names_and_non_files_are_404(store: OutputStore, tmp_path: Path) -> None:
    secret = tmp_path / "secret.pdf"
    secret.write_bytes(b"do not serve")
    os.symlink(secret, store.directory / "link.pdf")
    (store.directory / "dir.pdf").mkdir()
    for raw in ["nothing.pdf", "link.pdf", "dir.pdf", "%2e%2e%2fsecret.pdf", "x%2F..%2Fsecret.pdf"]:
        with pytest.raises(NotFoundError) as info:
            store.resolve(raw)
        assert status_for(info.value) == 404


def test_sweep_deletes_only_expired_files_not_in_download(store: OutputStore) -> None:
    old, fresh, busy = (
        store.save("old", MONO_DUAL[:1]),
        store.save("fresh", MONO_DUAL[:1]),
        store.save("busy", MONO_DUAL[:1]),
    )
    past = time.time() - 3600
    for name in old + busy:
        os.utime(store.directory / name, (past, past))
    store.download_started(busy[0])
    assert store.sweep() == old
    assert store.names() == sorted(busy + fresh, key=lambda n: n != busy[0])
    store.download_ended(busy[0])
    assert store.active_downloads == 0
    assert store.sweep() == busy


def test_delete_waits_for_downloads_in_flight(tmp_path: Path) -> None:
    removed: list[str] = []
    store = OutputStore(tmp_path / "out", 60.0, removed.append)
    store.prepare()
    (name,) = store.save("p", MONO_DUAL[:1])
    store.download_started(name)  # e.g. a HEAD or a second GET still sending
    store.delete_when_idle(name)
    assert store.names() == [name] and removed == []
    store.download_ended(name)
    assert store.names() == [] and removed == [name]
    store.delete_when_idle(name)  # already gone: nothing happens
    assert removed == [name]


def test_prepare_removes_half_written_files(tmp_path: Path) -> None:
    directory = tmp_path / "out"
    directory.mkdir()
    (directory / ".abc.part").write_bytes(b"half")
    (directory / "kept-mono.pdf").write_bytes(b"whole")
    store = OutputStore(directory, 60.0)
    store.prepare()
    assert sorted(p.name for p in directory.iterdir()) == ["kept-mono.pdf"]


def test_uploads_live_until_discarded(tmp_path: Path) -> None:
    uploads = UploadStore(tmp_path / "uploads")
    uploads.prepare()
    uploads.save("abc123", b"%PDF")
    assert uploads.load("abc123") == b"%PDF"
    assert uploads.names() == ["abc123.pdf"]
    uploads.discard("abc123")
    assert uploads.names() == []
    with pytest.raises(ValueError):
        uploads.save("../x", b"")
    uploads.save("leftover", b"%PDF")
    uploads.prepare()  # a restart forgets a previous run's uploads
    assert uploads.names() == []


def test_content_disposition_has_ascii_fallback_and_utf8_name() -> None:
    assert content_disposition("论文 a.pdf", inline=False) == (
        "attachment; filename=\"__ a.pdf\"; filename*=UTF-8''%E8%AE%BA%E6%96%87%20a.pdf"
    )
    assert content_disposition('a"b.pdf', inline=True).startswith('inline; filename="a_b.pdf"')


def test_sweep_interval_is_bounded() -> None:
    assert sweep_interval(86400) == 60.0
    assert sweep_interval(1.0) == 0.25
    assert sweep_interval(0.001) == 0.05


needs_dev_full = pytest.mark.skipif(
    not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)"
)


@pytest.fixture
def srv(settings: Settings) -> Iterator[RunningServer]:
    with run_app(settings) as running:
        yield running


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
    """Origin: hardening, issue 12 finding 7 (a full disk)."""
    job_id = uuid.uuid4().hex
    monkeypatch.setattr(job, "uuid", fixed_uuids(job_id))
    uploads = srv.services.settings.data_dir / "uploads"
    (uploads / f"{job_id}.pdf").symlink_to("/dev/full")
    with srv.client() as client:
        assert_disk_full(
            client.post("/crop", json=plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf"))
        )
    assert list(uploads.iterdir()) == []


@needs_dev_full
def test_a_full_disk_while_writing_outputs_is_507_and_leaves_nothing(
    srv: RunningServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Origin: hardening, issue 12 finding 7 (a full disk)."""
    part = uuid.uuid4().hex
    monkeypatch.setattr(files, "uuid", fixed_uuids(part))
    outputs = srv.services.outputs.directory
    (outputs / f".{part}.part").symlink_to("/dev/full")
    with srv.client() as client:
        answer = client.post(
            "/crop", json=plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf")
        )
    assert_disk_full(answer)
    assert list(outputs.iterdir()) == []
    assert list((srv.services.settings.data_dir / "uploads").iterdir()) == []


@needs_dev_full
def test_a_job_stores_all_its_outputs_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Origin: hardening, issue 12 finding 7 (a full disk)."""
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
    """Origin: hardening, issue 12 finding 7 (a full disk)."""
    uploads = UploadStore(tmp_path / "uploads")
    uploads.prepare()
    job_id = uuid.uuid4().hex
    (uploads._dir / f"{job_id}.pdf").symlink_to("/dev/full")
    with pytest.raises(DiskFullError):
        uploads.save(job_id, b"%PDF-" + bytes(100_000))
    assert uploads.names() == []


def test_the_sweeper_skips_bad_entries_and_sweeps_stale_parts(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Origin: hardening, issue 12 finding 7 (a full disk)."""
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


def test_the_upload_limit_is_reported_in_mib(settings: Settings) -> None:
    """ZT_MAX_UPLOAD_MB is enforced in MiB (1,048,576 bytes): the message says so too.

    Origin: hardening, issue 12 finding 7 (a full disk)."""
    limited = settings.model_copy(update={"max_upload_mb": 1.0})
    big = (
        small_paper(paragraphs=PARAGRAPHS) + b"%" + b"x" * 1_100_000
    )  # 1.05 MiB: over, however it is counted
    with run_app(limited) as srv, srv.client() as client:
        answer = client.post("/crop", json=plugin_body(big, "big.pdf"))
    assert answer.status_code == 413
    message = answer.json()["message"]
    assert "1.0 MiB" in message and "ZT_MAX_UPLOAD_MB" in message, message
    assert limited.upload_limit_bytes == 1_048_576
