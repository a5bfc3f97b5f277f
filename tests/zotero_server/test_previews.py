"""Page previews over HTTP (issue 24): pages as they are set, the partial PDF, the key and token.

A real server, the real PDF worker and the fake vLLM slowed down, so a job is seen half done:
page 1 holds a few long paragraphs (sent first, longest first) and the other pages many short
ones, so page 1 is typeset seconds before the rest. Where the test looks at the half-done job at
length, the fake holds the other pages' answers until it is done looking.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pymupdf
import pytest

from common.settings import Settings
from tests.helpers.pdfgen.textbox import staged_paper
from tests.helpers.server import (
    RunningServer,
    hangul_count,
    one_at_a_time,
    plugin_body,
    wait_until,
)

TOKEN = "preview-token"


@pytest.fixture
def srv(settings: Settings, tmp_path: Path) -> Iterator[RunningServer]:
    with one_at_a_time(settings, tmp_path, TOKEN, "--fake-latency-ms", "350") as (running, _):
        yield running


@pytest.fixture
def staged_srv(settings: Settings, tmp_path: Path) -> Iterator[tuple[RunningServer, str]]:
    """The server and its fake vLLM's URL; the fake answers the first three paragraphs (page 1
    of :func:`staged_paper`, sent first) and holds the rest until ``POST /fake/release``: the
    job is seen half done however long this machine takes to look at it."""
    with one_at_a_time(settings, tmp_path, TOKEN, "--fake-hold-after", "3") as (running, fake):
        yield running, fake.root_url


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:16]
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def submit(client: httpx.Client, pdf: bytes, name: str) -> str:
    answer = client.post("/translate", json=plugin_body(pdf, name, asyncJob="true"))
    assert answer.status_code == 200, answer.text
    task_id: str = answer.json()["taskId"]
    return task_id


def pages_of(client: httpx.Client, task_id: str) -> dict[str, Any]:
    answer = client.get(f"/api/tasks/{task_id}/pages")
    assert answer.status_code == 200, answer.text
    body: dict[str, Any] = answer.json()
    return body


def test_pages_arrive_as_they_are_set_and_the_partial_pdf_has_them(
    staged_srv: tuple[RunningServer, str],
) -> None:
    srv, fake_url = staged_srv
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with srv.client(headers=auth) as client:
        task = submit(client, staged_paper(), "staged.pdf")
        seen: dict[str, Any] = {}

        def first_page_done() -> bool:
            seen.update(pages_of(client, task))
            return any(p["state"] == "done" for p in seen["pages"])

        wait_until(first_page_done, 60, "page 1 typeset")
        states = {p["page"]: p["state"] for p in seen["pages"]}
        assert states[1] == "done"
        assert states[3] in ("waiting", "typesetting"), states  # the short pages come last
        assert [p["page"] for p in seen["pages"]] == [1, 2, 3]
        one = seen["pages"][0]
        waiting = seen["pages"][2]
        assert waiting["preview"] is None and waiting["large"] is None

        thumb = client.get(one["preview"])
        assert thumb.status_code == 200 and thumb.headers["content-type"] == "image/png"
        assert png_size(thumb.content)[0] == 160
        large = client.get(one["large"])
        assert png_size(large.content)[0] == 800
        original = client.get(one["original"])
        assert png_size(original.content)[0] == 800
        assert original.content != large.content
        not_yet = client.get(one["preview"].replace("/pages/1.png", "/pages/3.png"))
        assert not_yet.status_code == 409, not_yet.text
        assert "not typeset yet" in not_yet.json()["message"]

        # Open what is done: page 1 translated, the others still English, at this moment.
        so_far = client.get(seen["partial"])
        assert so_far.status_code == 200, so_far.text
        assert so_far.headers["content-type"] == "application/pdf"
        with pymupdf.open(stream=so_far.content, filetype="pdf") as doc:
            assert doc.page_count == 3
            assert hangul_count(doc[0].get_text()) > 50
            assert "Results for setting 2.10" in doc[2].get_text()
        assert srv.services.outputs.names() == []  # a preview is no download

        httpx.post(f"{fake_url}/fake/release", timeout=10).raise_for_status()
        wait_until(lambda: client.get(f"/api/tasks/{task}").json()["task"]["stage"] == "done")
        after = pages_of(client, task)
        assert after["partial"] is None
        assert [p["state"] for p in after["pages"]] == ["done"] * 3
        assert client.get(f"/api/tasks/{task}/partial.pdf").status_code == 409
        # Kept thumbnails still answer once the job ended.
        assert client.get(after["pages"][0]["preview"]).content == thumb.content

        # The plugin's flow is unchanged: one GET takes the file, and the previews go with
        # the last of the job's files.
        files = client.get(f"/api/tasks/{task}").json()["task"]["fileList"]
        for name in files:
            assert client.get(f"/translatedFile/{name}").status_code == 200
        # The delete runs after the last byte is sent, and the previews go with it.
        preview = after["pages"][0]["preview"]
        wait_until(lambda: client.get(preview).status_code == 404, what="the previews to go")


def test_previews_need_the_token_and_the_jobs_own_key(srv: RunningServer) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with srv.client(headers=auth) as client, srv.client() as stranger:
        first = submit(client, staged_paper(2), "one.pdf")
        second = submit(client, staged_paper(2), "two.pdf")

        def previewed(task: str) -> bool:
            return any(p["preview"] for p in pages_of(client, task)["pages"])

        # Both polled from the start: a job nobody watches gets no thumbnails with its pages.
        wait_until(lambda: all([previewed(first), previewed(second)]), 60, "a preview of each")
        url_one = pages_of(client, first)["pages"][0]["preview"]
        url_two = pages_of(client, second)["pages"][0]["preview"]
        assert client.get(url_one).status_code == 200

        # No token: nothing, not even the listing or the partial PDF.
        assert stranger.get(url_one).status_code == 401
        assert stranger.get(f"/api/tasks/{first}/pages").status_code == 401
        assert stranger.get(f"/api/tasks/{first}/partial.pdf").status_code == 401
        # The token and the other job's key: 404, as for a page that does not exist.
        key_two = url_two.split("key=")[1].split("&")[0]
        key_one = url_one.split("key=")[1].split("&")[0]
        assert key_one != key_two
        forged = url_one.replace(key_one, key_two)
        answer = client.get(forged)
        assert answer.status_code == 404 and answer.json()["errorType"] == "NotFound"
        assert client.get(url_one.replace(key_one, "")).status_code == 404
        assert client.get(f"/api/tasks/{first}/pages/99.png?key={key_one}").status_code == 404
        assert client.get("/api/tasks/nope/pages").status_code == 404
        # A token in the query works where a browser cannot set headers (img src).
        assert stranger.get(url_one + f"&token={TOKEN}").status_code == 200


def test_no_thumbnail_is_rendered_while_nobody_watches(srv: RunningServer) -> None:
    """Nobody subscribed, nobody polled: the pages are set without thumbnails; the first ask
    while the job runs renders one from the typeset page."""
    auth = {"Authorization": f"Bearer {TOKEN}"}
    with srv.client(headers=auth) as client:
        task = submit(client, staged_paper(), "quiet.pdf")
        board = srv.services.previews
        assert board is not None

        def typeset_one() -> bool:
            previews = board.get(task)
            return previews is not None and any(s.value == "done" for s in previews.states.values())

        wait_until(typeset_one, 60, "page 1 typeset")
        previews = board.get(task)
        assert previews is not None and previews.thumbs == {}
        listing = pages_of(client, task)["pages"]  # from now on the job is watched
        thumb = client.get(listing[0]["preview"])
        assert thumb.status_code == 200 and png_size(thumb.content)[0] == 160
        wait_until(lambda: client.get(f"/api/tasks/{task}").json()["task"]["stage"] == "done")
        assert sorted(previews.thumbs) == [0, 1, 2]  # watched: the rest came with their pages


def test_a_job_nobody_watched_shows_its_thumbnails_after_it_ended(srv: RunningServer) -> None:
    """Issue 39: a plugin's job (nobody watched it run) showed blank "done" boxes once it had
    ended. The first thumbnail asked for draws them all from the translated file, which is
    what each one shows; once the files are downloaded there is nothing left to draw."""
    from translation.render.preview import THUMB_WIDTH, page_png

    auth = {"Authorization": f"Bearer {TOKEN}"}
    with srv.client(headers=auth) as client:
        task = submit(client, staged_paper(), "unwatched.pdf")
        wait_until(lambda: client.get(f"/api/tasks/{task}").json()["task"]["stage"] == "done", 120)
        previews = srv.services.previews.get(task) if srv.services.previews else None
        assert previews is not None and previews.thumbs == {}  # none made while it ran
        listing = pages_of(client, task)["pages"]
        assert [entry["state"] for entry in listing] == ["done"] * 3
        assert all(entry["preview"] for entry in listing)
        thumbs = [client.get(entry["preview"]) for entry in listing]
        assert [t.status_code for t in thumbs] == [200] * 3
        assert all(png_size(t.content)[0] == THUMB_WIDTH for t in thumbs)
        files = client.get(f"/api/tasks/{task}").json()["task"]["fileList"]
        mono_name = next(name for name in files if name.endswith("-mono.pdf"))
        mono = client.get(f"/translatedFile/{mono_name}").content
        with pymupdf.open(stream=mono, filetype="pdf") as doc:
            for number, thumb in enumerate(thumbs):
                assert thumb.content == page_png(doc[number], THUMB_WIDTH, colour_managed=False)
        for name in files:
            if name != mono_name:
                client.get(f"/translatedFile/{name}")
        # The files are gone: the job's previews went with them. A download's file goes once
        # its last byte is out, after the response (``files.DownloadResponse``): a moment later.
        wait_until(lambda: pages_of(client, task)["pages"] == [], 10, "the previews gone")
        assert client.get(listing[0]["preview"]).status_code == 404
