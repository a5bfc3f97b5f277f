"""Issue 20, item 9: headers a hostile client or page can send.

Security bar: ``test_a_bad_last_event_id_is_ignored_never_a_500`` (item 9, Last-Event-ID) and
``test_a_cross_site_referer_alone_cannot_download_delete_or_submit`` (item 9, Referer).

``str.isdigit`` accepts "²" and "①", and ``int`` refuses them and 5,000 digits: a
``Last-Event-ID`` like that was a 500 with a traceback. A browser without Fetch Metadata that
navigates from another site sends only a ``Referer``: the download went through (and deleted
the file).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from common.settings import Settings
from tests.helpers.server import RunningServer, SSEReader, make_paper, plugin_body, run_app
from zotero_server.file_names import OutputKind

BAD_SEQUENCES = ("²", "①", "9" * 5000, "１２", "-1", "1e3")


@pytest.fixture
def srv(settings: Settings) -> Iterator[RunningServer]:
    with run_app(settings) as running:
        yield running


def _first_event(client: httpx.Client, **kwargs: object) -> dict[str, object]:
    with client.stream("GET", "/events", **kwargs) as response:  # type: ignore[arg-type]
        assert response.status_code == 200, response.read()
        (event,) = SSEReader(response).until(lambda e: e["event"] != "comment")[-1:]
        return event


def test_a_bad_last_event_id_is_ignored_never_a_500(srv: RunningServer) -> None:
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
    (name,) = srv.services.outputs.save("paper", [(OutputKind.MONO, b"%PDF-1.7 mono")])
    refused = {"Referer": referer}
    with srv.client() as client:
        for method in ("GET", "HEAD"):
            response = client.request(method, f"/translatedFile/{name}", headers=refused)
            assert response.status_code == 403, (method, response.status_code)
        assert client.get(f"/translatedFile/{name}", headers=refused).json()["errorType"] == (
            "CrossSiteRequest"
        )
        posted = client.post("/crop", json=plugin_body(make_paper(), "p.pdf"), headers=refused)
        assert posted.status_code == 403
        assert srv.services.outputs.names() == [name]  # not downloaded, not deleted
        own = {"Referer": f"{srv.url}/"}
        got = client.get(f"/translatedFile/{name}", headers=own)
        assert got.status_code == 200 and got.content == b"%PDF-1.7 mono"
