"""The progress page in headless Chromium: upload a paper, watch the bar reach 100 %, download.

Screenshots go to test-output/ (desktop and phone widths).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import SecretStr

from common.settings import Settings
from tests.helpers.browser import BROWSER_MARKS, browser_fixture, module_browser_fixture
from tests.helpers.pdfgen import make_paper
from tests.helpers.server import RunningServer, plugin_body, run_app
from tests.helpers.vllm import FakeVLLMFactory, FakeVLLMProcess

pytestmark = BROWSER_MARKS
__all__ = ["browser_fixture", "module_browser_fixture"]


@pytest.fixture
def srv(settings: Settings, tmp_path: Path) -> Iterator[tuple[RunningServer, FakeVLLMProcess]]:
    with FakeVLLMFactory(tmp_path) as factory:
        # A little latency per paragraph, so the bar is seen moving rather than jumping.
        fake = factory.start("--fake-latency-ms", "40")
        configured = settings.model_copy(update={"llm_base_url": fake.base_url, "concurrency": 2})
        with run_app(configured) as running:
            yield running, fake


def test_upload_watch_the_bar_and_download(
    srv: tuple[RunningServer, FakeVLLMProcess], browser: Any, tmp_path: Path, test_output_dir: Path
) -> None:
    from playwright.sync_api import expect

    server, _ = srv
    paper, _truth = make_paper(pages=3)
    upload = tmp_path / "A Synthetic Study (draft).pdf"
    upload.write_bytes(paper)

    page = browser.new_page(viewport={"width": 1000, "height": 900}, accept_downloads=True)
    page.goto(server.url + "/")
    expect(page.locator("#live")).to_have_text("live")
    expect(page.locator("#no-jobs")).to_be_visible()
    expect(page.locator("#vllm-state")).to_contain_text("ready", timeout=10_000)

    page.set_input_files("#file", str(upload))
    page.click("#submit")
    job = page.locator("li.job")
    expect(job).to_have_count(1)
    expect(job.locator(".name")).to_have_text(upload.name)
    bar = job.locator(".bar")
    # The bar moves through the middle before it is full.
    expect(bar).not_to_have_attribute("aria-valuenow", "0", timeout=20_000)
    expect(bar).to_have_attribute("aria-valuenow", "100", timeout=60_000)
    expect(job.locator(".pct")).to_have_text("100%")
    expect(job.locator(".stage")).to_have_text("done")
    links = job.locator(".files a")
    expect(links).to_have_count(2)
    expect(links.nth(0)).to_have_text("A Synthetic Study (draft)-mono.pdf")
    page.screenshot(path=str(test_output_dir / "progress-page.png"), full_page=True)

    with page.expect_download() as download_info:
        links.nth(0).click()
    downloaded = Path(download_info.value.path())
    assert downloaded.read_bytes().startswith(b"%PDF")
    # The server deleted it after the last byte; the page says so.
    expect(job.locator(".files .gone")).to_have_text(
        "A Synthetic Study (draft)-mono.pdf (downloaded)"
    )
    assert server.services.outputs.names() == ["A Synthetic Study (draft)-dual.pdf"]

    phone = browser.new_page(viewport={"width": 390, "height": 844})
    phone.goto(server.url + "/")
    expect(phone.locator("li.job .pct")).to_have_text("100%")
    phone.screenshot(path=str(test_output_dir / "progress-page-phone.png"), full_page=True)


def test_a_bad_upload_shows_the_servers_message(
    srv: tuple[RunningServer, FakeVLLMProcess], browser: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    server, _ = srv
    fake_pdf = tmp_path / "notes.pdf"
    fake_pdf.write_bytes(b"just some text, not a PDF")
    page = browser.new_page()
    page.goto(server.url + "/")
    page.set_input_files("#file", str(fake_pdf))
    page.click("#submit")
    expect(page.locator("#upload-error")).to_have_text("not a PDF file")
    expect(page.locator("li.job")).to_have_count(0)


def test_the_page_says_who_holds_the_gpu_then_translates(
    browser: Any, tmp_path: Path, test_output_dir: Path
) -> None:
    """ZT_MANAGER=local, ComfyUI on the GPU: the job waits and says why; when ComfyUI leaves,
    vLLM is started and the bar fills."""
    from playwright.sync_api import expect

    from tests.helpers.gpu import comfyui_argv, gpu, running
    from tests.helpers.manager import Rig

    rig = Rig(tmp_path)
    settings = rig.settings(gpu_wait_s=120.0, gpu_poll_s=0.2)
    paper, _truth = make_paper(pages=2, appendix=False)
    upload = tmp_path / "paper.pdf"
    upload.write_bytes(paper)
    try:
        with (
            running(comfyui_argv(tmp_path)) as comfy,
            run_app(settings) as server,
        ):
            rig.smi.set(
                gpus=[gpu(memory_used=20500)],
                processes=[{"pid": comfy.pid, "used_gpu_memory": 20275}],
            )
            page = browser.new_page(viewport={"width": 1000, "height": 800})
            try:
                page.goto(server.url + "/")
                expect(page.locator("#gpu-state")).to_contain_text("ComfyUI", timeout=10_000)
                page.set_input_files("#file", str(upload))
                page.click("#submit")
                job = page.locator("li.job")
                expect(job.locator(".stage")).to_have_text("waiting for GPU", timeout=10_000)
                expect(job.locator(".message")).to_contain_text("ComfyUI")
                expect(job.locator(".message")).to_contain_text("19.8 GiB")
                # Held back by the GPU (not merely passing its first look): the card counts it.
                expect(page.locator("#vllm-state")).to_contain_text(
                    "1 paper waiting for the GPU", timeout=5_000
                )
                page.screenshot(path=str(test_output_dir / "progress-page-waiting.png"))
                assert rig.launch_count() == 0

                rig.smi.set()  # ComfyUI is done with the GPU
                expect(job.locator(".bar")).to_have_attribute(
                    "aria-valuenow", "100", timeout=60_000
                )
                expect(job.locator(".stage")).to_have_text("done")
                assert rig.launch_count() == 1
            finally:
                page.context.close()  # its event stream ends before the server stops
    finally:
        rig.reap()


def test_while_vllm_loads_the_page_tells_one_story(browser: Any, tmp_path: Path) -> None:
    """Issue 39: while vLLM started, the job said "starting vLLM", the vLLM card "down:
    connection refused" and the GPU card "idle"; once it answered, the GPU card still said a
    vLLM was loading. Each card now moves with the job."""
    from playwright.sync_api import expect

    from tests.helpers.manager import Rig

    rig = Rig(tmp_path)
    settings = rig.settings(vllm_command=rig.vllm_command(load_s=4.0), gpu_wait_s=60.0)
    paper, _truth = make_paper(pages=2, appendix=False)
    upload = tmp_path / "paper.pdf"
    upload.write_bytes(paper)
    try:
        with run_app(settings) as server:
            page = browser.new_page()
            try:
                page.goto(server.url + "/")
                expect(page.locator("#gpu-state")).to_contain_text("GPU idle", timeout=10_000)
                page.set_input_files("#file", str(upload))
                page.click("#submit")
                job = page.locator("li.job")
                expect(job.locator(".message")).to_contain_text("vLLM loading", timeout=15_000)
                expect(page.locator("#vllm-state")).to_have_text(
                    "starting: vLLM is loading the model", timeout=3_000
                )
                expect(page.locator("#gpu-state")).to_contain_text("vLLM loading", timeout=3_000)
                card = page.locator("#server").inner_text()
                assert "waiting for the GPU" not in card and "GPU idle" not in card, card
                expect(job.locator(".stage")).to_have_text("done", timeout=60_000)
                expect(page.locator("#vllm-state")).to_have_text("ready", timeout=3_000)
                expect(page.locator("#gpu-state")).to_contain_text("vLLM serving")
                assert rig.launch_count() == 1
            finally:
                page.context.close()
    finally:
        rig.reap()


TOKEN = "qa-secret"


@pytest.fixture
def token_srv(settings: Settings, tmp_path: Path) -> Iterator[RunningServer]:
    with FakeVLLMFactory(tmp_path) as factory:
        fake = factory.start()
        configured = settings.model_copy(
            update={"llm_base_url": fake.base_url, "api_token": SecretStr(TOKEN)}
        )
        with run_app(configured) as running:
            yield running


def test_page_opened_at_the_token_path_uses_that_token(
    token_srv: RunningServer, browser: Any
) -> None:
    """docs/api.md: give the plugin ``http://HOST:8890/t/<token>``; the same address in a browser
    served the page, but its event stream and polls went to ``/events`` without the token (401)
    and the page asked for a token it had just been given in its own URL.

    Origin: QA, a bug found by using the product end to end."""
    from playwright.sync_api import expect

    with token_srv.client(headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        answer = client.post("/translate", json=plugin_body(make_paper()[0], "p.pdf", dual="false"))
        assert answer.status_code == 200, answer.text

    page = browser.new_page()  # the module's Chromium: one sync playwright at a time
    refused: list[str] = []
    page.on("response", lambda r: refused.append(r.url) if r.status == 401 else None)
    page.goto(f"{token_srv.url}/t/{TOKEN}/")
    expect(page.locator("#live")).to_have_text("live")
    expect(page.locator("#token-box")).to_be_hidden()
    link = page.locator("li.job .files a")
    expect(link).to_have_text("p-mono.pdf")
    with page.expect_download() as download_info:
        link.click()
    assert Path(download_info.value.path()).read_bytes().startswith(b"%PDF")
    assert refused == []
