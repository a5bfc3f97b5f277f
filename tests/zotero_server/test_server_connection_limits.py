"""Connection limits: a half-sent request is cut off; the server keeps serving everyone else.

Security bar: ``test_a_stalled_body_is_cut_off_with_408_and_others_are_served`` and
``test_a_stalled_request_head_is_cut_off`` (item 9, half-sent requests).

uvicorn times out only idle keep-alive connections, so a client that sent a request head and
half its body (or half a head) and then stalled held its connection for ever. The server now
answers a stalled body with 408 and closes the connection, and closes a connection whose head
does not complete, both after ``ZT_REQUEST_READ_TIMEOUT_S`` (1 s here). The socket timeouts
below only bound how long a failing test waits.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import httpx
import pytest

from common.settings import Settings
from tests.helpers.server import RunningServer, run_app

WAIT_S = 15.0  # far above the 1 s limit: only a server that never cuts off reaches it


@pytest.fixture
def srv(settings: Settings) -> Iterator[RunningServer]:
    with run_app(settings.model_copy(update={"request_read_timeout_s": 1.0})) as running:
        yield running


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    sock.settimeout(WAIT_S)
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except TimeoutError:
        raise AssertionError(f"the server kept the stalled connection open ({chunks!r})") from None
    return b"".join(chunks)


def test_a_stalled_body_is_cut_off_with_408_and_others_are_served(srv: RunningServer) -> None:
    """Origin: hardening, issue 20 item 9 (half-sent requests)."""
    head = (
        "POST /translate HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{srv.port}\r\n"
        "Content-Type: application/json\r\n"
        "Content-Length: 4000\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", srv.port)) as stalled:
        stalled.sendall(head.encode() + b'{"fileName": "paper.pdf", "fileContent": "' + b"A" * 1000)
        with httpx.Client(base_url=srv.url, timeout=WAIT_S) as other:
            assert other.get("/health").status_code == 200  # served while the body stalls
        answer = _read_until_closed(stalled)
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line.split()[1] == b"408", answer
    body = json.loads(rest.partition(b"\r\n\r\n")[2])
    assert body["errorType"] == "RequestTimeout" and "ZT_REQUEST_READ_TIMEOUT_S" in body["message"]
    with httpx.Client(base_url=srv.url, timeout=WAIT_S) as after:
        assert after.get("/api/tasks").json()["tasks"] == []  # nothing was queued


@pytest.mark.parametrize(
    "sent", [b"", b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "], ids=["none", "half"]
)
def test_a_stalled_request_head_is_cut_off(srv: RunningServer, sent: bytes) -> None:
    """Origin: hardening, issue 20 item 9 (half-sent requests)."""
    with socket.create_connection(("127.0.0.1", srv.port)) as stalled:
        stalled.sendall(sent)
        with httpx.Client(base_url=srv.url, timeout=WAIT_S) as other:
            assert other.get("/health").status_code == 200
        assert _read_until_closed(stalled) == b""


def test_a_kept_alive_connection_that_stalls_in_its_next_head_is_cut_off(
    srv: RunningServer,
) -> None:
    """Origin: hardening, issue 20 item 9 (half-sent requests)."""
    with socket.create_connection(("127.0.0.1", srv.port)) as conn:
        conn.sendall(f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{srv.port}\r\n\r\n".encode())
        conn.settimeout(WAIT_S)
        first = conn.recv(65536)
        assert first.startswith(b"HTTP/1.1 200"), first
        conn.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and no blank line
        answers = first + _read_until_closed(conn)
    assert answers.count(b"HTTP/1.1 ") == 1, answers  # the first request's answer only


def test_the_gpu_status_api_cuts_off_a_stalled_head_too(settings: Settings) -> None:
    """The GPU status API runs with the same limits (``vllm_manager.gpu_api.gpu_api_config``):
    on a GPU host it faces the LAN, and a half-sent head must not hold a connection for ever.

    Origin: hardening, issue 20 item 9 (half-sent requests)."""
    import threading

    import uvicorn

    from tests.helpers.net import free_port, wait_for_port
    from vllm_manager.gpu_api import create_gpu_app, gpu_api_config

    api_settings = settings.model_copy(update={"request_read_timeout_s": 1.0})
    port = free_port()
    config = gpu_api_config(
        create_gpu_app(api_settings, no_auth=True), api_settings, "127.0.0.1", port,
        log_level="warning",
    )  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"gpu-api-{port}", daemon=True)
    thread.start()
    try:
        wait_for_port(port, timeout=10.0)
        with socket.create_connection(("127.0.0.1", port)) as stalled:
            stalled.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=WAIT_S) as other:
                assert other.get("/healthz").status_code == 200
            assert _read_until_closed(stalled) == b""
    finally:
        server.should_exit = True
        thread.join(timeout=10.0)
