"""Issue 39: the page of a server whose model does not answer, as a newcomer first sees it.

Headless Chromium on a real server with no vLLM at its URL and no manager to start one: the page
warns, naming the URL tried and the two real fixes, and never shows a verdict before the first
status read.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from common.language import LANGUAGES
from common.settings import ManagerKind, Settings
from tests.helpers.browser import BROWSER_MARKS, browser_fixture, module_browser_fixture
from tests.helpers.net import free_port
from tests.helpers.pdfgen.textbox import small_paper
from tests.helpers.server import PARAGRAPHS, RunningServer, plugin_body, run_app

pytestmark = BROWSER_MARKS
__all__ = ["browser_fixture", "module_browser_fixture"]


@pytest.fixture
def srv(settings: Settings) -> Iterator[RunningServer]:
    configured = settings.model_copy(
        update={
            "manager": ManagerKind.NONE,
            "llm_base_url": f"http://127.0.0.1:{free_port()}/v1",
        }
    )
    with run_app(configured) as running:
        yield running


def test_no_model_warns_with_the_url_and_the_real_fixes(srv: RunningServer, browser: Any) -> None:
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1000, "height": 900})
    # What the page says before its first status read: no verdict yet.
    page.route("**/events*", lambda route: route.abort())
    page.goto(srv.url + "/")
    expect(page.locator("#gpu-state")).to_have_text("checking…")
    expect(page.locator("#vllm-advice")).to_be_hidden()
    page.unroute("**/events*")
    page.reload()

    url = srv.services.settings.llm_base_url.removesuffix("/v1")
    advice = page.locator("#vllm-advice")
    expect(advice).to_be_visible(timeout=15_000)
    expect(page.locator("#vllm-advice-title")).to_have_text(
        f"No translation model answers at {url}."
    )
    fixes = advice.locator("li")
    expect(fixes).to_have_count(2)
    expect(fixes.nth(0)).to_contain_text(f"Start vLLM yourself so that it answers at {url}")
    expect(fixes.nth(1)).to_contain_text("set ZT_MANAGER=auto (or local)")
    expect(page.locator("#manager-state")).to_have_text("none (ZT_MANAGER=none)")
    card = page.locator("#server").inner_text()
    assert "ZT_NVIDIA_SMI" not in card and "((" not in card


def test_the_language_boxes_offer_every_language_and_take_names(
    srv: RunningServer, browser: Any
) -> None:
    from playwright.sync_api import expect

    page = browser.new_page()
    page.goto(srv.url + "/")
    options = page.locator("#languages option")
    expect(options).to_have_count(len(LANGUAGES))
    assert page.locator("#target").get_attribute("list") == "languages"
    korean = page.locator('#languages option[value="ko"]')
    assert korean.get_attribute("label") == "Korean (ko)"

    pdf = small_paper(paragraphs=PARAGRAPHS)
    with srv.client() as client:
        named = plugin_body(pdf, "paper.pdf", targetLang="Korean", asyncJob="true")
        assert client.post("/translate", json=named).json()["status"] == "accepted"
        refused = client.post("/translate", json=plugin_body(pdf, "p.pdf", targetLang="Klingon"))
    assert refused.status_code == 400
    message = refused.json()["message"]
    assert "or an English name (Korean)" in message and not message.endswith("...")


def test_a_failed_job_can_be_retried_and_dismissed(
    srv: RunningServer, browser: Any, tmp_path: Path
) -> None:
    """Issue 39: a failed job had no Retry or Dismiss and stayed on the list for ever."""
    from playwright.sync_api import expect

    paper = tmp_path / "paper.pdf"
    paper.write_bytes(small_paper(paragraphs=PARAGRAPHS))
    page = browser.new_page()
    page.goto(srv.url + "/")
    expect(page.locator("#live")).to_have_text("live")
    page.set_input_files("#file", str(paper))
    page.click("#submit")
    job = page.locator("li.job")
    expect(job.locator(".stage")).to_have_text("failed", timeout=20_000)  # no model answers
    first_id = job.get_attribute("data-task-id")
    expect(job.locator(".cancel")).to_be_hidden()
    job.locator(".retry").click()  # the same paper again, as a new job; the failed one goes
    expect(page.locator(f'li.job[data-task-id="{first_id}"]')).to_have_count(0)
    expect(job).to_have_count(1)
    expect(job.locator(".stage")).to_have_text("failed", timeout=20_000)
    assert job.get_attribute("data-task-id") != first_id
    job.locator(".dismiss").click()
    expect(job).to_have_count(0)
    expect(page.locator("#no-jobs")).to_be_visible()
    page.reload()  # the server forgot them too
    expect(page.locator("#live")).to_have_text("live")
    expect(page.locator("li.job")).to_have_count(0)
    with srv.client() as client:
        assert client.get("/api/history").json()["history"] == []
        unknown = client.post(f"/api/tasks/{first_id}/dismiss")
    assert unknown.status_code == 404


def test_pages_without_images_say_so_and_the_viewer_shows_no_broken_image(
    srv: RunningServer, browser: Any
) -> None:
    """Issue 39: a plugin job's pages (set while nobody watched) were blank "done" boxes, and
    after a job ended the viewer showed a broken original image. The page's own handlers are
    fed entries as the server sends them for an ended job."""
    from playwright.sync_api import expect

    page = browser.new_page()
    page.goto(srv.url + "/")
    expect(page.locator("#live")).to_have_text("live")
    page.evaluate(
        """() => {
          onJobEvent({type: "done", data: JSON.stringify({taskId: "ended", fileName: "p.pdf",
            stage: "done", stageText: "done", progress: 100, finished: true, fileList: [],
            startTime: "2026-01-01T00:00:00"})});
          mergePages("ended", [
            {page: 1, state: "done", preview: null, large: null, original: null},
            {page: 2, state: "done", preview: "/static/style.css", large: "/static/style.css",
             original: "/api/tasks/ended/pages/2.png?key=gone&view=original"},
          ]);
          renderPages("ended");
        }"""
    )
    pages = page.locator('li.job[data-task-id="ended"] .pages li')
    expect(pages.nth(0)).to_have_text("done · no preview1")
    pages.nth(0).click(force=True)
    expect(page.locator("#page-view")).to_be_hidden()  # nothing to show: no empty viewer
    pages.nth(1).click()
    expect(page.locator("#page-view")).to_be_visible()
    expect(page.locator("#page-original-note")).to_be_visible()  # the original's 404
    expect(page.locator("#page-original")).to_be_hidden()
