"""Page previews on the progress page in headless Chromium (issue 24 item 5).

The server has a token (the page is opened at ``/t/<token>/``, as the plugin's address); the
fake vLLM is slowed down so page 1 is seen set while the others wait.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from common.settings import Settings
from tests.helpers.browser import BROWSER_MARKS, browser_fixture, module_browser_fixture
from tests.helpers.pdfgen.textbox import staged_paper
from tests.helpers.server import RunningServer, hangul_count, one_at_a_time

pytestmark = BROWSER_MARKS
__all__ = ["browser_fixture", "module_browser_fixture"]
TOKEN = "page-token"


@pytest.fixture
def srv(settings: Settings, tmp_path: Path) -> Iterator[RunningServer]:
    # 43 requests one at a time: the job runs ~13 s, so the large view is asked for while it
    # still runs, even on a machine busy with other tests.
    with one_at_a_time(settings, tmp_path, TOKEN, "--fake-latency-ms", "300") as (running, _):
        yield running


def test_thumbnails_arrive_in_order_and_the_partial_pdf_opens(
    srv: RunningServer, browser: Any, tmp_path: Path, test_output_dir: Path
) -> None:
    from playwright.sync_api import expect

    upload = tmp_path / "staged.pdf"
    upload.write_bytes(staged_paper(5))
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    page.goto(srv.url + f"/t/{TOKEN}/")
    expect(page.locator("#live")).to_have_text("live")
    page.set_input_files("#file", str(upload))
    page.click("#submit")
    thumbs = page.locator("li.job .pages li")
    expect(thumbs).to_have_count(5, timeout=30_000)
    # Page 1 is set while pages 2 and 3 still wait for the model: placeholders say so.
    expect(thumbs.nth(0).locator("img")).to_be_visible(timeout=30_000)
    expect(thumbs.nth(4)).to_have_text("waiting for the model5")
    # Visible is not loaded: on a busy machine the image's bytes come a moment later.
    page.wait_for_function(
        "document.querySelector('li.job .pages img')?.naturalWidth === 160",
        timeout=30_000,
    )
    page.screenshot(path=str(test_output_dir / "previews-running.png"), full_page=True)

    # "Open what is done": the link the page shows answers a PDF with page 1 translated.
    partial = page.locator("li.job .partial")
    expect(partial).to_be_visible()
    answer = page.request.get(srv.url + (partial.get_attribute("href") or ""))
    assert answer.status == 200
    with pymupdf.open(stream=answer.body(), filetype="pdf") as doc:
        assert hangul_count(doc[0].get_text()) > 50
        assert hangul_count(doc[4].get_text()) == 0

    # A click shows the page large, original and translation side by side (rendered
    # by the job's worker: the job still runs).
    expect(page.locator("li.job .stage")).not_to_have_text("done")
    thumbs.nth(0).click()
    expect(page.locator("#page-view")).to_be_visible()
    page.wait_for_function(
        "document.getElementById('page-translated').naturalWidth === 800"
        " && document.getElementById('page-original').naturalWidth === 800"
    )
    page.screenshot(path=str(test_output_dir / "previews-large.png"))
    page.click("#page-view button")

    expect(page.locator("li.job .stage")).to_have_text("done", timeout=120_000)
    expect(page.locator("li.job .pages img")).to_have_count(5)
    order = page.eval_on_selector_all(
        "li.job .pages li", "items => items.map(i => Number(i.dataset.page))"
    )
    assert order == [1, 2, 3, 4, 5]
    expect(partial).to_be_hidden()

    # A large view asked for just as the job ended (its entry still names it) is never
    # rendered: the page falls back to the kept thumbnail rather than a broken image.
    page.evaluate(
        """() => {
          const [id, pages] = [...state.pages.entries()][0];
          const entry = pages.get(2);
          pages.set(2, {...entry, large: entry.preview.replace("view=thumb", "view=large")});
          showPage(id, 2);
        }"""
    )
    page.wait_for_function("document.getElementById('page-translated').naturalWidth === 160")


def test_twenty_jobs_and_five_hundred_thumbnails_stay_responsive(
    srv: RunningServer, browser: Any
) -> None:
    """The page's own event handlers fed 20 jobs of 25 pages (one real preview URL each):
    every thumbnail is drawn and a click still opens the large view at once."""
    from playwright.sync_api import expect

    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(srv.url + f"/t/{TOKEN}/")
    expect(page.locator("#live")).to_have_text("live")
    page.evaluate(
        """() => {
          for (let j = 0; j < 20; j++) {
            const id = "synthetic" + j;
            onJobEvent({type: "stage", data: JSON.stringify({
              taskId: id, fileName: "paper " + j + ".pdf", stage: "translating",
              stageText: "translating", progress: 50, message: "translating",
              startTime: "2026-01-01T00:00:" + String(j).padStart(2, "0")})});
            const pages = [];
            for (let p = 1; p <= 25; p++) pages.push({page: p, state: "done",
              preview: "/static/style.css?" + j + "-" + p, large: null, original: null});
            mergePages(id, pages);
            renderPages(id);
          }
        }"""
    )
    expect(page.locator("li.job")).to_have_count(20)
    expect(page.locator("li.job .pages li")).to_have_count(500)
    page.locator("li.job .pages li").nth(499).click()
    expect(page.locator("#page-view")).to_be_visible()
    expect(page.locator("#page-view-title")).to_contain_text("page 25")
