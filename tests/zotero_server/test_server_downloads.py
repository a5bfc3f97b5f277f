"""Downloads: delete after the last byte, never after HEAD, a range or an aborted transfer;
files nobody fetches are swept after ZT_OUTPUT_TTL_S."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator

import httpx
import pytest

from common.settings import Settings
from tests.helpers.server import RunningServer, run_app, wait_until
from zotero_server.events import EventType
from zotero_server.file_names import OutputKind

#: Large enough that loopback socket buffers cannot swallow it whole before the client quits.
BIG = 24 * 1024 * 1024


@pytest.fixture
def srv(settings: Settings) -> Iterator[RunningServer]:
    with run_app(settings) as running:
        yield running


def abandon_download(srv: RunningServer, name: str, read: int = 65536) -> bytes:
    """Start a GET, read the first ``read`` bytes, then drop the connection."""
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
        sock.sendall(f"GET /translatedFile/{name} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        got = b""
        while len(got) < read:
            chunk = sock.recv(65536)
            if not chunk:
                raise AssertionError(f"the server closed after {len(got)} bytes: {got[:200]!r}")
            got += chunk
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    return got


def test_head_and_range_requests_never_delete(srv: RunningServer) -> None:
    (name,) = srv.services.outputs.save("p", [(OutputKind.MONO, b"%PDF-" + b"x" * 5000)])
    with srv.client() as client:
        for _ in range(3):
            assert client.head(f"/translatedFile/{name}").status_code == 200
        part = client.get(f"/translatedFile/{name}", headers={"Range": "bytes=0-99"})
        assert part.status_code == 206 and len(part.content) == 100
        preview = client.get(f"/translatedFile/{name}", params={"preview": "true"})
        assert preview.headers["content-disposition"].startswith("inline;")
        assert srv.services.outputs.names() == [name]
        full = client.get(f"/translatedFile/{name}")
        assert full.status_code == 200 and len(full.content) == 5005
        wait_until(lambda: srv.services.outputs.names() == [], what="delete after GET")


def test_a_completed_get_deletes_and_tells_the_page(srv: RunningServer) -> None:
    (name,) = srv.services.outputs.save("p", [(OutputKind.DUAL, b"%PDF-dual")])
    subscription = srv.services.bus.subscribe()
    with srv.client() as client:
        assert client.get(f"/translatedFile/{name}").content == b"%PDF-dual"
        wait_until(lambda: not (srv.services.outputs.directory / name).exists())
        assert client.get(f"/translatedFile/{name}").status_code == 410
    events = [e for e in srv.services.bus._replay if e.type is EventType.FILE_REMOVED]
    assert [e.data for e in events] == [{"name": name}]
    subscription.close()


def test_an_aborted_download_keeps_the_file_for_the_retry(srv: RunningServer) -> None:
    """The plugin retries failed downloads: a GET that did not finish must not delete."""
    data = b"%PDF-" + os.urandom(BIG)
    (name,) = srv.services.outputs.save("big", [(OutputKind.MONO, data)])
    first = abandon_download(srv, name)
    assert first.startswith(b"HTTP/1.1 200")
    wait_until(lambda: srv.services.outputs.active_downloads == 0, what="the server to notice")
    assert srv.services.outputs.names() == [name]
    with srv.client() as client:
        retry = client.get(f"/translatedFile/{name}")
        assert retry.content == data
    wait_until(lambda: srv.services.outputs.names() == [], what="delete after the retry")


def test_the_ttl_sweeper_removes_abandoned_and_unfetched_files(settings: Settings) -> None:
    short = settings.model_copy(update={"output_ttl_s": 1.0})
    with run_app(short) as srv:
        (abandoned,) = srv.services.outputs.save("a", [(OutputKind.MONO, b"%PDF-" + bytes(BIG))])
        (never,) = srv.services.outputs.save("n", [(OutputKind.MONO, b"%PDF-never")])
        abandon_download(srv, abandoned)

        def removed() -> list[str]:
            replay = srv.services.bus._replay
            return sorted(e.data["name"] for e in replay if e.type is EventType.FILE_REMOVED)

        # Each removal is announced after its file is gone: wait for the announcements too.
        wanted = sorted([abandoned, never])
        wait_until(lambda: removed() == wanted, timeout=20, what="the sweeper")
        assert srv.services.outputs.names() == []


def test_a_second_get_right_after_a_complete_one_is_410(srv: RunningServer) -> None:
    """Regression: the deletion runs after the last byte, so an immediate second GET used to
    get the whole file again (2 of 6 tries in QA)."""
    with srv.client() as client:
        for attempt in range(8):
            (name,) = srv.services.outputs.save(
                f"p{attempt}", [(OutputKind.MONO, b"%PDF-" + b"y" * 200_000)]
            )
            assert len(client.get(f"/translatedFile/{name}").content) == 200_005
            again = client.get(f"/translatedFile/{name}")
            assert again.status_code == 410, f"attempt {attempt}"
            told = again.json()
            assert told["status"] == "error" and told["errorType"] == "AlreadyDownloaded"
            assert told["message"].startswith(f"{name} was already downloaded at 20")
        # A name never served stays a plain 404.
        assert client.get("/translatedFile/never-mono.pdf").status_code == 404


def test_an_aborted_download_leaves_the_file_for_the_retry(srv: RunningServer) -> None:
    (name,) = srv.services.outputs.save("q", [(OutputKind.MONO, b"%PDF-" + b"z" * BIG)])
    abandon_download(srv, name)
    with srv.client() as client:
        wait_until(lambda: srv.services.outputs.active_downloads == 0, what="abort noticed")
        retry = client.get(f"/translatedFile/{name}")
        assert retry.status_code == 200 and len(retry.content) == BIG + 5


def test_a_file_in_flight_is_409_for_everyone_else_then_410(srv: RunningServer) -> None:
    """Origin: hardening, issue 12 finding 5 (exactly one download)."""
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
    """Origin: hardening, issue 12 finding 5 (exactly one download)."""
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
    """Origin: hardening, issue 12 finding 5 (exactly one download)."""
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
