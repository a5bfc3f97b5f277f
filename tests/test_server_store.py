"""The output store and upload store on a real directory."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from zotero_server.file_names import OutputKind
from zotero_server.files import (
    OutputStore,
    UploadStore,
    content_disposition,
    sweep_interval,
)
from zotero_server.http_errors import InvalidNameError, NotFoundError, status_for

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
