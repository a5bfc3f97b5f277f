"""The web guard: what a web page in the user's browser, or a hostile client, can make the
server do (requests from other sites, DNS rebinding, binding beyond loopback, headers).

Without a token a cross-site page could queue jobs (a ``text/plain`` form POST), download and so
delete outputs (a navigation) and read the task list through DNS rebinding (any ``Host``). The
plugin sends no ``Origin``/``Sec-Fetch-Site`` and JSON bodies; the progress page sends its own
origin. The server must not bind beyond loopback without a token unless told so.

Security bar: ``test_a_bad_last_event_id_is_ignored_never_a_500`` (issue 20 item 9,
Last-Event-ID) and ``test_a_cross_site_referer_alone_cannot_download_delete_or_submit``
(item 9, Referer). ``str.isdigit`` accepts "²" and "①", and ``int`` refuses them and 5,000
digits: a ``Last-Event-ID`` like that was a 500 with a traceback. A browser without Fetch
Metadata that navigates from another site sends only a ``Referer``: the download went through
(and deleted the file).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from common.settings import Settings
from tests.helpers.net import free_port
from tests.helpers.paths import REPO_ROOT
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import PARAGRAPHS, RunningServer, SSEReader, plugin_body, run_app
from zotero_server.file_names import OutputKind

REPO = REPO_ROOT
EVIL = "https://evil.example"


@pytest.fixture
def srv(settings: Settings) -> Iterator[RunningServer]:
    with run_app(settings) as running:
        yield running


def crop_body() -> dict[str, str]:
    """A complete /crop request (geometry only: no LLM needed)."""
    return plugin_body(small_paper(paragraphs=PARAGRAPHS), "paper.pdf")


def done(response: httpx.Response) -> bool:
    return response.status_code == 200 and response.json()["status"] == "success"


def assert_refused(response: httpx.Response, status: int, error_type: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["status"] == "error" and body["errorType"] == error_type, body
    assert body["message"]


def test_a_cross_site_text_plain_post_queues_nothing(srv: RunningServer) -> None:
    """A form on any web site can POST ``text/plain`` without a CORS preflight.

    Origin: hardening, issue 12 findings 3 and 6 (and the redirect of 7)."""
    with srv.client() as client:
        plain = client.post(
            "/crop",
            content=json.dumps(crop_body()),
            headers={"Content-Type": "text/plain;charset=UTF-8"},
        )
        assert_refused(plain, 415, "UnsupportedMediaType")
        form = client.post("/crop", data={"fileName": "paper.pdf"})
        assert_refused(form, 415, "UnsupportedMediaType")
        for headers in (
            {"Origin": EVIL},
            {"Origin": "null"},
            {"Origin": f"http://127.0.0.1:{srv.port + 1}"},  # another local server's page
            {"Sec-Fetch-Site": "cross-site"},
            {"Sec-Fetch-Site": "same-site"},
        ):
            cross = client.post("/crop", json=crop_body(), headers=headers)
            assert_refused(cross, 403, "CrossSiteRequest")
            assert "another web site" in cross.json()["message"]
    assert srv.services.registry.all_jobs() == []


def test_a_cross_site_navigation_cannot_download(srv: RunningServer) -> None:
    """Origin: hardening, issue 12 findings 3 and 6 (and the redirect of 7)."""
    (name,) = srv.services.outputs.save("p", [(OutputKind.MONO, b"%PDF-mono")])
    with srv.client() as client:
        for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Origin": EVIL}):
            got = client.get(f"/translatedFile/{name}", headers=headers)
            assert_refused(got, 403, "CrossSiteRequest")
        assert srv.services.outputs.names() == [name]
        # Typed into the address bar (none) or fetched by the plugin (no header): fine.
        got = client.get(f"/translatedFile/{name}", headers={"Sec-Fetch-Site": "none"})
        assert got.status_code == 200 and got.content == b"%PDF-mono"


def test_the_page_and_the_plugin_keep_working(srv: RunningServer) -> None:
    """Same-origin POSTs (the progress page) and header-less JSON POSTs (the plugin) go.

    Origin: hardening, issue 12 findings 3 and 6 (and the redirect of 7)."""
    origin = f"http://127.0.0.1:{srv.port}"
    page_headers = {"Origin": origin, "Sec-Fetch-Site": "same-origin"}
    with srv.client() as client:
        page = client.post("/crop", json=crop_body(), headers=page_headers)
        assert done(page), page.text
        plugin = client.post(
            "/crop", json=plugin_body(small_paper(paragraphs=PARAGRAPHS), "other.pdf")
        )
        assert plugin.status_code == 200 and plugin.json()["status"] == "success", plugin.text
        (name,) = plugin.json()["fileList"]
        same_origin = client.get(f"/translatedFile/{name}", headers=page_headers)
        assert same_origin.status_code == 200 and same_origin.content.startswith(b"%PDF")
        typed = client.post(
            "/crop",
            content=json.dumps(crop_body()),
            headers={"Content-Type": "application/json; charset=utf-8"},
        )
        assert done(typed), typed.text


@pytest.mark.parametrize("path", ["/api/tasks", "/health", "/translatedFile/p-mono.pdf"])
def test_dns_rebinding_names_are_refused(srv: RunningServer, path: str) -> None:
    """Origin: hardening, issue 12 findings 3 and 6 (and the redirect of 7)."""
    srv.services.outputs.save("p", [(OutputKind.MONO, b"%PDF-mono")])
    with srv.client() as client:
        rebound = client.get(path, headers={"Host": f"evil.example:{srv.port}"})
        assert_refused(rebound, 400, "HostNotAllowed")
        assert "ZT_ALLOWED_HOSTS" in rebound.json()["message"]
        post = client.post("/crop", json=crop_body(), headers={"Host": "attacker.test"})
        assert_refused(post, 400, "HostNotAllowed")
        for host in ("localhost", f"localhost:{srv.port}", "127.0.0.1", "[::1]:1", "my-pc"):
            assert client.head(path, headers={"Host": host}).status_code in (200, 405), host
    assert srv.services.outputs.names() == ["p-mono.pdf"]


def test_allowed_hosts_are_answered(settings: Settings) -> None:
    """Origin: hardening, issue 12 findings 3 and 6 (and the redirect of 7)."""
    configured = settings.model_copy(update={"allowed_hosts": "zt.example.org, other.lan"})
    with run_app(configured) as srv, srv.client() as client:
        for host in ("zt.example.org", "ZT.example.org:8890", "other.lan"):
            assert client.get("/api/tasks", headers={"Host": host}).status_code == 200, host
        assert client.get("/api/tasks", headers={"Host": "x.example.org"}).status_code == 400
        # A reverse proxy's page: its Origin names an allowed host.
        post = client.post(
            "/crop",
            json=crop_body(),
            headers={"Host": "zt.example.org", "Origin": "https://zt.example.org"},
        )
        assert done(post), post.text


def serve(args: list[str], env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("ZT_")}
    return subprocess.run(
        [sys.executable, "-m", "zotero_server.cli", "serve", *args],
        env={**base, "ZT_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(REPO), **env},
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_no_open_bind_without_a_token(tmp_path: Path) -> None:
    """Origin: hardening, issue 12 findings 3 and 6 (and the redirect of 7)."""
    refused = serve(["--host", "0.0.0.0", "--port", str(free_port())], {}, tmp_path)
    assert refused.returncode == 2, refused.stderr
    assert "ZT_API_TOKEN" in refused.stderr and "ZT_ALLOW_OPEN_BIND" in refused.stderr
    refused = serve(["--port", str(free_port())], {"ZT_HOST": "192.168.1.20"}, tmp_path)
    assert refused.returncode == 2 and "192.168.1.20" in refused.stderr


def test_open_bind_with_a_token_or_when_told(settings: Settings) -> None:
    """Origin: hardening, issue 12 findings 3 and 6 (and the redirect of 7)."""
    from zotero_server.web_guard import check_bind

    check_bind(settings, "127.0.0.1")
    check_bind(settings, "localhost")
    check_bind(settings, "::1")
    check_bind(settings.model_copy(update={"api_token": SecretStr("t")}), "0.0.0.0")
    check_bind(settings.model_copy(update={"allow_open_bind": True}), "0.0.0.0")


def test_a_redirect_keeps_the_token_in_the_path(settings: Settings) -> None:
    """Origin: hardening, issue 12 findings 3 and 6 (and the redirect of 7)."""
    guarded = settings.model_copy(update={"api_token": SecretStr("s3cret")})
    with run_app(guarded) as srv, srv.client() as client:
        moved = client.get("/t/s3cret/api/tasks/")
        assert moved.status_code == 307
        assert httpx.URL(moved.headers["location"]).path == "/t/s3cret/api/tasks"
        followed = client.get("/t/s3cret/api/tasks/", follow_redirects=True)
        assert followed.status_code == 200 and followed.json()["status"] == "success"


BAD_SEQUENCES = ("²", "①", "9" * 5000, "１２", "-1", "1e3")


def _first_event(client: httpx.Client, **kwargs: object) -> dict[str, object]:
    with client.stream("GET", "/events", **kwargs) as response:  # type: ignore[arg-type]
        assert response.status_code == 200, response.read()
        (event,) = SSEReader(response).until(lambda e: e["event"] != "comment")[-1:]
        return event


def test_a_bad_last_event_id_is_ignored_never_a_500(srv: RunningServer) -> None:
    """Origin: hardening, issue 20 item 9 (headers a hostile client sends)."""
    with srv.client() as client:
        boot = str(_first_event(client)["id"]).partition(".")[0]
        for seq in BAD_SEQUENCES:
            value = f"{boot}.{seq}"
            by_query = _first_event(client, params={"lastEventId": value})
            assert by_query["event"] == "snapshot", seq[:10]
            raw = value.encode("latin-1", "replace") if len(value) < 100 else value.encode()
            by_header = _first_event(client, headers={"Last-Event-ID": raw})
            assert by_header["event"] == "snapshot", seq[:10]
        assert client.get("/health").status_code == 200


@pytest.mark.parametrize(
    "referer", ["https://evil.example/page", "http://127.0.0.1:1/x", "not a url", "http://[::1"]
)
def test_a_cross_site_referer_alone_cannot_download_delete_or_submit(
    srv: RunningServer, referer: str
) -> None:
    """Origin: hardening, issue 20 item 9 (headers a hostile client sends)."""
    (name,) = srv.services.outputs.save("paper", [(OutputKind.MONO, b"%PDF-1.7 mono")])
    refused = {"Referer": referer}
    with srv.client() as client:
        for method in ("GET", "HEAD"):
            response = client.request(method, f"/translatedFile/{name}", headers=refused)
            assert response.status_code == 403, (method, response.status_code)
        assert client.get(f"/translatedFile/{name}", headers=refused).json()["errorType"] == (
            "CrossSiteRequest"
        )
        posted = client.post(
            "/crop", json=plugin_body(small_paper(paragraphs=PARAGRAPHS), "p.pdf"), headers=refused
        )
        assert posted.status_code == 403
        assert srv.services.outputs.names() == [name]  # not downloaded, not deleted
        own = {"Referer": f"{srv.url}/"}
        got = client.get(f"/translatedFile/{name}", headers=own)
        assert got.status_code == 200 and got.content == b"%PDF-1.7 mono"
